"""Where ``score``'s time goes against the floor: its phases on a timeline, trees in turns.

Each round times the bare-fork floor and the verifier alone (a warm pool, one ``verify_batch``)
on ``bench``'s workload, then runs ``nemo-code-rl score`` of each tree, in rotating order, in a
fresh interpreter, then the floor again. Each run is compared with the mean of its round's two
floors: the hosts' speed moves from minute to minute (in session 28 the floor alone took from 5.4
to 8.1 s on 20,000 programs). Each ``score`` runs with its phases marked: the pool's start,
reading the problems, the verifier's batch and the engine's within it, the pool's close, the
rewrite in order and the summary, each with its CPU, and every garbage collection and the peak
RSS. Every tree must give the same verdicts for every row. Session 22-26's probes grew into this;
it fails, naming the function, where a phase's function has moved, rather than leave a phase out.

    python benchmarks/score_phases.py --workers 16 --programs 20000 --rounds 3 \\
        --tree before=/tmp/before --tree now=/tmp/now --json phases.json

A tree is a folder holding the ``nemo_code_rl`` package (a checkout, or ``pip install --target``);
without ``--tree``, the package this interpreter imports. The floor and the verifier alone run
with the last tree.
"""

from __future__ import annotations

import argparse
import gc
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

# The phases, by the function that spans each: (module, attribute path, label).
PHASES = (
    ("nemo_code_rl.engine.pool", "ExecutionPool.__init__", "pool_start"),
    ("nemo_code_rl.engine.pool", "WorkerPool.run_batch", "run_batch"),
    ("nemo_code_rl.engine.pool", "WorkerPool.close", "pool_close"),
    ("nemo_code_rl.unit_tests.problems", "read_problems", "read_problems"),
    ("nemo_code_rl.results_files", "read_completions", "read_completions"),
    ("nemo_code_rl.unit_tests.verification", "Verifier.verify_batch", "verify"),
    ("nemo_code_rl.results_files", "ResultsFile.finish", "rewrite"),
    ("nemo_code_rl.unit_tests.scoring", "summarize", "summarize"),
)
SHOWN = ("read_problems", "verify", "run_batch", "pool_close", "rewrite", "summarize")


def _timeline(launch: float, argv: list[str]) -> None:
    """Run ``nemo-code-rl`` with ``argv`` in this interpreter, its phases marked; print them as
    one JSON line of seconds since ``launch`` (when the caller started this interpreter)."""
    marks: dict[str, Any] = {"interpreter": time.time() - launch}
    collections: dict[str, Any] = {"count": [0, 0, 0], "seconds": [0.0, 0.0, 0.0], "longest": 0.0}
    started = [0.0]

    def on_collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        took = time.perf_counter() - started[0]
        collections["count"][info["generation"]] += 1
        collections["seconds"][info["generation"]] += took
        collections["longest"] = max(collections["longest"], took)

    gc.callbacks.append(on_collection)

    def wrapped(function: Callable[..., Any], label: str) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            marks.setdefault(f"{label}_begin", time.time() - launch)
            marks.setdefault(f"{label}_cpu_begin", time.process_time())
            try:
                return function(*args, **kwargs)
            finally:
                marks.setdefault(f"{label}_end", time.time() - launch)
                marks.setdefault(f"{label}_cpu_end", time.process_time())

        return run

    def patch(module: ModuleType) -> None:
        for name, path, label in PHASES:
            if name != module.__name__:
                continue
            owner_path, _, attribute = path.rpartition(".")
            owner: Any = module
            for part in filter(None, owner_path.split(".")):
                owner = getattr(owner, part, None)
            if owner is None or not hasattr(owner, attribute):
                raise SystemExit(f"score_phases: {name}.{path} is gone: update PHASES")
            setattr(owner, attribute, wrapped(getattr(owner, attribute), label))

    # Patched as each is first executed, before any module imports a function of it by name.
    wanted = {name for name, _, _ in PHASES}

    class Hook(importlib.abc.MetaPathFinder):
        """Patches each module as it is first imported (its import stays on the timeline)."""

        def find_spec(
            self, name: str, path: Any, target: Any = None
        ) -> importlib.machinery.ModuleSpec | None:
            if name not in wanted:
                return None
            wanted.discard(name)
            sys.meta_path.remove(self)
            try:
                spec = importlib.util.find_spec(name)
            finally:
                sys.meta_path.insert(0, self)
            assert spec is not None and spec.loader is not None
            execute = spec.loader.exec_module

            def exec_module(module: ModuleType) -> None:
                execute(module)
                marks.setdefault(name.rsplit(".", 1)[1] + "_imported", time.time() - launch)
                patch(module)

            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
            return spec

    sys.meta_path.insert(0, Hook())
    from nemo_code_rl import cli

    code = cli.main(argv)
    marks["main_returned"] = time.time() - launch
    times = os.times()
    marks["cpu"] = times.user + times.system
    marks["gc"] = collections
    marks["max_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in marks.items()}), flush=True)
    raise SystemExit(code)


def _environment(tree: str | None) -> dict[str, str]:
    if tree is None:
        return dict(os.environ)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tree, os.environ.get("PYTHONPATH")]))}


