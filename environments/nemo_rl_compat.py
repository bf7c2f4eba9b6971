"""NeMo RL's environment interface where NeMo RL is installed, and an identical stand-in where not.

This is the only module that imports NeMo RL. With it, the environment subclasses the real
``EnvironmentInterface`` and returns the real ``EnvironmentReturn``; without it (CI, evaluation),
the stand-ins below have the same field names in the same order (NeMo RL unpacks the return
value by position), so the environment behaves and is tested the same way.
"""

from __future__ import annotations

import abc
import importlib.util
from typing import Any, NamedTuple


def _nemo_rl_interfaces_present() -> bool:
    try:
        return importlib.util.find_spec("nemo_rl.environments.interfaces") is not None
    except ModuleNotFoundError:
        return False


NEMO_RL_AVAILABLE = _nemo_rl_interfaces_present()

if NEMO_RL_AVAILABLE:
    from nemo_rl.environments.interfaces import EnvironmentInterface, EnvironmentReturn
else:

    class EnvironmentReturn(NamedTuple):  # type: ignore[no-redef]
        """Stand-in for ``nemo_rl.environments.interfaces.EnvironmentReturn`` (same fields, same order)."""

        observations: list[dict[str, str]]
        metadata: list[Any]
        next_stop_strings: list[list[str] | None] | list[None]
        rewards: Any
        terminateds: Any
        answers: list[str | None] | None

    class EnvironmentInterface(abc.ABC):  # type: ignore[no-redef]
        """Stand-in for ``nemo_rl.environments.interfaces.EnvironmentInterface``."""

        @abc.abstractmethod
        def step(
            self, message_log_batch: list[list[dict[str, Any]]], metadata: list[Any]
        ) -> EnvironmentReturn:
            """One turn for a batch of conversations (see NeMo RL)."""

        @abc.abstractmethod
        def global_post_process_and_metrics(self, batch: Any) -> tuple[Any, dict]:
            """Metrics once the rollouts of a training step are done (see NeMo RL)."""


__all__ = ["NEMO_RL_AVAILABLE", "EnvironmentInterface", "EnvironmentReturn"]
