"""The NeMo RL datum every processor of ours returns: one templated user turn, masked when too long.

Mirrors NeMo RL's own processors (``math_hf_data_processor``): a prompt of at least
``max_seq_length`` tokens is cut to a few tokens and gets ``loss_multiplier = 0``, so it stays in
the data set (indices stay aligned) but never trains the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# NeMo RL cuts an over-long prompt to at most this many tokens before masking it.
TRUNCATED_TOKENS = 4


def chat_datum(
    messages: Sequence[Mapping[str, str]],
    extra_env_info: dict[str, Any],
    datum_dict: Mapping[str, Any],
    task_data_spec: Any,
    tokenizer: Any,
    max_seq_length: int | None,
    idx: int,
) -> dict[str, Any]:
    """Apply the chat template to ``messages`` and build the ``DatumSpec`` dict NeMo RL expects."""
    text = tokenizer.apply_chat_template(
        list(messages), tokenize=False, add_generation_prompt=True, add_special_tokens=False
    )
    token_ids = tokenizer(text, return_tensors="pt", add_special_tokens=False)["input_ids"][0]
    length = len(token_ids)
    loss_multiplier = 1.0
    if max_seq_length is not None and length >= max_seq_length:
        token_ids = token_ids[: min(TRUNCATED_TOKENS, max_seq_length)]
        loss_multiplier = 0.0
    output: dict[str, Any] = {
        "message_log": [{"role": "user", "content": text, "token_ids": token_ids}],
        "length": length,
        "extra_env_info": extra_env_info,
        "loss_multiplier": loss_multiplier,
        "idx": idx,
    }
    task_name = datum_dict.get("task_name") or getattr(task_data_spec, "task_name", None)
    if task_name:
        output["task_name"] = task_name
    return output
