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
