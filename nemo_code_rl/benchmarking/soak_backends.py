"""Soak every backend in one run: ``python -m nemo_code_rl.benchmarking.soak_backends``.

Not part of CI. Runs a fixed number of programs on each backend asked for (the process pool,
the Ray pool on a local Ray cluster, the Docker pool when a daemon and image are there) and
prints, per backend, throughput over time, pool memory at start and end, and leftover processes.
"""

from __future__ import annotations

import argparse
import os

from nemo_code_rl.benchmarking.soak import SoakReport, run_soak
from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits

_LIMITS = Limits(timeout_s=10)


def _summary(name: str, report: SoakReport) -> str:
    rates = report.chunk_rates
    return (
        f"{name}: {report.programs} programs, {report.tests} tests in {report.seconds:.1f} s "
        f"({report.programs / report.seconds:.1f} programs/s, {report.tests / report.seconds:.0f} tests/s; "
        f"chunks min {min(rates):.1f} / first {rates[0]:.1f} / last {rates[-1]:.1f} programs/s); "
        f"pool memory {report.rss_start_bytes / 2**20:.1f} -> {report.rss_end_bytes / 2**20:.1f} MiB; "
        f"leftover processes {report.leftover_processes}"
    )


def _process(workers: int):
    return lambda: ExecutionPool(workers=workers, limits=_LIMITS)


def _ray(workers: int):
    import ray

    from nemo_code_rl.engine.ray_pool import RayExecutionPool

    if not ray.is_initialized():
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    return lambda: RayExecutionPool(limits=_LIMITS, actor_options={"num_cpus": 0})


def _docker(workers: int):
    from nemo_code_rl.engine.docker_pool import DockerExecutionPool

    return lambda: DockerExecutionPool(workers=workers, limits=_LIMITS)


_BACKENDS = {"process": _process, "ray": _ray, "docker": _docker}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--backend",
        action="append",
        nargs=2,
        metavar=("NAME", "PROGRAMS"),
        required=True,
        help=f"a backend ({', '.join(_BACKENDS)}) and how many programs to soak it with",
    )
    parser.add_argument("--tests", type=int, default=10, help="tests per program")
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--chunk", type=int, default=2000)
    args = parser.parse_args(argv)
    items = build_workload(200, args.tests)
    jobs = [(item.source, item.inputs) for item in items]
    summaries = []
    for name, count in args.backend:
        print(f"soak {name}: {count} programs of {args.tests} tests, {args.workers} workers", flush=True)  # noqa: T201
        report = run_soak(
            jobs,
            int(count),
            args.workers,
            chunk=args.chunk,
            pool_factory=_BACKENDS[name](args.workers),
            emit=lambda line: print(line, flush=True),  # noqa: T201
        )
        summaries.append(_summary(name, report))
    for line in summaries:
        print(line)  # noqa: T201
    return 0 if all("leftover processes 0" in line for line in summaries) else 1


if __name__ == "__main__":
    raise SystemExit(main())
