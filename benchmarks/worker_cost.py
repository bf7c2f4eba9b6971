"""Where a program's CPU goes below the parent: the worker's supervisor, the template and the child.

On ``bench``'s workload (stdin programs, right, wrong and raising), for the bare-fork floor and the
engine at each isolation level, it reads from ``/proc`` the CPU each pool process has used during a
batch: the supervisor's own (the worker process), the template's own (it forks every child, so
the kernel's fork work is charged to it) and that of the children it reaped (``cutime`` and
``cstime`` of the template: the children's whole lives, exec of the program, its exit). For the
floor: the forker's own and its reaped children's. With ``--verifier``, also the unit-test
verifier on the same pool and programs (judging in the supervisors), and for every layer the CPU
of the process that sent the batch (``parent``). CPU time, not wall time, so a busy shared
machine changes the numbers less (not nothing: compare runs made side by side). Run at two test
counts, the difference gives what each process costs per program and per test
(``cost = per_program + tests * per_test``).

    python benchmarks/worker_cost.py --programs 400 --tests 1 10 --isolation none namespaces
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time

from nemo_code_rl.benchmarking.baselines import ForkFloor
from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

_TICK = os.sysconf("SC_CLK_TCK")
_PROCESSES = ("supervisor", "template", "children")
_CPU = ("parent", *_PROCESSES)
_KINDS = (*_CPU, *(f"{kind}_faults" for kind in _PROCESSES))


def _stat(pid: int) -> tuple[float, float, int, int]:
    """Own CPU seconds, CPU seconds of reaped children, and the same two for minor page faults
    (a page written that the process shares copy-on-write with the one it was forked from)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(v) for v in fields[11:15])
    return (utime + stime) / _TICK, (cutime + cstime) / _TICK, int(fields[7]), int(fields[8])


def _children(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as handle:
            found += [int(v) for v in handle.read().split()]
    return found


def _snapshot(roots: list[int]) -> dict[str, float]:
    """CPU seconds so far of the roots (supervisors or forkers), their long-lived children
    (templates) and what those reaped (the programs)."""
    totals = dict.fromkeys(_KINDS, 0.0)
    totals["parent"] = time.process_time()
    for root in roots:
        own, reaped, faults, reaped_faults = _stat(root)
        totals["supervisor"] += own
        totals["supervisor_faults"] += faults
        templates = _children(root)
        if not templates:  # the floor: the forker reaps its children itself
            totals["children"] += reaped
            totals["children_faults"] += reaped_faults
        for pid in templates:
            own, reaped, faults, reaped_faults = _stat(pid)
            totals["template"] += own
            totals["template_faults"] += faults
            totals["children"] += reaped
            totals["children_faults"] += reaped_faults
    return totals


def _measure(roots: list[int], run, programs: int) -> dict[str, float]:
    """Milliseconds of CPU, and minor page faults, per program in each process kind during ``run()``."""
    before = _snapshot(roots)
    run()
    after = _snapshot(roots)
    per = {k: (after[k] - before[k]) * (1000 if k in _CPU else 1) / programs for k in before}
    per["total"] = sum(per[k] for k in _CPU)
    per["total_faults"] = sum(per[f"{k}_faults"] for k in _PROCESSES)
    return {k: round(v, 3 if k in (*_CPU, "total") else 1) for k, v in per.items()}


def measure(
    programs: int,
    tests: int,
    workers: int,
    levels: list[str],
    repeats: int,
    floor_too: bool = True,
    verifier_too: bool = False,
) -> dict[str, dict]:
    items = build_workload(programs, tests)
    jobs = [(item.source, item.inputs) for item in items]
    batch = [Program(item.source, list(item.inputs)) for item in items]
    pairs = [(parse_problem(item.problem_row()), item.completion) for item in items]
    found: dict[str, dict] = {}
    if floor_too:
        found["floor"] = _floor(jobs, workers, repeats, programs)
    for level in levels:
        with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation=level) as pool:
            pool.run_batch(batch[:20])
            runs = {level: lambda: pool.run_batch(batch)}
            if verifier_too:
                verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
                runs[f"{level}_verifier"] = functools.partial(verifier.verify_batch, pairs)
            for name, run in runs.items():
                found[name] = min(
                    (_measure(pool.worker_pids, run, programs) for _ in range(repeats)),
                    key=lambda r: r["total"],
                )
    return found


def _floor(jobs: list, workers: int, repeats: int, programs: int) -> dict[str, float]:
    with ForkFloor(workers) as floor:
        roots = [p.pid for p in floor._processes]  # the floor has no public pids; a benchmark may look
        floor.run(jobs[:20], 5.0)
        return min(
            (_measure(roots, lambda: floor.run(jobs, 5.0), programs) for _ in range(repeats)),
            key=lambda r: r["total"],
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=400)
    parser.add_argument("--tests", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--isolation", nargs="+", default=["none", "namespaces"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-floor", action="store_true", help="measure the engine's levels only")
    parser.add_argument("--verifier", action="store_true", help="the unit-test verifier too, on each level")
    args = parser.parse_args()
    report = {}
    for tests in args.tests:
        report[tests] = measure(
            args.programs, tests, args.workers, args.isolation, args.repeats, not args.no_floor, args.verifier
        )
        for layer, row in report[tests].items():
            print(f"tests={tests} {layer:>10}", row, flush=True)
    if len(args.tests) >= 2:
        low, high = min(args.tests), max(args.tests)
        for layer in report[low]:
            split = {}
            for kind, at_high in report[high][layer].items():
                per_test = (at_high - report[low][layer][kind]) / (high - low)
                per_program = at_high - high * per_test
                split[kind] = {"per_program": round(per_program, 3), "per_test": round(per_test, 3)}
            print("split", layer, split, flush=True)
            report[f"split_{layer}"] = split
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
