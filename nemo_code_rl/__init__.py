"""nemo-code-rl: reinforcement learning on code for NeMo RL.

The execution engine is importable without NeMo RL, torch or Ray::

    from nemo_code_rl import ExecutionPool, Program, Limits
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nemo_code_rl.engine import (
        DEFAULT_PRELOAD,
        ExecutionPool,
        ExecutionResult,
        IsolationUnavailable,
        Limits,
        Program,
        Verdict,
    )
    from nemo_code_rl.registration import register

_ENGINE_NAMES = frozenset(
    (
        "DEFAULT_PRELOAD",
        "ExecutionPool",
        "ExecutionResult",
        "IsolationUnavailable",
        "Limits",
        "Program",
        "Verdict",
    )
)

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # Everything loads on first use, so that sandbox workers, which import this package (and the
    # template every program is forked from), stay small: the engine's pools, and ``register``
    # with the configs it validates (pydantic).
    if name in _ENGINE_NAMES:
        from nemo_code_rl import engine

        return getattr(engine, name)
    if name == "register":
        from nemo_code_rl.registration import register

        return register
    raise AttributeError(f"module 'nemo_code_rl' has no attribute {name!r}")


__all__ = [
    "DEFAULT_PRELOAD",
    "ExecutionPool",
    "ExecutionResult",
    "IsolationUnavailable",
    "Limits",
    "Program",
    "Verdict",
    "__version__",
    "register",
]
