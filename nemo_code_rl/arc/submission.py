"""Kaggle ARC Prize submissions: choose two attempts per test input, and check a submission file.

A submission maps each task id to one entry per test input, ``{"attempt_1": grid, "attempt_2":
grid}``; a test input counts as solved when either attempt is exactly right. From scored programs
(RESULTS rows: ``id``, ``train_accuracy``, ``predictions``) the attempts are the distinct
predictions ranked by the best train accuracy among the programs that made them, then by how
many of those programs agree (votes), then by which came first. A program right on the train
pairs is the strongest evidence there is; agreement among equally good programs is the next.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nemo_code_rl.arc.grid_check import InvalidGrid, as_grid
from nemo_code_rl.arc.grids import Grid
from nemo_code_rl.arc.task import ArcTask

ATTEMPTS = ("attempt_1", "attempt_2")
# The attempt used where there is no prediction; Kaggle needs a grid in every attempt.
PLACEHOLDER: Grid = [[0]]
Submission = dict[str, list[dict[str, Grid]]]


@dataclass
class _Candidate:
    grid: Grid
    accuracy: float
    votes: int
    first: int


def rank_predictions(predictions: Sequence[tuple[float, Grid]]) -> list[Grid]:
    """Distinct grids, best first, from ``(train accuracy, grid)`` pairs in the programs' order.

    >>> rank_predictions([(0.5, [[1]]), (1.0, [[2]]), (0.5, [[3]]), (0.5, [[3]]), (1.0, [[2]])])
    [[[2]], [[3]], [[1]]]
    """
    candidates: dict[str, _Candidate] = {}
    for position, (accuracy, grid) in enumerate(predictions):
        key = json.dumps(grid)
        found = candidates.get(key)
        if found is None:
            candidates[key] = _Candidate(grid, accuracy, 1, position)
        elif accuracy > found.accuracy:
            found.accuracy, found.votes = accuracy, 1
        elif accuracy == found.accuracy:
            found.votes += 1
    ranked = sorted(candidates.values(), key=lambda c: (-c.accuracy, -c.votes, c.first))
    return [candidate.grid for candidate in ranked]


def build_submission(rows: Iterable[Mapping[str, Any]], tasks: Sequence[ArcTask] | None = None) -> Submission:
    """The submission for scored programs; with ``tasks``, every task in it (placeholders where no
    program made a prediction) and only those.

    Rows of infrastructure faults and rows without ``predictions`` are skipped.
    """
    per_test: dict[str, dict[int, list[tuple[float, Grid]]]] = defaultdict(lambda: defaultdict(list))
    test_counts: dict[str, int] = {}
    for row in rows:
        predictions = row.get("predictions")
        if row.get("infra_fault") or not isinstance(predictions, list):
            continue
        task_id = str(row["id"])
        test_counts[task_id] = max(test_counts.get(task_id, 0), len(predictions))
        for index, grid in enumerate(predictions):
            if grid is not None:
                per_test[task_id][index].append((float(row.get("train_accuracy") or 0.0), grid))
    if tasks is not None:
        test_counts = {task.id: len(task.test) for task in tasks}
    submission: Submission = {}
    for task_id, count in test_counts.items():
        entries = []
        for index in range(count):
            chosen = (
                rank_predictions(per_test[task_id][index])[: len(ATTEMPTS)] if task_id in per_test else []
            )
            chosen += [PLACEHOLDER] * (len(ATTEMPTS) - len(chosen))
            entries.append(dict(zip(ATTEMPTS, chosen, strict=True)))
        submission[task_id] = entries
    return submission


def predicted_tasks(rows: Iterable[Mapping[str, Any]]) -> set[str]:
    """The ids of the tasks some scored program made at least one prediction for."""
    return {
        str(row["id"])
        for row in rows
        if not row.get("infra_fault")
        and isinstance(row.get("predictions"), list)
        and any(grid is not None for grid in row["predictions"])
    }


def lost_by_replacing(path: Path, submission: Mapping[str, Any]) -> str:
    """What replacing the file at ``path`` by ``submission`` would lose, in words; ``""`` if nothing.

    A file that is not a submission is never replaced silently; nor is one holding a task that
    ``submission`` lacks, or a real (non-placeholder) attempt where ``submission`` has only
    placeholders.
    """
    if not path.exists():
        return ""
    try:
        held = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return f"it exists and is not a readable submission ({error})"
    if not isinstance(held, Mapping):
        return f"it exists and holds a JSON {type(held).__name__}, not a submission"
    dropped = [task_id for task_id in held if task_id not in submission]
    emptied = [
        task_id
        for task_id, entries in held.items()
        if task_id in submission and _has_prediction(entries) and not _has_prediction(submission[task_id])
    ]
    parts = []
    if dropped:
        parts.append(f"{len(dropped)} of its {len(held)} tasks would be dropped ({', '.join(dropped[:10])})")
    if emptied:
        parts.append(f"{len(emptied)} tasks would lose their predictions ({', '.join(emptied[:10])})")
    return "; ".join(parts)


def _has_prediction(entries: Any) -> bool:
    return isinstance(entries, list) and any(
        isinstance(entry, Mapping) and any(entry.get(a) not in (None, PLACEHOLDER) for a in ATTEMPTS)
        for entry in entries
    )


def validate_submission(submission: Any, tasks: Sequence[ArcTask]) -> list[str]:
    """Every defect of ``submission`` against the challenges' ``tasks``; ``[]`` for a valid one.

    Checks: missing and unknown tasks, the number of entries per task (one per test input),
    exactly ``attempt_1`` and ``attempt_2`` per entry, and that every attempt is a valid grid.
    """
    if not isinstance(submission, Mapping):
        return [f"a submission must be a JSON object of task ids, got {type(submission).__name__}"]
    expected = {task.id: len(task.test) for task in tasks}
    errors = [f"task {task_id}: missing" for task_id in expected if task_id not in submission]
    errors += [
        f"task {task_id}: not in the challenges file" for task_id in submission if task_id not in expected
    ]
    for task_id, count in expected.items():
        if task_id in submission:
            errors += _task_errors(task_id, submission[task_id], count)
    return errors


def _task_errors(task_id: str, entries: Any, count: int) -> list[str]:
    if not isinstance(entries, list):
        return [f"task {task_id}: expected a list of {count} test entries, got {type(entries).__name__}"]
    errors = []
    if len(entries) != count:
        errors.append(f"task {task_id}: {len(entries)} test entries, but the task has {count} test inputs")
    for index, entry in enumerate(entries):
        where = f"task {task_id}, test {index}"
        if not isinstance(entry, Mapping):
            errors.append(
                f"{where}: expected an object with {' and '.join(ATTEMPTS)}, got {type(entry).__name__}"
            )
            continue
        if sorted(entry) != list(ATTEMPTS):
            errors.append(
                f"{where}: expected exactly {' and '.join(ATTEMPTS)}, got {sorted(map(str, entry))}"
            )
        for attempt in ATTEMPTS:
            if attempt in entry:
                try:
                    as_grid(entry[attempt])
                except InvalidGrid as error:
                    errors.append(f"{where}, {attempt}: {error}")
    return errors


def submission_score(submission: Mapping[str, Any], tasks: Sequence[ArcTask]) -> float | None:
    """The Kaggle score: per task, the fraction of test inputs one attempt solves, averaged over
    tasks; ``None`` unless every task's test outputs are known."""
    if not tasks or not all(task.test_outputs_known for task in tasks):
        return None
    scores = []
    for task in tasks:
        entries = submission.get(task.id) or []
        solved = sum(
            index < len(entries) and any(entries[index].get(a) == pair.output for a in ATTEMPTS)
            for index, pair in enumerate(task.test)
        )
        scores.append(solved / len(task.test))
    return sum(scores) / len(scores)
