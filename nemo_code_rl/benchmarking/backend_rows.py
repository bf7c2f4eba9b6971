"""The benchmark's rows for the other engine backends: the Docker pool and the Ray pool.

Each backend runs the same programs as row a, on warm workers (start-up reported apart, as for
row a), timed ``repeats`` times with the median reported by the caller. A backend that cannot
start here (no Docker daemon or image, no Ray) is skipped with the reason, never faked.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nemo_code_rl.engine.backend import ExecutionBackend
from nemo_code_rl.engine.limits import Limits
from nemo_code_rl.engine.program import Program
from nemo_code_rl.engine.results import ExecutionResult

BACKEND_KEYS = ("docker", "ray")


@dataclass
class BackendRun:
    key: str
    label: str
    results: list[list[ExecutionResult]]
    times: list[float]
    startup_s: float


def _docker_pool(workers: int, limits: Limits) -> tuple[str, ExecutionBackend]:
    from nemo_code_rl.engine.docker_pool import DockerExecutionPool

    pool = DockerExecutionPool(workers=workers, limits=limits)
    return f"engine, Docker, isolation={pool.isolation}", pool


def _ray_pool(workers: int, limits: Limits) -> tuple[str, ExecutionBackend]:
    import ray

    from nemo_code_rl.engine.ray_pool import RayExecutionPool

    if not ray.is_initialized():
        address = os.environ.get("RAY_ADDRESS")
        ray.init(
            address=address,
            num_cpus=None if address else workers,
            include_dashboard=False,
            log_to_driver=False,
        )
    pool = RayExecutionPool(limits=limits, actor_options={"num_cpus": 0})
    return f"engine, Ray, {len(pool.actors)} actors x {pool.size // len(pool.actors)}", pool


_FACTORIES: dict[str, Callable[[int, Limits], tuple[str, ExecutionBackend]]] = {
    "docker": _docker_pool,
    "ray": _ray_pool,
}


def measure_backends(
    programs: Sequence[Program],
    backends: Sequence[str],
    workers: int,
    timeout_s: float,
    repeats: int,
    emit: Callable[[str], None],
) -> list[BackendRun]:
    """Time ``programs`` on each of ``backends`` (keys ``a_docker``, ``a_ray``)."""
    runs = []
    for backend in backends:
        start = time.perf_counter()
        try:
            label, pool = _FACTORIES[backend](workers, Limits(timeout_s=timeout_s))
        except (ImportError, RuntimeError, OSError) as exc:
            emit(f"row a_{backend} not measured: {type(exc).__name__}: {exc}")
            continue
        with pool:
            startup_s = time.perf_counter() - start
            times, results = [], []
            for _ in range(repeats):
                start = time.perf_counter()
                results = pool.run_batch(list(programs))
                times.append(time.perf_counter() - start)
        runs.append(BackendRun(f"a_{backend}", label, results, times, startup_s))
    return runs
