"""Where the time goes: CPU seconds per 1,000 programs in the process that calls ``run_batch`` /
``verify_batch`` (one parent routes every program), on all CPUs, and ``score``'s fixed costs.

On ``bench``'s workload (stdin programs, 10 tests each) it reports, for the bare-fork floor, the
engine, the verifier, and the verifier as ``score`` drives it (a callback per finished program):
the parent's CPU (``time.process_time``) and the whole machine's busy CPU (``/proc/stat``: run it
on an otherwise idle host) per 1,000 programs, and optionally a cProfile of one layer. Then the
parts of ``score`` that do not scale with workers: importing the CLI, starting and stopping the
pool, reading the two files, writing the result rows, and ``score`` end to end on one program per
worker (those costs as the command overlaps them).

    python benchmarks/parent_cost.py --programs 2000 --workers 2 --isolation namespaces
    python benchmarks/parent_cost.py --profile verifier_streaming   # and the top of its cProfile
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nemo_code_rl import results_files
from nemo_code_rl.benchmarking.baselines import ForkFloor
from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.unit_tests import scoring
from nemo_code_rl.unit_tests.problems import parse_problem, read_problems
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig


def _busy_cpu_s() -> float:
    """CPU seconds all CPUs of the machine have spent busy since boot (``/proc/stat``)."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def score_fixed_costs(rows: list[dict], pairs: list, workers: int, isolation: str) -> dict[str, float]:
    """Seconds of ``score``'s parts that do not scale with workers, for this workload."""
    costs = {}
    # What ``score`` imports to read its options (the parser shows the configs' defaults, so
    # building it imports them), whether ``cli`` imports it at once or lazily: ``score --help``.
    command = [sys.executable, "-m", "nemo_code_rl.cli", "score", "--help"]
    costs["interpreter_and_cli_imports"] = min(
        _timed(lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL)) for _ in range(3)
    )
    started = time.perf_counter()
    pool = ExecutionPool(workers=workers, isolation=isolation)
    costs["pool_start"] = time.perf_counter() - started
    costs["pool_close"] = _timed(pool.close)
    with tempfile.TemporaryDirectory() as folder:
        problems_file, completions_file = Path(folder) / "p.jsonl", Path(folder) / "c.jsonl"
        problems_file.write_text("".join(json.dumps(row) + "\n" for row in rows))
        completions_file.write_text(
            "".join(json.dumps({"id": p.id, "completion": c}) + "\n" for p, c in pairs)
        )
        costs["read_problems"] = _timed(lambda: read_problems(problems_file))
        completions = results_files.read_completions(completions_file)
        costs["read_completions"] = _timed(lambda: results_files.read_completions(completions_file))
        with Verifier(
            VerifierConfig(timeout_s=5.0, calibrate=False), workers=workers, isolation=isolation
        ) as verifier:
            results = results_files.ResultsFile(Path(folder) / "r.jsonl", completions)
            produced = scoring.score([p for p, _ in pairs], completions, verifier)
        costs["append_rows"] = _timed(lambda: [results.append(row) for row in produced])
        costs["finish_rows"] = _timed(lambda: results.finish(produced))
        costs["summary"] = _timed(lambda: scoring.format_summary(scoring.summarize(produced)))
        costs["score_one_per_worker"] = _score_end_to_end(rows[:workers], pairs[:workers], workers, isolation)
    return {k: round(v, 4) for k, v in costs.items()}


def _score_end_to_end(rows: list[dict], pairs: list, workers: int, isolation: str) -> float:
    """Seconds of ``nemo-code-rl score`` on one program per worker (best of 3): its fixed costs as
    a user meets them, overlapped as the command overlaps them (interpreter, imports, the pool's
    start, reading, judging the few programs, writing, the pool's stop)."""
    with tempfile.TemporaryDirectory() as folder:
        problems_file, completions_file = Path(folder) / "p.jsonl", Path(folder) / "c.jsonl"
        problems_file.write_text("".join(json.dumps(row) + "\n" for row in rows))
        completions_file.write_text(
            "".join(json.dumps({"id": p.id, "completion": c}) + "\n" for p, c in pairs)
        )
        command = [
            sys.executable, "-m", "nemo_code_rl.cli", "score", str(problems_file), str(completions_file),
            "--workers", str(workers), "--isolation", isolation, "--quiet", "--no-calibrate",
            "--timeout", "5", "-o", str(Path(folder) / "r.jsonl"),
        ]  # fmt: skip
        return min(
            _timed(lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL)) for _ in range(3)
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--isolation", default="namespaces")
    parser.add_argument("--profile", help="a layer to profile (engine, verifier, verifier_streaming)")
    args = parser.parse_args()
    items = build_workload(args.programs, args.tests)
    programs = [Program(item.source, list(item.inputs)) for item in items]
    rows = [item.problem_row() for item in items]
    pairs = [(parse_problem(row), item.completion) for row, item in zip(rows, items, strict=True)]
    jobs = [(item.source, item.inputs) for item in items]
    report: dict[str, dict] = {}
    with ForkFloor(args.workers) as floor:
        busy, wall = _busy_cpu_s(), time.perf_counter()
        floor.run(jobs, 5.0)
        busy, wall = _busy_cpu_s() - busy, time.perf_counter() - wall
        report["floor"] = {
            "machine_busy_cpu_s_per_1000": round(busy / args.programs * 1000, 3),
            "wall_s": round(wall, 3),
        }
        print("floor", report["floor"], flush=True)
    with ExecutionPool(workers=args.workers, limits=Limits(timeout_s=5.0), isolation=args.isolation) as pool:
        verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
        layers = {
            "engine": lambda: pool.run_batch(programs),
            "verifier": lambda: verifier.verify_batch(pairs),
            "verifier_streaming": lambda: verifier.verify_batch(pairs, on_verified=lambda i, v: None),
        }
        pool.run_batch(programs[:50])  # warm
        for name, run in layers.items():
            profiler = cProfile.Profile() if name == args.profile else None
            cpu, wall, busy = time.process_time(), time.perf_counter(), _busy_cpu_s()
            if profiler:
                profiler.enable()
            run()
            if profiler:
                profiler.disable()
            cpu, wall, busy = time.process_time() - cpu, time.perf_counter() - wall, _busy_cpu_s() - busy
            report[name] = {
                "parent_cpu_s_per_1000": round(cpu / args.programs * 1000, 4),
                "machine_busy_cpu_s_per_1000": round(busy / args.programs * 1000, 3),
                "wall_s": round(wall, 3),
            }
            print(name, report[name], flush=True)
            if profiler:
                pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    report["score_fixed_s"] = score_fixed_costs(rows, pairs, args.workers, args.isolation)
    print("score_fixed_s", report["score_fixed_s"], flush=True)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
