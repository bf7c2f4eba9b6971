"""RESULTS rows and the ARC table from ``score``, and Kaggle submissions: writer, validator, command."""

from __future__ import annotations

import argparse
import json

import pytest

from nemo_code_rl.arc.cli import add_subcommands, score_rows_if_arc
from nemo_code_rl.arc.data import load_arc_tasks
from nemo_code_rl.arc.submission import (
    PLACEHOLDER,
    build_submission,
    rank_predictions,
    submission_score,
    validate_submission,
)
from nemo_code_rl.arc.task import task_from_row
from nemo_code_rl.cli import main

from .programs import TILE_00576224, completion

TASK_A = task_from_row(
    {"id": "a", "train": [{"input": [[1]], "output": [[2]]}], "test": [{"input": [[1]]}, {"input": [[3]]}]}
)
TASK_B = task_from_row({"id": "b", "train": [{"input": [[1]], "output": [[2]]}], "test": [{"input": [[5]]}]})


def _arc_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="nemo-code-rl")
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.handler(args)


def test_attempts_are_ranked_by_train_accuracy_then_votes() -> None:
    assert rank_predictions([(0.5, [[1]]), (0.5, [[1]]), (1.0, [[2]]), (0.5, [[3]])]) == [[[2]], [[1]], [[3]]]
    # a grid counts its votes at its best accuracy only
    assert rank_predictions(
        [(0.0, [[4]]), (0.0, [[4]]), (0.0, [[4]]), (0.5, [[4]]), (0.5, [[6]]), (0.5, [[6]])]
    ) == [
        [[6]],
        [[4]],
    ]


def test_build_submission_from_results_rows() -> None:
    rows = [
        {"id": "a", "train_accuracy": 1.0, "predictions": [[[7]], None]},
        {"id": "a", "train_accuracy": 0.0, "predictions": [[[8]], [[9]]]},
        {"id": "a", "train_accuracy": 0.0, "predictions": [[[8]], [[9]]]},
        {"id": "a", "train_accuracy": 1.0, "predictions": [[[5]], [[5]]], "infra_fault": True},
        {"id": "b", "train_accuracy": 0.0, "predictions": [None]},
        {"id": "unknown", "reward": None, "passed": None, "error": "unknown_problem"},
    ]
    submission = build_submission(rows)
    assert submission == {
        "a": [{"attempt_1": [[7]], "attempt_2": [[8]]}, {"attempt_1": [[9]], "attempt_2": PLACEHOLDER}],
        "b": [{"attempt_1": PLACEHOLDER, "attempt_2": PLACEHOLDER}],
    }
    assert validate_submission(submission, [TASK_A, TASK_B]) == []
    assert build_submission(rows[:1], [TASK_A, TASK_B])["b"] == [{"attempt_1": [[0]], "attempt_2": [[0]]}]


@pytest.mark.parametrize(
    ("submission", "errors"),
    [
        ([], ["a submission must be a JSON object of task ids, got list"]),
        ({"a": [{"attempt_1": [[1]], "attempt_2": [[1]]}] * 2}, ["task b: missing"]),
        (
            {
                "a": [{"attempt_1": [[1]], "attempt_2": [[1]]}] * 2,
                "b": [{"attempt_1": [[1]], "attempt_2": [[1]]}],
                "c": [],
            },
            ["task c: not in the challenges file"],
        ),
        (
            {
                "a": [{"attempt_1": [[1]], "attempt_2": [[1]]}],
                "b": [{"attempt_1": [[1]], "attempt_2": [[1]]}],
            },
            ["task a: 1 test entries, but the task has 2 test inputs"],
        ),
        (
            {"a": {"attempt_1": [[1]]}, "b": [{"attempt_1": [[1]], "attempt_2": [[1]]}]},
            ["task a: expected a list of 2 test entries, got dict"],
        ),
        (
            {
                "a": [{"attempt_1": [[1]]}, {"attempt_1": [[1]], "attempt_2": [[1]], "attempt_3": [[1]]}],
                "b": [[[1]]],
            },
            [
                "task a, test 0: expected exactly attempt_1 and attempt_2, got ['attempt_1']",
                "task a, test 1: expected exactly attempt_1 and attempt_2, got ['attempt_1', 'attempt_2', 'attempt_3']",
                "task b, test 0: expected an object with attempt_1 and attempt_2, got list",
            ],
        ),
        (
            {
                "a": [
                    {"attempt_1": [[1, 2], [3]], "attempt_2": []},
                    {"attempt_1": [[10]], "attempt_2": [[1]] * 31},
                ],
                "b": [{"attempt_1": [["1"]], "attempt_2": [[1]]}],
            },
            [
                "task a, test 0, attempt_1: row 1 has 1 cells, row 0 has 2",
                "task a, test 0, attempt_2: the grid has no rows",
                "task a, test 1, attempt_1: cell (0, 0) is 10, not a color 0-9",
                "task a, test 1, attempt_2: the grid has 31 rows (at most 30)",
                "task b, test 0, attempt_1: cell (0, 0) is a str, not an int",
            ],
        ),
    ],
    ids=[
        "not-an-object",
        "missing-task",
        "unknown-task",
        "wrong-entry-count",
        "entries-not-a-list",
        "attempts",
        "grids",
    ],
)
def test_validator_reports_each_defect(submission, errors) -> None:
    assert validate_submission(submission, [TASK_A, TASK_B]) == errors


