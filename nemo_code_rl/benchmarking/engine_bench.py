"""``nemo-code-rl bench``: the engine's throughput against today's process models, on one workload.

Rows (all on the same generated workload, in the same run, with the same number of workers):

* a: ``ExecutionPool(isolation="full")``, and the same pool in strict mode (a fork per test);
* a_docker / a_ray (``--backends docker ray``): row a's pool in Docker containers
  (``DockerExecutionPool``) and spread over a Ray cluster (``RayExecutionPool``, on
  ``RAY_ADDRESS`` or a local cluster);
* b: a fresh ``python3`` per test (on an evenly spread subset, see ``--b-programs``);
* c: the LiveCodeBench harness as it runs a program (a ``multiprocessing.Manager``, a ``Process``
  and its per-test mechanics), and c_lean, the same process model with minimal per-test patching,
  each in ``workers`` separate processes (as those harnesses are run, not as threads of one);
* d: the floor: warm interpreters doing a bare ``os.fork()`` per program, no isolation.

Only the batch is timed; pool and forker start-up are reported apart because a trainer pays them
once per job, not once per batch. Every row's outputs are checked against the expected answers,
since a fast row that gets answers wrong would prove nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path

from nemo_code_rl.benchmarking import baselines, mix
from nemo_code_rl.benchmarking.backend_rows import BACKEND_KEYS, measure_backends
from nemo_code_rl.benchmarking.cpp_rows import CPP_ROW_KEYS, measure_cpp
from nemo_code_rl.benchmarking.soak import run_soak
from nemo_code_rl.benchmarking.workload import WorkItem, build_workload, outputs_match, spread_subset
from nemo_code_rl.engine.limits import Limits
from nemo_code_rl.engine.pool import ExecutionPool
from nemo_code_rl.engine.program import Program
from nemo_code_rl.engine.results import ExecutionResult
from nemo_code_rl.engine.sandbox import FULL, USER_LEVELS, IsolationUnavailable

ROW_ORDER = ("a", "a_strict", "a_docker", "a_ray", "b", "c", "c_lean", "d", *CPP_ROW_KEYS)
TARGET_A_OVER_C = 5.0
TARGET_D_OVER_A = 1.5


def _emit(line: str = "") -> None:
    print(line)


@dataclass
class Row:
    """One timed configuration; ``mismatches`` counts tests of correct programs whose output or
    error disagrees with the expected answer, ``error_mismatches`` raising-program tests whose
    error (or its absence) disagrees with what the workload was built to raise."""

    key: str
    label: str
    programs: int
    tests: int
    seconds: float
    cores: int
    mismatches: int
    error_mismatches: int
    startup_s: float | None = None
    runs: list[float] = field(default_factory=list)

    @property
    def programs_per_s(self) -> float:
        return self.programs / self.seconds

    @property
    def tests_per_s(self) -> float:
        return self.tests / self.seconds

    @property
    def tests_per_s_per_core(self) -> float:
        return self.tests_per_s / self.cores

    def to_dict(self) -> dict:
        data = asdict(self)
        data.update(
            programs_per_s=self.programs_per_s,
            tests_per_s=self.tests_per_s,
            tests_per_s_per_core=self.tests_per_s_per_core,
        )
        return data


def cross_check(
    items: Sequence[WorkItem], outcomes: Sequence[Sequence[baselines.Outcome]]
) -> tuple[int, int]:
    """Count (correct-program mismatches, raising-program error mismatches) for one row."""
    mismatches = error_mismatches = 0
    for item, results in zip(items, outcomes, strict=True):
        for (stdout, error), expected, raises in zip(results, item.expected, item.raises, strict=True):
            if item.label == "correct":
                mismatches += error is not None or not outputs_match(stdout, expected)
            elif item.label == "raising":
                if raises is None:
                    error_mismatches += error is not None or not outputs_match(stdout, expected)
                else:
                    error_mismatches += error is None or not error.startswith(raises)
    return mismatches, error_mismatches


def _row(
    key: str,
    label: str,
    items: Sequence[WorkItem],
    outcomes: list,
    times: list[float],
    cores: int,
    startup_s: float | None = None,
) -> Row:
    mismatches, error_mismatches = cross_check(items, outcomes)
    return Row(
        key=key,
        label=label,
        programs=len(items),
        tests=sum(item.test_count for item in items),
        seconds=statistics.median(times),
        cores=cores,
        mismatches=mismatches,
        error_mismatches=error_mismatches,
        startup_s=startup_s,
        runs=times,
    )


def _engine_outcomes(results: list[list[ExecutionResult]]) -> list[list[baselines.Outcome]]:
    return [[(r.stdout, None if r.ok else (r.error or r.verdict.value)) for r in per] for per in results]


def _pool(workers: int, timeout_s: float, isolation: str, strict: bool) -> ExecutionPool:
    return ExecutionPool(
        workers=workers, limits=Limits(timeout_s=timeout_s), isolation=isolation, strict=strict
    )


@dataclass
class _Contender:
    key: str
    label: str
    run: Callable[[], list]
    outcomes: Callable[[list], list[list[baselines.Outcome]]]
    startup_s: float


def warm_rows(
    items: Sequence[WorkItem],
    workers: int,
    cores: int,
    timeout_s: float,
    repeats: int,
    isolation: str | None,
    floor: bool,
) -> list[Row]:
    """Rows a and d, timed in turns on warm workers so that drifting load on the machine hits both
    alike: d/a compares two fast rows, where a burst of load during one of them would decide it.
    ``isolation=None`` leaves the engine out (for when it cannot start)."""
    programs = [Program(item.source, inputs=list(item.inputs)) for item in items]
    jobs = [(item.source, item.inputs) for item in items]
    contenders: list[_Contender] = []
    with ExitStack() as stack:
        if isolation is not None:
            start = time.perf_counter()
            pool = stack.enter_context(_pool(workers, timeout_s, isolation, strict=False))
            contenders.append(
                _Contender(
                    "a",
                    f"engine, isolation={pool.isolation}",
                    lambda: pool.run_batch(programs),
                    _engine_outcomes,
                    time.perf_counter() - start,
                )
            )
        if floor:
            start = time.perf_counter()
            forkers = stack.enter_context(baselines.ForkFloor(workers))
            contenders.append(
                _Contender(
                    "d",
                    "floor: bare fork per program",
                    lambda: forkers.run(jobs, timeout_s),
                    list,
                    time.perf_counter() - start,
                )
            )
        times: dict[str, list[float]] = {c.key: [] for c in contenders}
        raw: dict[str, list] = {}
        for _ in range(repeats):
            for contender in contenders:
                start = time.perf_counter()
                raw[contender.key] = contender.run()
                times[contender.key].append(time.perf_counter() - start)
    return [
        _row(c.key, c.label, items, c.outcomes(raw[c.key]), times[c.key], cores, c.startup_s)
        for c in contenders
    ]


def strict_row(items: Sequence[WorkItem], workers: int, cores: int, timeout_s: float, isolation: str) -> Row:
    """Row a-strict, timed once: it is the slow, conservative mode, long enough to average noise."""
    programs = [Program(item.source, inputs=list(item.inputs)) for item in items]
    start = time.perf_counter()
    with _pool(workers, timeout_s, isolation, strict=True) as pool:
        startup_s = time.perf_counter() - start
        start = time.perf_counter()
        results = pool.run_batch(programs)
        seconds = time.perf_counter() - start
        label = f"engine, isolation={pool.isolation}, strict"
    return _row("a_strict", label, items, _engine_outcomes(results), [seconds], cores, startup_s)


def cold_rows(
    items: Sequence[WorkItem], b_items: Sequence[WorkItem], workers: int, cores: int, timeout_s: float
) -> list[Row]:
    """Rows c, c_lean and b, timed once each: they start processes per program or per test, so their runs
    are long. Rows c and c_lean run in ``workers`` separate processes, started before timing."""
    rows = []
    for key, label in (
        ("c", "LiveCodeBench harness per program"),
        ("c_lean", "Manager + Process, minimal per test"),
    ):
        jobs = [(item.source, item.inputs) for item in items]
        start = time.perf_counter()
        with baselines.HarnessProcesses(key, workers) as harness:
            startup_s = time.perf_counter() - start
            start = time.perf_counter()
            outcomes = harness.run(jobs, timeout_s)
            seconds = time.perf_counter() - start
        rows.append(_row(key, label, items, outcomes, [seconds], cores, startup_s))
    jobs = [(item.source, item.inputs) for item in b_items]
    start = time.perf_counter()
    outcomes = baselines.run_fresh_processes(jobs, workers, timeout_s)
    rows.append(_row("b", "fresh python3 per test", b_items, outcomes, [time.perf_counter() - start], cores))
    return rows


def interpreter_startup_s(samples: int = 5) -> float:
    """Median cost of ``python3 -c pass`` here: what row b pays per test before any work."""
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _print_table(rows: Sequence[Row]) -> None:
    header = (
        f"{'row':<9}{'configuration':<38}{'programs':>9}{'tests':>7}{'time s':>9}{'prog/s':>9}"
        f"{'tests/s':>10}{'tests/s/core':>14}{'mismatch':>10}{'err-mismatch':>14}{'start-up s':>12}"
    )
    _emit(header)
    _emit("-" * len(header))
    for row in rows:
        startup = f"{row.startup_s:.2f}" if row.startup_s is not None else "-"
        _emit(
            f"{row.key:<9}{row.label:<38}{row.programs:>9}{row.tests:>7}{row.seconds:>9.2f}"
            f"{row.programs_per_s:>9.1f}{row.tests_per_s:>10.1f}{row.tests_per_s_per_core:>14.1f}"
            f"{row.mismatches:>10}{row.error_mismatches:>14}{startup:>12}"
        )


RATIOS = (
    ("a/b", "a", "b"),
    ("a/c", "a", "c"),
    ("a/c_lean", "a", "c_lean"),
    ("d/a", "d", "a"),
    ("a_strict/b", "a_strict", "b"),
    ("a_strict/c", "a_strict", "c"),
    ("d/a_strict", "d", "a_strict"),
)


def ratios(rows: Sequence[Row]) -> dict[str, float]:
    """Throughput ratios (tests/s over tests/s), so rows measured on different subsets compare."""
    speed = {row.key: row.tests_per_s for row in rows}
    return {
        name: speed[top] / speed[bottom] for name, top, bottom in RATIOS if top in speed and bottom in speed
    }


def targets(found: dict[str, float]) -> dict[str, dict]:
    checks = {"a/c": (">=", TARGET_A_OVER_C), "d/a": ("<=", TARGET_D_OVER_A)}
    report = {}
    for name, (op, goal) in checks.items():
        if name in found:
            value = found[name]
            report[name] = {
                "value": value,
                "target": f"{op} {goal}",
                "met": value >= goal if op == ">=" else value <= goal,
            }
    return report


def _soak(items: Sequence[WorkItem], args: argparse.Namespace) -> int:
    _emit(f"soak: {args.soak} programs of {args.tests} tests on {args.workers} workers")
    report = run_soak([(item.source, item.inputs) for item in items], args.soak, args.workers, emit=_emit)
    rates = report.chunk_rates
    _emit(
        f"{report.programs} programs, {report.tests} tests in {report.seconds:.1f} s "
        f"({report.programs / report.seconds:.1f} programs/s; "
        f"first chunk {rates[0]:.1f}, last {rates[-1]:.1f})"
    )
    _emit(
        f"pool memory: {report.rss_start_bytes / 2**20:.1f} MiB at start, "
        f"{report.rss_end_bytes / 2**20:.1f} MiB at end"
    )
    _emit(f"processes left running as sandbox users: {report.leftover_processes}")
    return 0 if report.leftover_processes == 0 else 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nemo-code-rl bench",
        description="Time the execution engine against fresh processes, the APPS/LiveCodeBench "
        "harness and a bare-fork floor, on one generated workload.",
    )
    parser.add_argument(
        "--programs", type=int, default=None, help="programs in the workload (default 200; 256 with --mix)"
    )
    parser.add_argument("--tests", type=int, default=10, help="tests per program (default 10)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="workers for every row")
    parser.add_argument("--seed", type=int, default=0, help="workload seed (default 0)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--skip-baselines", action="store_true", help="time the engine rows only")
    parser.add_argument(
        "--b-programs",
        type=int,
        default=50,
        help="programs row b runs, spread evenly over the workload (default 50; it starts one "
        "interpreter per test, so the full workload would dominate the run time)",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs of rows a and d, median reported (default 3)"
    )
    parser.add_argument(
        "--isolation",
        choices=USER_LEVELS,
        default=FULL,
        help="engine isolation (default full; 'namespaces' where no cgroup can be made, 'none' for hosts "
        "that refuse namespaces)",
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="per-test time limit in seconds (default 5; 2 with --mix)"
    )
    parser.add_argument(
        "--mix",
        action="store_true",
        help="instead of the table: the realistic RL batch (70%% correct, 10%% wrong, 10%% endless loops, "
        "5%% slow, 5%% crashing) judged by the verifier with fixed and calibrated limits, with and without "
        "early exit, against the Manager + Process harness with the same per-test limit",
    )
    parser.add_argument(
        "--mix-slow",
        type=float,
        default=0.3,
        help="CPU seconds per test of the mix's slow but correct programs (default 0.3)",
    )
    parser.add_argument(
        "--backends",
        nargs="+",
        choices=BACKEND_KEYS,
        default=[],
        help="also time row a on these backends: docker (worker containers; image from "
        "NEMO_CODE_RL_DOCKER_IMAGE) and ray (a Ray pool on RAY_ADDRESS or a local cluster)",
    )
    parser.add_argument(
        "--cpp",
        type=int,
        default=0,
        metavar="N",
        help="also time N distinct C++ programs of --tests tests: compiled and run by the engine (cold "
        "cache, then cached), against a fresh g++ and a process per test (rows a_cpp, a_cpp2, b_cpp)",
    )
    parser.add_argument(
        "--soak",
        type=int,
        default=0,
        metavar="N",
        help="instead of the table: run N programs through one pool and report throughput over time, "
        "pool memory at start and end, and leftover processes (a long run; not for CI)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 0 when every row agrees with the expected answers (row c, which reproduces
    the LiveCodeBench harness's own failures, excepted), 1 when one does not, 2 when the engine
    could not run (the baselines are still measured and printed)."""
    args = _parser().parse_args(argv)
    if args.programs is None:
        args.programs = 256 if args.mix else 200
    if args.timeout is None:
        args.timeout = 2.0 if args.mix else 5.0
    if args.mix:
        return mix.main(args)
    if min(args.programs, args.tests, args.workers, args.b_programs, args.repeats) < 1:
        _parser().error("--programs, --tests, --workers, --b-programs and --repeats must be at least 1")
    cores = min(args.workers, len(os.sched_getaffinity(0)))
    items = build_workload(args.programs, args.tests, args.seed)
    if args.soak:
        return _soak(items, args)
    b_items = spread_subset(items, args.b_programs)
    labels = {label: sum(item.label == label for item in items) for label in ("correct", "wrong", "raising")}
    _emit(
        f"workload: {len(items)} programs x {args.tests} tests (seed {args.seed}; "
        + ", ".join(f"{count} {label}" for label, count in labels.items())
        + f"); {args.workers} workers on {cores} usable cores; Python {sys.version.split()[0]}"
    )

    rows: list[Row] = []
    engine_error = None
    with_floor = not args.skip_baselines
    try:
        rows += warm_rows(items, args.workers, cores, args.timeout, args.repeats, args.isolation, with_floor)
        rows.append(strict_row(items, args.workers, cores, args.timeout, args.isolation))
    except (IsolationUnavailable, RuntimeError, OSError) as exc:  # still measure the baselines
        engine_error = f"{type(exc).__name__}: {exc}"
        _emit(f"engine rows not measured: {engine_error}")
        if with_floor and not any(row.key == "d" for row in rows):
            rows += warm_rows(items, args.workers, cores, args.timeout, args.repeats, None, floor=True)
    programs = [Program(item.source, inputs=list(item.inputs)) for item in items]
    for run in measure_backends(programs, args.backends, args.workers, args.timeout, args.repeats, _emit):
        rows.append(
            _row(run.key, run.label, items, _engine_outcomes(run.results), run.times, cores, run.startup_s)
        )
    if args.cpp:
        cpp = measure_cpp(args.cpp, args.tests, args.workers, args.timeout, args.isolation, args.seed, _emit)
        rows += [Row(**fields, cores=cores) for fields in cpp]  # b_cpp too: the C++ rows' own baseline
    startup = None
    if not args.skip_baselines:
        startup = interpreter_startup_s()
        rows += cold_rows(items, b_items, args.workers, cores, args.timeout)
    rows.sort(key=lambda row: ROW_ORDER.index(row.key))

    _emit()
    _print_table(rows)
    _emit()
    _emit(f"time s: batch only; rows a and d: median of {args.repeats} runs taken in turns, others: one run.")
    _emit("tests/s/core: tests/s divided by min(workers, usable cores).")
    _emit("mismatch: correct-program tests whose output or error disagrees with the expected answer;")
    _emit("err-mismatch: raising-program tests that did not raise (or raised something else) as built.")
    if any(row.key == "c" for row in rows):
        _emit(
            "row c mismatches are that harness's own: its prelude's `from builtins import *` binds the real "
            "open() before the patch, so open(0).read() programs fail (fast, which flatters row c)."
        )
    if startup is not None:
        _emit(
            f"row b ran {len(b_items)} of {len(items)} programs, spread evenly so the mix is kept; "
            f"`python3 -c pass` takes {startup * 1000:.0f} ms here."
        )

    found = ratios(rows)
    checks = targets(found)
    if found:
        _emit()
        _emit(
            "throughput ratios (tests/s): "
            + "  ".join(f"{name}={value:.2f}" for name, value in found.items())
        )
        for name, check in checks.items():
            verdict = "met" if check["met"] else "NOT met"
            _emit(f"target {name} {check['target']}: {check['value']:.2f} -> {verdict}")

    if args.json:
        report = {
            "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "cores": cores,
            "python": sys.version.split()[0],
            "interpreter_startup_s": startup,
            "engine_error": engine_error,
            "rows": [row.to_dict() for row in rows],
            "ratios": found,
            "targets": checks,
        }
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        _emit(f"figures written to {args.json}")

    if engine_error is not None:
        return 2
    faithful = [row for row in rows if row.key != "c"]  # row c reproduces that harness's own mistakes
    return 1 if any(row.mismatches or row.error_mismatches for row in faithful) else 0