def _score(tree: str | None, folder: Path, workers: int, isolation: str, name: str) -> dict[str, Any]:
    launch = time.time()
    command = [
        sys.executable, __file__, "--timeline", str(launch), "--", "score",
        str(folder / "problems.jsonl"), str(folder / "completions.jsonl"), "--workers", str(workers),
        "--isolation", isolation, "--quiet", "--no-calibrate", "--timeout", "5",
        "-o", str(folder / f"{name}.results.jsonl"),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env=_environment(tree), cwd=folder)
    if done.returncode != 0:
        raise SystemExit(
            f"score_phases: score of tree {name} failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    marks = json.loads(done.stdout.strip().splitlines()[-1])
    marks["process_end"] = round(time.time() - launch, 4)
    return marks


def _verdicts(folder: Path, name: str) -> list[tuple[Any, ...]]:
    rows = [json.loads(line) for line in (folder / f"{name}.results.jsonl").read_text().splitlines()]
    return [(r["index"], r["status"], r["passed"], [t["verdict"] for t in r["tests"]]) for r in rows]


def _in_tree(tree: str | None, step: str, *arguments: object) -> str:
    """Run ``step`` (``_STEPS``) in a fresh interpreter of ``tree``; what it printed."""
    command = [sys.executable, __file__, "--step", step, *map(str, arguments)]
    return subprocess.run(command, capture_output=True, text=True, check=True, env=_environment(tree)).stdout


def _write_workload(programs: str, folder: str) -> None:
    from nemo_code_rl.benchmarking.workload import build_workload, write_score_files

    write_score_files(build_workload(int(programs), 10), Path(folder))


def _floor(programs: str, workers: str) -> None:
    """The bare-fork floor's seconds."""
    from nemo_code_rl.benchmarking.baselines import ForkFloor
    from nemo_code_rl.benchmarking.workload import build_workload

    jobs = [(item.source, item.inputs) for item in build_workload(int(programs), 10)]
    with ForkFloor(int(workers)) as floor:
        start = time.perf_counter()
        floor.run(jobs, 5.0)
        print(time.perf_counter() - start)


def _verifier_alone(programs: str, workers: str, isolation: str) -> None:
    """The seconds of one ``verify_batch`` on a warm pool, as ``scaling.py`` times the verifier."""
    from nemo_code_rl.benchmarking.workload import build_workload
    from nemo_code_rl.engine import ExecutionPool, Limits, Program
    from nemo_code_rl.unit_tests.problems import parse_problem
    from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

    items = build_workload(int(programs), 10)
    pairs = [(parse_problem(item.problem_row()), item.completion) for item in items]
    with ExecutionPool(workers=int(workers), limits=Limits(timeout_s=5.0), isolation=isolation) as pool:
        pool.run_batch([Program("pass", [""]) for _ in range(4 * pool.size)])  # every worker started
        verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
        start = time.perf_counter()
        verifier.verify_batch(pairs)
        print(time.perf_counter() - start)


# What runs in a tree's own interpreter (the driver never imports the package it times).
_STEPS: dict[str, Callable[..., None]] = {
    "workload": _write_workload,
    "floor": _floor,
    "verifier_alone": _verifier_alone,
}


def _step_seconds(tree: str | None, step: str, *arguments: object) -> float:
    """The seconds a timing step (the floor, the verifier alone) printed last, run in ``tree``."""
    return float(_in_tree(tree, step, *arguments).split()[-1])


def _round_floor(row: dict[str, Any]) -> float:
    """What a round's runs are compared with: the mean of its floor before and after them."""
    return (row["floor"] + row["floor_after"]) / 2


def _line(row: dict[str, Any], names: list[str]) -> str:
    floor = _round_floor(row)
    parts = [f"{row['programs']} programs, round {row['round']}: floor {row['floor']:.2f} s before, "
             f"{row['floor_after']:.2f} s after, verifier alone {row['verifier']:.2f} s"]  # fmt: skip
    for name in names:
        marks = row["trees"][name]
        spans = ", ".join(
            f"{label} {marks[label + '_end'] - marks[label + '_begin']:.2f}"
            for label in SHOWN
            if label + "_begin" in marks
        )
        parts.append(
            f"  {name}: {marks['process_end']:.2f} s ({marks['process_end'] / floor:.2f}x the floor); "
            f"batch from {marks['run_batch_begin']:.2f} s; {spans}; CPU {marks['cpu']:.2f} s"
        )
    parts.append(f"  same verdicts in every tree: {row['same_rows']}")
    return "\n".join(parts)


def main() -> int:
    if sys.argv[1:2] == ["--timeline"]:
        _timeline(float(sys.argv[2]), sys.argv[4:])
    if sys.argv[1:2] == ["--step"]:
        _STEPS[sys.argv[2]](*sys.argv[3:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--programs", type=int, nargs="+", default=[20000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--isolation", default="namespaces", help="the workers' (default: %(default)s)")
    parser.add_argument("--tree", action="append", default=[], help="NAME=FOLDER (repeatable)")
    parser.add_argument("--json", type=Path, help="write every round's marks here")
    args = parser.parse_args()
    trees: dict[str, str | None] = dict(tree.split("=", 1) for tree in args.tree) or {"installed": None}
    names = list(trees)
    report = []
    with tempfile.TemporaryDirectory(prefix="score-phases-") as scratch:
        folder = Path(scratch)
        for programs in args.programs:
            last = trees[names[-1]]
            _in_tree(last, "workload", programs, folder)
            for round_ in range(args.rounds):
                floor = _step_seconds(last, "floor", programs, args.workers)
                alone = _step_seconds(last, "verifier_alone", programs, args.workers, args.isolation)
                order = names[round_ % len(names) :] + names[: round_ % len(names)]
                row: dict[str, Any] = {"programs": programs, "round": round_, "workers": args.workers}
                row.update(floor=round(floor, 4), verifier=round(alone, 4))
                row["trees"] = {
                    name: _score(trees[name], folder, args.workers, args.isolation, name) for name in order
                }
                row["floor_after"] = round(_step_seconds(last, "floor", programs, args.workers), 4)
                first = _verdicts(folder, names[0])
                row["same_rows"] = all(_verdicts(folder, name) == first for name in names[1:])
                report.append(row)
                print(_line(row, names), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0 if all(row["same_rows"] for row in report) else 1


if __name__ == "__main__":
    raise SystemExit(main())
