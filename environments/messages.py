"""Reading NeMo RL conversations, and the keys our environments keep in a sample's metadata.

Shared by every environment of the package, so they read conversations and carry episodes alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

ENVIRONMENT_ROLE = "environment"
# Keys the environment adds to a sample's metadata (``extra_env_info``) to carry an episode on.
TURN_KEY = "turn"
EPISODE_REWARD_KEY = "episode_reward"
RESULT_KEY = "result"
# Attempts kept for the next metrics call. NeMo RL's GRPO does not call
# ``global_post_process_and_metrics`` at every step, so the backlog is bounded to the newest ones.
MAX_PENDING_OUTCOMES = 100_000


def last_assistant_content(message_log: Any) -> str:
    """The text of the last assistant message ("" for a malformed log): what the model answered."""
    if not isinstance(message_log, Sequence) or isinstance(message_log, str):
        return ""
    for message in reversed(message_log):
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            return str(message.get("content", ""))
    return ""


def assistant_text(message_log: Any) -> str:
    """Everything the model wrote in a conversation, for response-length and repetition metrics."""
    if not isinstance(message_log, Sequence) or isinstance(message_log, str):
        return ""
    return "\n".join(
        str(message.get("content", ""))
        for message in message_log
        if isinstance(message, Mapping) and message.get("role") == "assistant"
    )


def truncation_flags(batch: Any) -> list[bool] | None:
    """Which responses hit the generation limit: NeMo RL's ``truncated``, else not ``is_end``."""
    if "truncated" in batch:
        return [bool(flag) for flag in batch["truncated"]]
    if "is_end" in batch:
        return [not bool(flag) for flag in batch["is_end"]]
    return None
