"""How each layer scales with workers: the bare-fork floor, the engine, the verifier and ``score``.

``floor_cold`` (an extra column) is the floor timed as ``score`` is: a fresh interpreter that
starts its forkers, reads the jobs from a file and runs them (``benchmarking.cold_floor``); the
other floor column times warm forkers only, as before.

The floor is timed first and again last at each worker count (``floor_after``), and each layer
is compared with the mean of the two (``floor_mean``): the GPU host's speed moves by up to a sixth
within a minute (session 28), and each layer's gain is then set against the floor's over the same
stretch of time.

``floor_split`` is the floor split as the trust model demands (``baselines.SplitForkFloor``):
jobs held by one process, programs forked by another that never saw a job. Each layer's gain and
time are also given against it: how far the engine is from the cheapest design that keeps jobs
out of what programs inherit, apart from how far that design is from the bare floor.

On ``bench``'s generated workload (stdin programs, 10 tests each, right, wrong and raising), each
layer is timed at each worker count; the gain from the fewest to the most workers is compared
with the floor's, and ``score`` (the CLI, end to end, reading and writing its files) with the
floor at the same worker count.

    python benchmarks/scaling.py --workers 2 16 --programs 2000 --json scaling.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nemo_code_rl.benchmarking.baselines import ForkFloor, SplitForkFloor
from nemo_code_rl.benchmarking.workload import build_workload, write_score_files
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig


def _timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def measure(workers: int, items, folder: Path, isolation: str, repeats: int) -> dict[str, float]:
    jobs = [(item.source, item.inputs) for item in items]
    programs = [Program(item.source, list(item.inputs)) for item in items]
    rows = [item.problem_row() for item in items]
    pairs = [(parse_problem(row), item.completion) for row, item in zip(rows, items, strict=True)]

    def floor_seconds() -> float:
        with ForkFloor(workers) as floor:
            return min(_timed(lambda: floor.run(jobs, 5.0)) for _ in range(repeats))

    found = {"floor": floor_seconds()}
    with SplitForkFloor(workers) as split:
        found["floor_split"] = min(_timed(lambda: split.run(jobs, 5.0)) for _ in range(repeats))
    with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation=isolation) as pool:
        found["engine"] = min(_timed(lambda: pool.run_batch(programs)) for _ in range(repeats))
        verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
        found["verifier"] = min(_timed(lambda: verifier.verify_batch(pairs)) for _ in range(repeats))
    problems_file, completions_file = write_score_files(items, folder)
    jobs_file = folder / "jobs.json"
    jobs_file.write_text(json.dumps(jobs))
    cold = [sys.executable, "-m", "nemo_code_rl.benchmarking.cold_floor", str(jobs_file), str(workers)]
    found["floor_cold"] = min(_timed(lambda: subprocess.run(cold, check=True)) for _ in range(repeats))
    command = [
        sys.executable, "-m", "nemo_code_rl.cli", "score", str(problems_file), str(completions_file),
        "--workers", str(workers), "--isolation", isolation, "--quiet", "--no-calibrate", "--timeout", "5",
        "-o", str(folder / "results.jsonl"),
    ]  # fmt: skip
    found["score"] = min(
        _timed(lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL)) for _ in range(repeats)
    )
    found["floor_after"] = floor_seconds()
    found["floor_mean"] = (found["floor"] + found["floor_after"]) / 2
    return found


def uncompiled_packages() -> list[str]:
    """The top-level packages imported here that have modules without cached bytecode (or with
    bytecode older than the source). Each fresh
    interpreter (``score``, ``floor_cold``, every worker) then compiles them from source, which
    users do not pay (pip compiles at install): with ``PYTHONDONTWRITEBYTECODE=1`` and an install
    made with ``--no-compile`` (the GPU host's), importing ``score`` took 0.38-0.54 s against
    0.15-0.23 s compiled."""
    missing = {
        name.partition(".")[0]
        for name, module in list(sys.modules.items())
        if getattr(module, "__cached__", None) and not _fresh(module.__cached__, module.__file__)
    }
    return sorted(missing)


def _fresh(cached: str, source: str) -> bool:
    return os.path.exists(cached) and os.stat(cached).st_mtime >= os.stat(source).st_mtime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 16])
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=2, help="runs per layer, best kept (default 2)")
    parser.add_argument("--isolation", default="full")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    items = build_workload(args.programs, args.tests)
    uncompiled = uncompiled_packages()
    if uncompiled:
        print(
            f"warning: no cached bytecode for modules of {', '.join(uncompiled)}: every fresh interpreter "
            "compiles them, which inflates score and floor_cold (python -m compileall <site-packages>)",
            file=sys.stderr,
        )
    by_workers = {}
    with tempfile.TemporaryDirectory() as folder:
        for workers in args.workers:
            by_workers[workers] = measure(workers, items, Path(folder), args.isolation, args.repeats)
            print(workers, "workers:", {k: round(v, 2) for k, v in by_workers[workers].items()}, flush=True)
    low, high = min(args.workers), max(args.workers)
    gains = {layer: by_workers[low][layer] / by_workers[high][layer] for layer in by_workers[low]}
    report = {
        "programs": args.programs,
        "tests": args.tests,
        "cores": len(os.sched_getaffinity(0)),
        "uncompiled_packages": uncompiled,
        "seconds": by_workers,
        f"gain_{low}_to_{high}": gains,
        "share_of_floor_gain": {layer: gains[layer] / gains["floor_mean"] for layer in gains},
        "share_of_floor_split_gain": {layer: gains[layer] / gains["floor_split"] for layer in gains},
        f"score_over_floor_at_{high}": by_workers[high]["score"] / by_workers[high]["floor_mean"],
        f"verifier_over_floor_at_{high}": by_workers[high]["verifier"] / by_workers[high]["floor_mean"],
        f"score_over_floor_cold_at_{high}": by_workers[high]["score"] / by_workers[high]["floor_cold"],
        f"over_floor_split_at_{high}": {
            layer: by_workers[high][layer] / by_workers[high]["floor_split"]
            for layer in ("engine", "verifier", "score")
        },
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
