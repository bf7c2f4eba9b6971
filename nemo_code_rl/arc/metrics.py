"""The ARC table: how a set of programs did, per prediction and per task, as pure functions.

These are the columns ARC induction work publishes (valid code, valid outputs, unique outputs,
pixel score, correct grids, train pass rate, train pass@n, test pass rate, pass@n), computed the
same way for a training step and for an evaluation. "pass@n" is the share of tasks that at least
one of their n programs solves; ``summarize`` in ``arc.scoring`` adds unbiased pass@k too.
Infrastructure faults are counted apart and left out of every rate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any


@dataclass(frozen=True)
class ArcOutcome:
    """What verification established about one program (one row of a RESULTS file).

    Attributes:
        task_id: the task, to group a task's programs.
        valid_code: code was found and compiles.
        valid_outputs: every output, train and test, is a valid grid.
        outputs_hash: identifies the whole set of outputs, to count distinct behaviours.
        train_pixel_score / train_accuracy: mean pixel accuracy and fraction of exactly right grids
            over the train pairs.
        test_pixel_score / test_correct_grids: the same over the test pairs; ``None`` when the test
            outputs are unknown.
        passed: every test output is exactly right; ``None`` when they are unknown.
        reward: the program's reward; ``None`` when it could not be judged.
        infra_fault: the sandbox failed; the outcome says nothing about the program.
    """

    task_id: str
    valid_code: bool
    valid_outputs: bool
    outputs_hash: str | None
    train_pixel_score: float
    train_accuracy: float
    test_pixel_score: float | None
    test_correct_grids: float | None
    passed: bool | None
    reward: float | None
    infra_fault: bool = False

    @property
    def train_passed(self) -> bool:
        return self.train_accuracy == 1.0

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> ArcOutcome:
        """The outcome recorded in a RESULTS row (``id`` plus this class's other fields)."""
        return cls(
            task_id=str(row["id"]),
            valid_code=bool(row.get("valid_code")),
            valid_outputs=bool(row.get("valid_outputs")),
            outputs_hash=row.get("outputs_hash"),
            train_pixel_score=float(row.get("train_pixel_score") or 0.0),
            train_accuracy=float(row.get("train_accuracy") or 0.0),
            test_pixel_score=row.get("test_pixel_score"),
            test_correct_grids=row.get("test_correct_grids"),
            passed=row.get("passed"),
            reward=row.get("reward"),
            infra_fault=bool(row.get("infra_fault")),
        )


def arc_metrics(outcomes: Sequence[ArcOutcome]) -> dict[str, float]:
    """The ARC table over ``outcomes`` (see the module doc); test columns only where test outputs are known.

    >>> right = ArcOutcome("a", True, True, "h1", 1.0, 1.0, 1.0, 1.0, True, 10.0)
    >>> wrong = ArcOutcome("a", True, True, "h2", 0.5, 0.0, 0.5, 0.0, False, 1.0)
    >>> none = ArcOutcome("b", False, False, None, 0.0, 0.0, 0.0, 0.0, False, -1.0)
    >>> m = arc_metrics([right, wrong, none])
    >>> m["valid_code"], m["unique_outputs"], m["train_pass@n"], m["pass@n"], m["test_correct"]
    (0.6666666666666666, 0.6666666666666666, 0.5, 0.5, 0.3333333333333333)
    """
    judged = [o for o in outcomes if not o.infra_fault]
    tasks: dict[str, list[ArcOutcome]] = defaultdict(list)
    for outcome in judged:
        tasks[outcome.task_id].append(outcome)
    distinct = sum(len({o.outputs_hash for o in group if o.valid_outputs}) for group in tasks.values())
    metrics = {
        "n_preds": float(len(judged)),
        "tasks": float(len(tasks)),
        "infra_faults": float(len(outcomes) - len(judged)),
        "valid_code": _rate(o.valid_code for o in judged),
        "valid_outputs": _rate(o.valid_outputs for o in judged),
        "unique_outputs": distinct / len(judged) if judged else 0.0,
        "train_pixel_score": _mean(o.train_pixel_score for o in judged),
        "train_correct_grids": _mean(o.train_accuracy for o in judged),
        "train_pass_rate": _rate(o.train_passed for o in judged),
        "train_pass@n": _rate(any(o.train_passed for o in group) for group in tasks.values()),
        "mean_reward": _mean(o.reward for o in judged if o.reward is not None),
    }
    tested = [o for o in judged if o.passed is not None]
    if tested:
        tested_tasks = [group for group in tasks.values() if all(o.passed is not None for o in group)]
        metrics.update(
            {
                "test_pixel_score": _mean(o.test_pixel_score or 0.0 for o in tested),
                "test_correct_grids": _mean(o.test_correct_grids or 0.0 for o in tested),
                "test_correct": _rate(bool(o.passed) for o in tested),
                "pass@n": _rate(any(o.passed for o in group) for group in tested_tasks),
            }
        )
    return metrics


ARC25_COLUMNS = (
    "n_preds",
    "valid_code",
    "valid_outputs",
    "unique_outputs",
    "train_pixel_score",
    "train_correct_grids",
    "train_pass_rate",
    "train_is_correct",
    "test_pixel_score",
    "test_correct_grids",
    "test_pass_rate",
    "test_is_correct",
    "is_correct",
)


def arc25_table(outcomes: Sequence[ArcOutcome]) -> dict[str, float]:
    """arc25's evaluation table (``aggregate_metrics`` in ironbar/arc25 ``arc25/metrics.py``): each
    column computed per task over its predictions, then averaged over tasks.

    Per task: ``n_preds``; the fractions of predictions with ``valid_code`` and ``valid_outputs``;
    ``unique_outputs`` (distinct sets of valid outputs / ``n_preds``); per partition the mean
    ``pixel_score`` and ``correct_grids`` (0 for a prediction without valid outputs), the
    ``pass_rate`` (fraction of predictions right on every grid) and ``is_correct`` (some
    prediction is); ``is_correct`` = ``train_is_correct * test_is_correct``. Test columns appear
    only when every task's test outputs are known. Pixel scores are ours (0 where the shape
    differs; arc25 scores the best overlap there). Infrastructure faults are left out.

    >>> right = ArcOutcome("a", True, True, "h1", 1.0, 1.0, 1.0, 1.0, True, 10.0)
    >>> wrong = ArcOutcome("a", True, True, "h2", 0.5, 0.0, 0.5, 0.0, False, 1.0)
    >>> none = ArcOutcome("b", False, False, None, 0.0, 0.0, 0.0, 0.0, False, -1.0)
    >>> t = arc25_table([right, wrong, none])
    >>> t["n_preds"], t["valid_code"], t["train_pass_rate"], t["is_correct"]
    (1.5, 0.5, 0.25, 0.5)
    """
    tasks: dict[str, list[ArcOutcome]] = defaultdict(list)
    for outcome in outcomes:
        if not outcome.infra_fault:
            tasks[outcome.task_id].append(outcome)
    if not tasks:
        return {}
    with_test = all(o.passed is not None for group in tasks.values() for o in group)
    rows = [_arc25_row(group, with_test) for group in tasks.values()]
    return {column: fmean(row[column] for row in rows) for column in ARC25_COLUMNS if column in rows[0]}


def _arc25_row(group: Sequence[ArcOutcome], with_test: bool) -> dict[str, float]:
    n = len(group)
    row = {
        "n_preds": float(n),
        "valid_code": _rate(o.valid_code for o in group),
        "valid_outputs": _rate(o.valid_outputs for o in group),
        "unique_outputs": len({o.outputs_hash for o in group if o.valid_outputs}) / n,
        "train_pixel_score": fmean(o.train_pixel_score for o in group),
        "train_correct_grids": fmean(o.train_accuracy for o in group),
        "train_pass_rate": _rate(o.train_passed for o in group),
        "train_is_correct": float(any(o.train_passed for o in group)),
    }
    if with_test:
        row.update(
            {
                "test_pixel_score": fmean(o.test_pixel_score or 0.0 for o in group),
                "test_correct_grids": fmean(o.test_correct_grids or 0.0 for o in group),
                "test_pass_rate": _rate(bool(o.passed) for o in group),
                "test_is_correct": float(any(o.passed for o in group)),
            }
        )
        row["is_correct"] = row["train_is_correct"] * row["test_is_correct"]
    return row


def per_task_passes(outcomes: Iterable[ArcOutcome]) -> dict[str, list[bool]]:
    """Whether each judged program got every test output right, by task (tasks with known tests)."""
    passes: dict[str, list[bool]] = defaultdict(list)
    for outcome in outcomes:
        if not outcome.infra_fault and outcome.passed is not None:
            passes[outcome.task_id].append(bool(outcome.passed))
    return dict(passes)


def _rate(flags: Iterable[bool]) -> float:
    values = list(flags)
    return sum(values) / len(values) if values else 0.0


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return fmean(items) if items else 0.0
