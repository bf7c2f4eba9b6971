"""The execution engine: run untrusted Python (and C++) on many inputs, isolated, limited and fast."""

from nemo_code_rl.engine.docker_pool import DockerExecutionPool, DockerUnavailable
from nemo_code_rl.engine.languages import CompileSettings, Language
from nemo_code_rl.engine.limits import Limits
from nemo_code_rl.engine.pool import DEFAULT_PRELOAD, ExecutionPool
from nemo_code_rl.engine.program import Program
from nemo_code_rl.engine.ray_pool import RayExecutionPool
from nemo_code_rl.engine.results import ExecutionResult, Verdict
from nemo_code_rl.engine.sandbox import IsolationUnavailable

__all__ = [
    "DEFAULT_PRELOAD",
    "CompileSettings",
    "DockerExecutionPool",
    "DockerUnavailable",
    "ExecutionPool",
    "ExecutionResult",
    "IsolationUnavailable",
    "Language",
    "Limits",
    "Program",
    "RayExecutionPool",
    "Verdict",
]
