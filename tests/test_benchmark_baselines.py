"""The benchmark's workload and baselines: a throughput figure is only meaningful if every row
computes the right answers on a fixed workload, and leaves no processes behind."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from nemo_code_rl.benchmarking import baselines, engine_bench
from nemo_code_rl.benchmarking.workload import (
    LABELS,
    RAISING_POSITIONS,
    STYLES,
    WorkItem,
    build_workload,
    outputs_match,
    spread_subset,
)

STYLE_MARKERS = {
    "input": "input()",
    "readline": "sys.stdin.readline()",
    "for_line": "for line in sys.stdin",
    "buffer": "sys.stdin.buffer.read()",
    "open0": "open(0).read()",
}


def _child_pids() -> set[int]:
    """Live children of this process, read from /proc so nothing is missed or mocked."""
    me = str(os.getpid())
    children = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[1] == me and fields[0] != "Z":
            children.add(int(entry))
    return children


@pytest.fixture(scope="module")
def workload() -> list[WorkItem]:
    return build_workload()


@pytest.fixture(scope="module")
def small_slice(workload: list[WorkItem]) -> list[WorkItem]:
    """One correct program per stdin style, one wrong, one raising per exception kind; 3 tests each."""
    picked: dict[str, WorkItem] = {}
    for item in workload:
        if item.label == "correct":
            picked.setdefault(f"correct/{item.style}", item)
        elif item.label == "wrong":
            picked.setdefault("wrong", item)
        else:
            picked.setdefault(f"raising/{item.raises[min(RAISING_POSITIONS)]}", item)
    assert len(picked) == len(STYLES) + 1 + 3
    return [
        replace(item, inputs=item.inputs[:3], expected=item.expected[:3], raises=item.raises[:3])
        for item in picked.values()
    ]


def test_workload_is_deterministic_and_sized(workload: list[WorkItem]) -> None:
    assert build_workload() == workload
    assert build_workload(seed=1) != workload
    assert len(workload) >= 200
    assert len({item.name for item in workload}) == len(workload)
    for item in workload:
        assert len(item.inputs) == len(item.expected) == len(item.raises) == 10
        assert STYLE_MARKERS[item.style] in item.source


def test_workload_mixes_labels_and_styles(workload: list[WorkItem]) -> None:
    for label in LABELS:
        in_label = [item for item in workload if item.label == label]
        assert len(in_label) >= 20
        assert {item.style for item in in_label} == set(STYLES)
    for item in workload:
        positions = {i for i, error in enumerate(item.raises) if error is not None}
        assert positions == (RAISING_POSITIONS if item.label == "raising" else set())
    kinds = {error for item in workload for error in item.raises if error}
    assert kinds == {"ZeroDivisionError", "IndexError", "KeyError"}


def test_spread_subset_keeps_the_mix(workload: list[WorkItem]) -> None:
    subset = spread_subset(workload, 50)
    assert len(subset) == 50
    assert {item.label for item in subset} == set(LABELS)
    assert {item.style for item in subset} == set(STYLES)
    assert spread_subset(workload, 500) == workload


def _assert_correct(items: list[WorkItem], outcomes: list[list[baselines.Outcome]]) -> None:
    assert len(outcomes) == len(items)
    for item, results in zip(items, outcomes, strict=True):
        assert len(results) == len(item.inputs), item.name
        for (stdout, error), expected, raises in zip(results, item.expected, item.raises, strict=True):
            if raises is not None:
                assert error is not None and error.startswith(raises + ":"), (item.name, error)
            elif item.label == "wrong":
                assert error is None and not outputs_match(stdout, expected), (item.name, stdout)
            else:
                assert error is None and outputs_match(stdout, expected), (item.name, stdout, error)
    assert engine_bench.cross_check(items, outcomes) == (0, 0)


def _jobs(items: list[WorkItem]) -> list[baselines.Job]:
    return [(item.source, item.inputs) for item in items]


def test_fresh_processes_baseline(small_slice: list[WorkItem]) -> None:
    before = _child_pids()
    _assert_correct(small_slice, baselines.run_fresh_processes(_jobs(small_slice), workers=2, timeout_s=30))
    assert _child_pids() <= before


def test_manager_processes_baseline(small_slice: list[WorkItem]) -> None:
    before = _child_pids()
    _assert_correct(small_slice, baselines.run_manager_processes(_jobs(small_slice), workers=2, timeout_s=30))
    assert _child_pids() <= before


def test_livecodebench_harness_baseline(small_slice: list[WorkItem]) -> None:
    before = _child_pids()
    readable = [item for item in small_slice if item.style != "open0"]
    _assert_correct(readable, baselines.run_lcb_processes(_jobs(readable), workers=2, timeout_s=30))
    broken = [item for item in small_slice if item.style == "open0" and item.label == "correct"]
    outcomes = baselines.run_lcb_processes(_jobs(broken), workers=1, timeout_s=30)
    assert broken and all(error is not None for result in outcomes for _, error in result)
    assert _child_pids() <= before


@pytest.mark.parametrize("kind", ["c", "c_lean"])
def test_harness_rows_run_in_separate_processes(kind: str) -> None:
    """Rows c and c_lean are separate processes (one per worker), not threads of this one: each
    program's process is the child of a harness process, never of the benchmark's."""
    source = "import os\nprint(os.getppid())\n"
    with baselines.HarnessProcesses(kind, workers=2) as harness:
        harnesses = _child_pids()
        outcomes = harness.run([(source, [""])] * 4, timeout_s=30)
    parents = {int(stdout) for ((stdout, error),) in outcomes if error is None}
    assert len(parents) >= 1 and all(error is None for ((_, error),) in outcomes)
    assert os.getpid() not in parents
    assert parents <= harnesses


def test_fork_floor_baseline(small_slice: list[WorkItem]) -> None:
    before = _child_pids()
    with baselines.ForkFloor(workers=2) as floor:
        assert len(_child_pids() - before) == 2
        _assert_correct(small_slice, floor.run(_jobs(small_slice), timeout_s=30))
        _assert_correct(small_slice, floor.run(_jobs(small_slice), timeout_s=30))
    assert _child_pids() <= before


def test_fork_floor_survives_programs_that_close_stdio() -> None:
    source = "import os, sys\nprint(input())\nsys.stdout.flush()\nos.close(0)\nos.close(1)\n"
    with baselines.ForkFloor(workers=1) as floor:
        assert floor.run([(source, ["a\n", "b\n"])]) == [[("a\n", None), ("b\n", None)]]


def test_split_fork_floor_baseline(small_slice: list[WorkItem]) -> None:
    """The split floor gets every answer right, and its programs are forked by a process other
    than the one that holds their jobs (the worker this process started)."""
    before = _child_pids()
    source = "import os\nprint(os.getppid())\n"
    with baselines.SplitForkFloor(workers=2) as floor:
        workers = _child_pids() - before
        assert len(workers) == 2
        _assert_correct(small_slice, floor.run(_jobs(small_slice), timeout_s=30))
        outcomes = floor.run([(source, [""])] * 4, timeout_s=30)
        closing = "import os, sys\nprint(input())\nsys.stdout.flush()\nos.close(0)\nos.close(1)\n"
        assert floor.run([(closing, ["a\n", "b\n"])]) == [[("a\n", None), ("b\n", None)]]
    assert all(error is None for ((_, error),) in outcomes)
    forkers = {int(stdout) for ((stdout, _),) in outcomes}
    assert forkers and not forkers & (workers | {os.getpid()})
    assert _child_pids() <= before


def test_fork_floor_needs_starting() -> None:
    with pytest.raises(RuntimeError, match="context manager"):
        baselines.ForkFloor(workers=1).run([("print(1)", [""])])


def test_benchmark_main_writes_consistent_figures(tmp_path: Path) -> None:
    before = _child_pids()
    out = tmp_path / "figures.json"
    argv = ["--programs", "10", "--tests", "3", "--workers", "2", "--b-programs", "2", "--repeats", "1"]
    assert engine_bench.main([*argv, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    rows = {row["key"]: row for row in report["rows"]}
    assert set(rows) == {"a", "a_strict", "b", "c", "c_lean", "d"}
    assert rows["b"]["tests"] == 6 and rows["c"]["tests"] == 30
    assert all(row["mismatches"] == 0 and row["error_mismatches"] == 0 for row in rows.values())
    assert report["ratios"]["a/c"] == pytest.approx(rows["a"]["tests_per_s"] / rows["c"]["tests_per_s"])
    assert report["ratios"]["d/a"] == pytest.approx(rows["d"]["tests_per_s"] / rows["a"]["tests_per_s"])
    assert set(report["targets"]) == {"a/c", "d/a"}
    assert _child_pids() <= before


def test_soak_reports_memory_and_leftovers() -> None:
    from nemo_code_rl.benchmarking.soak import run_soak

    items = build_workload(20, 2, seed=1)
    lines: list[str] = []
    report = run_soak(
        [(item.source, item.inputs) for item in items], 60, workers=2, chunk=25, emit=lines.append
    )
    assert (report.programs, report.tests) == (60, 120)
    assert len(report.chunk_rates) == 3 and all(rate > 0 for rate in report.chunk_rates)
    assert report.rss_start_bytes > 0 and report.rss_end_bytes > 0
    assert report.leftover_processes == 0
    assert len(lines) == 3


def test_realistic_mix_rows_agree_on_every_program(tmp_path: Path) -> None:
    """``bench --mix`` (scaled down): every row, the Manager + Process harness included, passes
    exactly the programs built to pass, with and without early exit, fixed or calibrated limits;
    after a timeout, ``skip`` records the program's other test ``not_run`` instead of running it."""
    from nemo_code_rl.benchmarking.mix import PASSING, build_mix

    labels = [item.label for item in build_mix(20, 2, slow_s=0.02)]
    assert {label: labels.count(label) for label in set(labels)} == {
        "correct": 14, "wrong": 2, "loop": 2, "slow": 1, "crash": 1,
    }  # fmt: skip
    before = _child_pids()
    out = tmp_path / "mix.json"
    argv = [
        "--mix",
        "--programs",
        "20",
        "--tests",
        "2",
        "--timeout",
        "2",
        "--workers",
        "2",
        "--mix-slow",
        "0.02",
    ]
    assert engine_bench.main([*argv, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    rows = {row["key"]: row for row in report["rows"]}
    assert set(rows) == {
        "fixed",
        "fixed_skip",
        "calibrated",
        "fixed_ee",
        "calibrated_ee",
        "harness",
        "harness_ee",
    }
    assert report["programs_disagreeing_with_design"] == {}
    design = sum(label in PASSING for label in labels) / len(labels)
    assert {row["pass_rate"] for row in rows.values()} == {design} == {15 / 20}
    assert rows["fixed"]["verdicts"]["timeout"] == rows["harness"]["verdicts"]["timeout"] == 2 * 2
    assert rows["fixed_skip"]["verdicts"]["timeout"] == rows["fixed_skip"]["verdicts"]["not_run"] == 2
    assert set(report["targets"]) == {"fixed_skip/harness", "fixed_ee/harness_ee"}
    assert _child_pids() <= before
