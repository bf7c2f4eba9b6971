"""``nemo-code-rl bench --mix``: a realistic RL batch, where time limits decide the step time.

The batch (default 256 programs x 10 stdin tests, 2 s per test) is what a policy emits early in
training: 70% correct, 10% wrong, 10% endless loops, 5% correct but slow (0.3 s of CPU per
test), 5% crashing. It is judged by the verifier (what ``score`` and the environments run) with
fixed limits, calibrated limits, with and without early exit, and by the Manager + Process
harness (row c_lean's process model judging in the program's process, a plain ``signal.alarm``
per test, in separate processes) with the same per-test limits. Every row's pass/fail must be
the same for every program, and the same as the workload's design.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from nemo_code_rl.benchmarking import baselines
from nemo_code_rl.outcomes import Verdict
from nemo_code_rl.unit_tests.problems import Problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

# One cycle of twenty: 14 correct, 2 wrong, 2 loop, 1 slow, 1 crash (70/10/10/5/5), interleaved so
# any stretch of the batch keeps the mix.
_CYCLE = (
    "correct", "wrong", "correct", "loop", "correct", "correct", "slow", "correct", "correct", "crash",
    "correct", "wrong", "correct", "loop", "correct", "correct", "correct", "correct", "correct", "correct",
)  # fmt: skip
PASSING = frozenset({"correct", "slow"})
_READ = "import sys\ndata = sys.stdin.read().split()\nn = int(data[0])\na = list(map(int, data[1:n + 1]))\n"
TARGET_NO_EARLY_EXIT = 0.4
TARGET_EARLY_EXIT = 0.6


@dataclass(frozen=True)
class MixItem:
    """One program of the batch: what it was built to be, its problem and its answer."""

    label: str
    problem: Problem
    completion: str

    @property
    def should_pass(self) -> bool:
        return self.label in PASSING


def _source(label: str, factor: int, slow_s: float) -> str:
    answer = f"print(sum(a) * {factor}{' + 1' if label == 'wrong' else ''})\n"
    if label == "loop":
        return _READ + "while True:\n    pass\n"
    if label == "crash":
        return _READ + "print(a[n])\n"
    if label == "slow":
        busy = (
            "import time\nstart = time.process_time()\n"
            f"while time.process_time() - start < {slow_s!r}:\n    pass\n"
        )
        return _READ + busy + answer
    return _READ + answer


def build_mix(programs: int = 256, tests: int = 10, problems: int = 32, slow_s: float = 0.3) -> list[MixItem]:
    """The batch: ``programs`` answers spread over ``problems`` problems (as GRPO samples several
    answers per problem), each problem with a reference solution and ``tests`` stdin tests."""
    if min(programs, tests, problems) < 1:
        raise ValueError(f"need programs, tests and problems >= 1, got {programs}, {tests}, {problems}")
    made = []
    for index in range(problems):
        factor = index + 2
        inputs = [f"{t + 3}\n{' '.join(str(t * 7 + k - 5) for k in range(t + 3))}\n" for t in range(tests)]
        outputs = [f"{sum(t * 7 + k - 5 for k in range(t + 3)) * factor}\n" for t in range(tests)]
        made.append(
            Problem(
                id=f"mix-{index:03d}",
                prompt=f"Print the sum of the numbers times {factor}.",
                messages=[{"role": "user", "content": "sum"}],
                kind="stdio",
                source_format="generated",
                inputs=inputs,
                outputs=outputs,
                reference_solution=_source("correct", factor, slow_s),
            )
        )
    items = []
    for index in range(programs):
        label = _CYCLE[index % len(_CYCLE)]
        problem = made[index % problems]
        code = _source(label, int(problem.id.rsplit("-", 1)[1]) + 2, slow_s)
        items.append(MixItem(label, problem, f"```python\n{code}```"))
    return items


@dataclass
class MixRow:
    """One timed way of judging the batch. ``passed`` is each program's pass/fail; ``fraction``
    the mean share of tests passed (what a ``fraction`` reward pays)."""

    key: str
    label: str
    seconds: float
    passed: list[bool]
    fraction: float
    setup_s: float = 0.0
    verdicts: dict[str, int] = field(default_factory=dict)

    @property
    def pass_rate(self) -> float:
        return sum(self.passed) / len(self.passed)

    def to_dict(self) -> dict:
        data = asdict(self)
        data.pop("passed")
        data["pass_rate"] = self.pass_rate
        return data


def _verifier_row(
    key: str, label: str, items: Sequence[MixItem], verifier: Verifier, config: VerifierConfig
) -> MixRow:
    verifier.config = config
    start = time.perf_counter()
    setup_s = 0.0
    if config.calibrate:  # measured apart: it is paid once per problem, not once per step
        verifier.calibrate_time_limits(
            sorted({id(i.problem): i.problem for i in items}.values(), key=lambda p: p.id)
        )
        setup_s = time.perf_counter() - start
        start = time.perf_counter()
    checked = verifier.verify_batch([(item.problem, item.completion) for item in items])
    seconds = time.perf_counter() - start
    verdicts: dict[str, int] = {}
    for verification in checked:
        for test in verification.tests:
            verdicts[test.verdict] = verdicts.get(test.verdict, 0) + 1
    return MixRow(
        key,
        label,
        seconds,
        [bool(v.passed) for v in checked],
        sum(v.n_passed / v.n_total for v in checked) / len(checked),
        setup_s,
        dict(sorted(verdicts.items())),
    )


def _harness_row(
    key: str,
    label: str,
    items: Sequence[MixItem],
    harness: baselines.HarnessProcesses,
    limit_s: float,
    early: bool,
) -> MixRow:
    jobs = [(_code(item), item.problem.inputs) for item in items]
    start = time.perf_counter()
    judged = harness.judge(jobs, [item.problem.outputs for item in items], limit_s, early)
    seconds = time.perf_counter() - start
    verdicts: dict[str, int] = {}
    for per_test in judged:
        for verdict in per_test:
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
    passed = [all(v == Verdict.PASSED for v in per_test) for per_test in judged]
    fraction = sum(sum(v == Verdict.PASSED for v in t) / len(t) for t in judged) / len(judged)
    return MixRow(key, label, seconds, passed, fraction, 0.0, dict(sorted(verdicts.items())))


def _code(item: MixItem) -> str:
    return item.completion.removeprefix("```python\n").removesuffix("```")


def measure_mix(
    items: Sequence[MixItem], workers: int, limit_s: float, isolation: str, harness: bool = True
) -> list[MixRow]:
    """Every row of the mix table, on one pool (the verifier's) and one set of harness processes."""
    fixed = VerifierConfig(timeout_s=limit_s, calibrate=False, after_timeout="run")
    skip = replace(fixed, after_timeout="skip")
    calibrated = replace(skip, calibrate=True)
    rows = []
    with Verifier(fixed, workers=workers, isolation=isolation) as verifier:
        for key, label, config in (
            ("fixed", "verifier, fixed limit, every test run", fixed),
            ("fixed_skip", "verifier, fixed limit, after a timeout: skip", skip),
            ("calibrated", "verifier, calibrated limits, skip (default)", calibrated),
            ("fixed_ee", "verifier, fixed limit, early exit", replace(fixed, early_exit=True)),
            ("calibrated_ee", "verifier, calibrated, early exit", replace(calibrated, early_exit=True)),
        ):  # fmt: skip
            rows.append(_verifier_row(key, label, items, verifier, config))
    if harness:
        start = time.perf_counter()
        with baselines.HarnessProcesses("judge", workers) as processes:
            setup_s = time.perf_counter() - start
            for key, label, early in (
                ("harness", "Manager + Process, alarm per test", False),
                ("harness_ee", "Manager + Process, alarm, early exit", True),
            ):
                row = _harness_row(key, label, items, processes, limit_s, early)
                row.setup_s = setup_s
                rows.append(row)
    return rows


RATIOS = (
    ("fixed_skip/harness", "fixed_skip", "harness", TARGET_NO_EARLY_EXIT),
    ("fixed_ee/harness_ee", "fixed_ee", "harness_ee", TARGET_EARLY_EXIT),
    ("fixed/harness", "fixed", "harness", None),
    ("calibrated/harness", "calibrated", "harness", None),
    ("calibrated_ee/harness_ee", "calibrated_ee", "harness_ee", None),
)


def report(items: Sequence[MixItem], rows: Sequence[MixRow]) -> dict:
    """Times, ratios against the harness with the same limits, and every disagreement on pass/fail."""
    seconds = {row.key: row.seconds for row in rows}
    ratios, targets = {}, {}
    for name, top, bottom, target in RATIOS:
        if top in seconds and bottom in seconds:
            ratios[name] = seconds[top] / seconds[bottom]
            if target is not None:
                targets[name] = {
                    "value": ratios[name],
                    "target": f"<= {target}",
                    "met": ratios[name] <= target,
                }
    design = [item.should_pass for item in items]
    disagreements = {
        row.key: [i for i, (p, d) in enumerate(zip(row.passed, design, strict=True)) if p != d]
        for row in rows
    }
    return {
        "rows": [row.to_dict() for row in rows],
        "ratios": ratios,
        "targets": targets,
        "pass_rate_by_design": sum(design) / len(design),
        "programs_disagreeing_with_design": {k: v for k, v in disagreements.items() if v},
    }


def _emit(line: str = "") -> None:
    print(line)  # noqa: T201 - this module is part of the CLI's ``bench`` command


def main(args: argparse.Namespace) -> int:
    """Run the mix table for ``bench --mix``; 0 when every row's pass/fail matches the design."""
    items = build_mix(args.programs, args.tests, slow_s=args.mix_slow)
    labels = {label: sum(i.label == label for i in items) for label in dict.fromkeys(_CYCLE)}
    _emit(
        f"realistic mix: {len(items)} programs x {args.tests} tests ("
        + ", ".join(f"{n} {label}" for label, n in labels.items())
        + f"), {args.timeout:g} s per test, {args.workers} workers on {len(os.sched_getaffinity(0))} cores; "
        f"Python {sys.version.split()[0]}"
    )
    rows = measure_mix(items, args.workers, args.timeout, args.isolation, harness=not args.skip_baselines)
    found = report(items, rows)
    header = f"{'row':<15}{'configuration':<46}{'time s':>9}{'setup s':>9}{'pass rate':>10}{'fraction':>10}"
    _emit()
    _emit(header)
    _emit("-" * len(header))
    for row in rows:
        _emit(
            f"{row.key:<15}{row.label:<46}{row.seconds:>9.2f}{row.setup_s:>9.2f}"
            f"{row.pass_rate:>10.3f}{row.fraction:>10.3f}"
        )
    _emit()
    _emit("setup s: calibration (once per problem content, cached after) or harness process start-up.")
    _emit(
        "ratios (time over the harness's with the same per-test limit): "
        + "  ".join(f"{k}={v:.2f}" for k, v in found["ratios"].items())
    )
    for name, check in found["targets"].items():
        _emit(
            f"target {name} {check['target']}: {check['value']:.2f} -> {'met' if check['met'] else 'NOT met'}"
        )
    wrong = found["programs_disagreeing_with_design"]
    _emit(f"pass/fail: {'identical for every program in every row' if not wrong else f'DISAGREES: {wrong}'}")
    if args.json:
        found["config"] = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
        found["python"] = sys.version.split()[0]
        args.json.write_text(json.dumps(found, indent=2) + "\n")
        _emit(f"figures written to {args.json}")
    return 1 if wrong else 0
