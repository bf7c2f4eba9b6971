"""One canonical ARC task, whatever file it came from.

The canonical row is ``{"id", "train": [{"input", "output"}], "test": [{"input", "output"?}]}``;
a test output is absent where it is unknown (a Kaggle challenge without its solutions). NeMo Gym
``arc_agi`` rows (``train``, one ``test_input``, ``expected_output``, ``task_id``) are read too.
Every grid is validated on the way in, so a malformed row fails where it is read, naming the
field, instead of scoring programs against a broken answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nemo_code_rl.arc.grid_check import InvalidGrid, as_grid
from nemo_code_rl.arc.grids import Grid
from nemo_code_rl.rows import ID_FIELDS, ProblemFormatError


@dataclass(frozen=True)
class ArcPair:
    """An input grid and its output grid (``None`` when unknown)."""

    input: Grid
    output: Grid | None = None


@dataclass(frozen=True)
class ArcTask:
    """A task: demonstration pairs and test pairs.

    A program is run once per task on ``inputs()``, the train inputs followed by the test inputs.
    """

    id: str
    train: tuple[ArcPair, ...]
    test: tuple[ArcPair, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ProblemFormatError(f"must be a non-empty string, got {self.id!r}", field="id")
        if not self.train:
            raise ProblemFormatError("a task needs at least one train pair", field="train")
        if not self.test:
            raise ProblemFormatError("a task needs at least one test input", field="test")
        if any(pair.output is None for pair in self.train):
            raise ProblemFormatError("every train pair needs an output", field="train")

    @property
    def test_outputs_known(self) -> bool:
        """Every test output is known, so test accuracy can be measured."""
        return all(pair.output is not None for pair in self.test)

    def inputs(self) -> list[Grid]:
        return [pair.input for pair in self.train] + [pair.input for pair in self.test]

    def to_row(self) -> dict[str, Any]:
        """The canonical row, with copies of the grids; ``task_from_row(task.to_row()) == task``."""
        return {
            "id": self.id,
            "train": [_pair_row(pair) for pair in self.train],
            "test": [_pair_row(pair) for pair in self.test],
        }


def _pair_row(pair: ArcPair) -> dict[str, Grid]:
    row = {"input": [list(r) for r in pair.input]}
    if pair.output is not None:
        row["output"] = [list(r) for r in pair.output]
    return row


def is_arc_row(row: Any) -> bool:
    """Whether ``row`` looks like an ARC task (canonical or NeMo Gym), not a coding problem.

    >>> is_arc_row({"train": [{"input": [[1]], "output": [[2]]}], "test": [{"input": [[1]]}]})
    True
    >>> is_arc_row({"question": "Add.", "input_output": "{}"})
    False
    """
    return (
        isinstance(row, Mapping)
        and isinstance(row.get("train"), list)
        and ("test" in row or "test_input" in row)
    )


def task_from_row(row: Mapping[str, Any], *, task_id: str | None = None) -> ArcTask:
    """The ``ArcTask`` of a canonical or NeMo Gym ``arc_agi`` row.

    Args:
        row: the row; its id is the first of ``id``, ``task_id``, ``problem_id``, ``hash_id``.
        task_id: the id to use where the row has none (a one-file-per-task folder, a Kaggle key).

    Raises:
        ProblemFormatError: naming the field, e.g. ``field 'train[1].output': row 2 has 3 cells``.
    """
    if not isinstance(row, Mapping):
        raise ProblemFormatError(f"an ARC task must be an object, got {type(row).__name__}")
    found = next((str(row[name]) for name in ID_FIELDS if row.get(name) not in (None, "")), None)
    identifier = found or task_id
    if identifier is None:
        raise ProblemFormatError(f"no id (one of {', '.join(ID_FIELDS)})", field="id")
    train = tuple(_pairs(row.get("train"), "train", output_required=True))
    if "test" in row:
        test = tuple(_pairs(row["test"], "test", output_required=False))
    else:
        expected = row.get("expected_output")
        test = (
            ArcPair(
                _grid(row.get("test_input"), "test_input"),
                None if expected is None else _grid(expected, "expected_output"),
            ),
        )
    return ArcTask(identifier, train, test)


def _pairs(value: Any, name: str, *, output_required: bool) -> list[ArcPair]:
    if not isinstance(value, list):
        raise ProblemFormatError(
            f"must be a list of {{input, output}} pairs, got {type(value).__name__}", field=name
        )
    pairs = []
    for index, pair in enumerate(value):
        where = f"{name}[{index}]"
        if not isinstance(pair, Mapping) or "input" not in pair:
            raise ProblemFormatError("must be an object with an input grid", field=where)
        output = pair.get("output")
        if output is None and output_required:
            raise ProblemFormatError("has no output grid", field=where)
        pairs.append(
            ArcPair(
                _grid(pair["input"], f"{where}.input"),
                None if output is None else _grid(output, f"{where}.output"),
            )
        )
    return pairs


def _grid(value: Any, field: str) -> Grid:
    try:
        return as_grid(value)
    except InvalidGrid as error:
        raise ProblemFormatError(str(error), field=field) from None
