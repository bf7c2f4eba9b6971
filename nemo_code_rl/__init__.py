"""nemo-code-rl: reinforcement learning on code for NeMo RL.

The execution engine is importable without NeMo RL, torch or Ray::

    from nemo_code_rl import ExecutionPool, Program, Limits
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nemo_code_rl.lazy_names import lazy_names

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

__version__ = "0.1.0"

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

# Everything loads on first use, so that sandbox workers, which import this package (and the
# template every program is forked from), stay small: the engine's pools, and ``register`` with
# the configs it validates (pydantic).
__getattr__ = lazy_names(
    __name__,
    {
        **{name: "engine" for name in __all__ if name not in ("__version__", "register")},
        "register": "registration",
    },
    globals(),
)
