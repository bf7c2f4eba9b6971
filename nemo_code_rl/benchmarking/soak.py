"""A long run of the engine at full rate: is it stable? Not part of CI (``nemo-code-rl bench --soak N``).

Any pool with ``run_batch``, ``worker_pids`` and ``sandbox_uids`` can be soaked (the process
pool, the Ray pool, the Docker pool): ``pool_factory`` builds it.

Reports throughput per chunk over time, the resident memory of the pool's workers and templates
at the start and at the end, and the processes left running as any sandbox uid afterwards (must be
0): the properties a trainer running for days depends on.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from nemo_code_rl.engine import ExecutionPool, Limits, Program


@dataclass
class SoakReport:
    programs: int
    tests: int
    seconds: float
    chunk_rates: list[float] = field(default_factory=list)
    rss_start_bytes: int = 0
    rss_end_bytes: int = 0
    leftover_processes: int = 0


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            line = next(line for line in handle if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return 0
    return int(line.split()[1]) * 1024


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(child) for child in handle.read().split()]
    except OSError:
        return []


PoolFactory = Callable[[], AbstractContextManager[Any]]


def pool_rss(pool: Any) -> int:
    """Resident memory of the pool's workers and their templates (programs excluded)."""
    return sum(_rss(pid) + sum(_rss(child) for child in _children(pid)) for pid in pool.worker_pids)


def processes_running_as(uids: Collection[int]) -> int:
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/status") as handle:
                    uid = int(next(line for line in handle if line.startswith("Uid:")).split()[1])
            except (OSError, StopIteration):
                continue
            count += uid in uids
    return count


def run_soak(
    jobs: Sequence[tuple[str, Sequence[str]]],
    total_programs: int,
    workers: int,
    chunk: int = 2000,
    emit: Callable[[str], None] = print,
    pool_factory: PoolFactory | None = None,
) -> SoakReport:
    """Run ``total_programs`` programs, cycling through ``jobs``, in chunks of ``chunk``.

    ``pool_factory`` builds the pool to soak; by default an ``ExecutionPool`` of ``workers``.
    """
    programs = [Program(source, list(inputs)) for source, inputs in jobs]
    factory = pool_factory or (lambda: ExecutionPool(workers=workers, limits=Limits(timeout_s=10)))
    with factory() as pool:
        pool.run_batch(programs[: min(len(programs), 50)])
        report = SoakReport(programs=0, tests=0, seconds=0.0, rss_start_bytes=pool_rss(pool))
        began = time.perf_counter()
        while report.programs < total_programs:
            size = min(chunk, total_programs - report.programs)
            batch = [programs[(report.programs + i) % len(programs)] for i in range(size)]
            start = time.perf_counter()
            results = pool.run_batch(batch)
            elapsed = time.perf_counter() - start
            report.programs += size
            report.tests += sum(len(r) for r in results)
            report.chunk_rates.append(size / elapsed)
            emit(
                f"  {report.programs:>8} programs  {size / elapsed:8.1f} programs/s  "
                f"pool memory {pool_rss(pool) / 2**20:7.1f} MiB"
            )
        report.seconds = time.perf_counter() - began
        report.rss_end_bytes = pool_rss(pool)
        uids = pool.sandbox_uids
    report.leftover_processes = processes_running_as(uids)
    return report
