"""nemo-code-rl: reinforcement learning on code for NeMo RL.

The execution engine is importable without NeMo RL, torch or Ray::

    from nemo_code_rl import ExecutionPool, Program, Limits
"""

from nemo_code_rl.engine import (
    DEFAULT_PRELOAD,
    ExecutionPool,
    ExecutionResult,
    IsolationUnavailable,
    Limits,
    Program,
    Verdict,
)

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # ``register`` (and the configs it validates, with pydantic) loads on first use, so that
    # sandbox workers, which import this package, stay small.
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
