"""The execution engine: run untrusted Python (and C++) on many inputs, isolated, limited and fast.

Its public names load on first use (PEP 562), not when a submodule is imported: every sandbox
worker imports ``nemo_code_rl.engine.worker``, which runs this file first, and the template every
program is forked from is forked from that worker. Importing the pools here (Docker, Ray,
``subprocess``, ``logging``) would cost each worker's start-up and enlarge what each fork copies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nemo_code_rl.lazy_names import lazy_names

if TYPE_CHECKING:
    from nemo_code_rl.engine.docker_pool import DockerExecutionPool, DockerUnavailable
    from nemo_code_rl.engine.languages import CompileSettings, Language
    from nemo_code_rl.engine.limits import Limits
    from nemo_code_rl.engine.pool import DEFAULT_PRELOAD, ExecutionPool
    from nemo_code_rl.engine.program import PlannedProgram, Program
    from nemo_code_rl.engine.ray_pool import RayExecutionPool
    from nemo_code_rl.engine.results import ExecutionResult, Verdict
    from nemo_code_rl.engine.sandbox import IsolationUnavailable

_HOMES = {
    "DEFAULT_PRELOAD": "pool",
    "CompileSettings": "languages",
    "DockerExecutionPool": "docker_pool",
    "DockerUnavailable": "docker_pool",
    "ExecutionPool": "pool",
    "ExecutionResult": "results",
    "IsolationUnavailable": "sandbox",
    "Language": "languages",
    "Limits": "limits",
    "PlannedProgram": "program",
    "Program": "program",
    "RayExecutionPool": "ray_pool",
    "Verdict": "results",
}


__getattr__ = lazy_names(__name__, _HOMES, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
    "PlannedProgram",
    "Program",
    "RayExecutionPool",
    "Verdict",
]