def test_submission_score() -> None:
    known = task_from_row(
        {"id": "k", "train": [{"input": [[1]], "output": [[2]]}], "test": [{"input": [[1]], "output": [[2]]}]}
    )
    assert submission_score({"k": [{"attempt_1": [[0]], "attempt_2": [[2]]}]}, [known]) == 1.0
    assert submission_score({"k": [{"attempt_1": [[0]], "attempt_2": [[0]]}]}, [known]) == 0.0
    assert submission_score({}, [TASK_A]) is None


def test_score_command_on_nemo_gym_arc_rows_then_submission(fixtures_dir, tmp_path, capsys) -> None:
    problems = fixtures_dir / "nemo_gym" / "arc_agi_example.jsonl"
    tasks = {task.id: task for task in load_arc_tasks(problems)}
    completions = tmp_path / "completions.jsonl"
    rows = [
        {"id": "00576224", "completion": completion(TILE_00576224)},
        {"id": "00576224", "completion": completion("def transform(grid):\n    return grid")},
        {"id": "00576224", "completion": completion(TILE_00576224)},
        {"id": "00576224", "completion": "I would tile the grid."},
        {"id": "009d5c81", "completion": completion("def transform(grid):\n    return grid")},
        {"id": "not-a-task", "completion": completion("def transform(grid):\n    return grid")},
    ]
    completions.write_text("".join(json.dumps(row) + "\n" for row in rows))

    status = main(["score", str(problems), str(completions), "--workers", "2", "--timeout", "1", "--quiet"])

    assert status == 0
    results = [json.loads(line) for line in (tmp_path / "completions.results.jsonl").read_text().splitlines()]
    assert [r["reward"] for r in results] == [10.0, 1.0, 10.0, -1.0, 1.0, None]
    assert [r["passed"] for r in results] == [True, False, True, False, False, None]
    assert results[0]["train_accuracy"] == 1.0 and results[1]["train_accuracy"] == 0.0
    assert results[0]["predictions"] == [tasks["00576224"].test[0].output]
    assert results[3]["predictions"] == [None] and results[3]["format_ok"] is False
    assert [r["sample"] for r in results] == [0, 1, 2, 3, 0, 0]
    printed = capsys.readouterr().out
    assert "5 completions of 2 ARC tasks" not in printed and "6 completions of 2 ARC tasks" in printed
    assert "pass@n                50.00%" in printed and "submission (2 tries)  50.00%" in printed

    challenges = tmp_path / "mini_challenges.json"
    challenges.write_text(
        json.dumps(
            {
                t.id: {"train": t.to_row()["train"], "test": [{"input": p.input} for p in t.test]}
                for t in tasks.values()
            }
        )
    )
    output = tmp_path / "submission.json"
    status = _arc_command(
        [
            "arc-submission",
            str(tmp_path / "completions.results.jsonl"),
            "-o",
            str(output),
            "--validate",
            str(challenges),
        ]
    )
    assert status == 0
    submission = json.loads(output.read_text())
    assert sorted(submission) == sorted(tasks)
    assert submission["00576224"][0]["attempt_1"] == tasks["00576224"].test[0].output
    assert submission["00dbd492"] == [{"attempt_1": PLACEHOLDER, "attempt_2": PLACEHOLDER}]
    assert "valid" in capsys.readouterr().out


def test_submission_command_checks_an_existing_submission(tmp_path, capsys) -> None:
    challenges = tmp_path / "two_challenges.json"
    challenges.write_text(
        json.dumps(
            {t.id: {"train": t.to_row()["train"], "test": t.to_row()["test"]} for t in (TASK_A, TASK_B)}
        )
    )
    broken = tmp_path / "submission.json"
    broken.write_text(json.dumps({"a": [{"attempt_1": [[1]], "attempt_2": [[1]]}]}))

    assert _arc_command(["arc-submission", str(broken), "--validate", str(challenges)]) == 1
    errors = capsys.readouterr().err
    assert "2 problem(s)" in errors and "task b: missing" in errors and "task a: 1 test entries" in errors
    with pytest.raises(SystemExit):
        _arc_command(["arc-submission", str(broken)])


def test_score_leaves_coding_problems_to_the_unit_test_scorer(fixtures_dir, tmp_path) -> None:
    completions = tmp_path / "completions.jsonl"
    completions.write_text(json.dumps({"id": "x", "completion": ""}) + "\n")
    assert (
        score_rows_if_arc(str(fixtures_dir / "nemo_gym" / "code_gen_example.jsonl"), str(completions)) is None
    )
