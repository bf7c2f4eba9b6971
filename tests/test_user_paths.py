"""What a user meets on the command line with imperfect input: every bad input gets a recorded
verdict, a warning line or a one-line error, never a traceback, a silent loss or a misleading
pass@k (see docs/bad_inputs.md, which lists each case tried)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nemo_code_rl import __version__
from nemo_code_rl.cli import main
from nemo_code_rl.engine import Limits
from nemo_code_rl.rows import ProblemFormatError
from nemo_code_rl.unit_tests.problems import load_problems

DOUBLE = {
    "id": "double",
    "question": "Print twice the number.",
    "input_output": json.dumps({"inputs": ["2\n", "5\n"], "outputs": ["4\n", "10\n"]}),
}
RIGHT = "```python\nprint(int(input()) * 2)\n```"


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def score(tmp_path: Path, *extra: str, problems: str = "problems.jsonl", completions: str = "c.jsonl") -> int:
    return main(
        ["score", str(tmp_path / problems), str(tmp_path / completions), "--workers", "1", "--quiet", *extra]
    )


def results(tmp_path: Path, completions: str = "c.jsonl") -> list[dict]:
    path = tmp_path / completions.replace(".jsonl", ".results.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_unmatched_ids_are_warned_about_recorded_and_left_out_of_pass_at_k(tmp_path, capsys):
    write_jsonl(tmp_path / "problems.jsonl", [DOUBLE])
    rows = [{"id": "double", "completion": RIGHT}] + [{"id": f"x{i}", "completion": RIGHT} for i in range(3)]
    write_jsonl(tmp_path / "c.jsonl", rows)

    assert score(tmp_path) == 0
    captured = capsys.readouterr()
    warning = "3 of 4 completions name no problem in PROBLEMS, recorded as unknown_problem: "
    assert warning + "'x0' (line 2); 'x1' (line 3); 'x2' (line 4)" in captured.err
    first_line = captured.out.splitlines()[0]
    assert (
        first_line == "4 completions: 1 judged (1 problems); 3 NOT judged (unknown_problem=3), not in pass@k"
    )
    assert "pass@k over the 1 judged completions" in captured.out
    statuses = [(row["status"], row["passed"], row["tests"][0]["verdict"]) for row in results(tmp_path)]
    assert statuses == [("judged", True, "passed")] + [("unknown_problem", None, "unknown_problem")] * 3

    assert score(tmp_path, "--strict") == 1
    assert "--strict: not everything was judged" in capsys.readouterr().err


def test_strict_passes_when_everything_was_judged(tmp_path, capsys):
    write_jsonl(tmp_path / "problems.jsonl", [DOUBLE])
    write_jsonl(tmp_path / "c.jsonl", [{"id": "double", "completion": "no code"}])
    assert score(tmp_path, "--strict") == 0
    assert results(tmp_path)[0]["status"] == "no_code"
    assert capsys.readouterr().err == ""


def test_bad_rows_are_recorded_and_the_others_are_still_judged(tmp_path, capsys):
    (tmp_path / "problems.jsonl").write_text(
        json.dumps(DOUBLE)
        + "\n"
        + json.dumps(
            {"id": "no-tests", "question": "q", "input_output": json.dumps({"inputs": [], "outputs": []})}
        )
        + "\n"
        + json.dumps({"id": "sf", "content": "A SandboxFusion row.", "test": []})
        + "\n"
        + '{"id": "cut", "question": "truncated'  # the last line of a file still being written
    )
    (tmp_path / "c.jsonl").write_bytes(
        b"".join(
            json.dumps(row).encode() + b"\n"
            for row in (
                {"id": "double", "completion": RIGHT},
                {"id": "no-tests", "completion": RIGHT},
                {"id": "sf", "completion": RIGHT},
            )
        )
        + b'{"id": "double", "completion": 7}\n'
        + b"\x89PNG\r\n"
        + b'{"id": "double", "completion": "```py'
    )

    assert score(tmp_path) == 0
    err = capsys.readouterr().err
    assert (
        "PROBLEMS: 3 row(s) cannot be used, 2 completion(s) of their ids recorded as bad_input: "
        "line 2 (id 'no-tests'): field 'input_output.inputs': no tests; "
        "line 3 (id 'sf'): field 'test': no tests; line 4: not valid JSON" in err
    )
    assert "COMPLETIONS: 3 line(s) cannot be used, recorded as bad_input: line 4: " in err
    assert "line 5: not UTF-8 text (byte 0x89 at offset 0)" in err and "line 6: not valid JSON" in err
    rows = results(tmp_path)
    assert [(row["index"], row["status"]) for row in rows] == [
        (0, "judged"),
        (1, "bad_input"),
        (2, "bad_input"),
        (3, "bad_input"),
        (4, "bad_input"),
        (5, "bad_input"),
    ]
    assert rows[0]["passed"] is True and all(row["passed"] is None for row in rows[1:])
    assert rows[2]["tests"][0]["detail"] == "its problem row (line 3) cannot be used: field 'test': no tests"
    assert score(tmp_path, "--strict") == 1


def test_nothing_to_judge_is_an_error_naming_the_file(tmp_path, capsys):
    (tmp_path / "problems.jsonl").write_text("\n")
    write_jsonl(tmp_path / "c.jsonl", [{"id": "double", "completion": RIGHT}])
    assert score(tmp_path) == 2
    assert "problems.jsonl: no problems could be read" in capsys.readouterr().err

    (tmp_path / "binary.jsonl").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)  # an image
    assert score(tmp_path, problems="binary.jsonl") == 2
    err = capsys.readouterr().err
    assert "binary.jsonl: no problems could be read" in err and "not UTF-8 text" in err
    assert "Traceback" not in err

    write_jsonl(tmp_path / "problems.jsonl", [DOUBLE])
    assert score(tmp_path, completions="binary.jsonl") == 2
    err = capsys.readouterr().err
    assert "binary.jsonl: no completions could be read" in err and "not UTF-8 text" in err
    (tmp_path / "empty.jsonl").write_text("")
    assert score(tmp_path, completions="empty.jsonl") == 2
    assert "empty.jsonl: no completions could be read" in capsys.readouterr().err


def test_a_binary_json_problems_file_is_named():
    with pytest.raises(ProblemFormatError, match=r"x\.json: not UTF-8 text"):
        load_problems_from_bytes(b"\xff\xfe[]", ".json")


def load_problems_from_bytes(data: bytes, suffix: str):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"x{suffix}"
        path.write_bytes(data)
        return load_problems(path)


def test_duplicate_ids_make_both_rows_unusable_and_stay_an_error_for_load_problems():
    from nemo_code_rl.unit_tests.problems import read_problems

    rows = [DOUBLE, {**DOUBLE, "question": "Another."}, {**DOUBLE, "id": "other"}]
    problems, errors = read_problems(rows)
    assert [p.id for p in problems] == ["other"]
    assert [(e.where, e.problem_id) for e in errors] == [("index 1", "double"), ("index 0", "double")]
    with pytest.raises(
        ProblemFormatError, match="index 1: field 'id': duplicate id 'double', first seen at index 0"
    ):
        load_problems(rows)


@pytest.mark.parametrize("value", ["inf", "1e9", "nan", "-1", "0", "ten"])
def test_a_bad_timeout_is_an_argument_error(tmp_path, capsys, value):
    write_jsonl(tmp_path / "problems.jsonl", [DOUBLE])
    write_jsonl(tmp_path / "c.jsonl", [{"id": "double", "completion": RIGHT}])
    with pytest.raises(SystemExit) as exit_info:
        score(tmp_path, "--timeout", value)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --timeout:" in err and "Traceback" not in err


@pytest.mark.parametrize("value", [float("inf"), 1e9, float("nan"), -1.0, 0.0])
def test_limits_refuse_unusable_time_limits(value):
    with pytest.raises(ValueError, match="timeout_s must be a number of seconds above 0 and at most 86400"):
        Limits(timeout_s=value)
    with pytest.raises(ValueError, match="cpu_s must be"):
        Limits(cpu_s=value)


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"nemo-code-rl {__version__}"


def test_gym_server_config_typos_are_one_line_errors(tmp_path):
    pytest.importorskip("uvicorn", reason="the Gym server needs the gym extra")
    pytest.importorskip("yaml", reason="reading --config needs PyYAML")
    cases = {
        "num_procesess: 2\n": "unknown key 'num_procesess' in the server config; did you mean 'num_processes'?",
        "num_processes: two\n": "num_processes: Input should be a valid integer",
        "verifier:\n  comparsion: {mode: tokens}\n": "verifier: unknown key 'comparsion' in verifier",
        "a: [\n": "while parsing a flow node",
        "unit_test_timeout_secs: .inf\n": "unit_test_timeout_secs must be a number of seconds above 0",
    }
    for text, message in cases.items():
        config = tmp_path / "server.yaml"
        config.write_text(text)
        done = subprocess.run(
            [sys.executable, "-m", "nemo_code_rl.gym_server", "--config", str(config), "--port", "1"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


# A correct solution to SandboxFusion's CodeContests problem 19 (Codeforces 1342C). One of its 101
# tests (the statement's example) expects the answers one per line, the others one line per case.
CODEFORCES_1342C = """
import sys
from math import gcd

data = sys.stdin.buffer.read().split()
t, pos, out = int(data[0]), 1, []
for _ in range(t):
    a, b, q = map(int, data[pos : pos + 3])
    pos += 3
    period = a * b // gcd(a, b)
    prefix = [0] * (period + 1)
    for x in range(period):
        prefix[x + 1] = prefix[x] + ((x % a) % b != (x % b) % a)

    def count(n):
        return (n // period) * prefix[period] + prefix[n % period + 1]

    answers = []
    for _ in range(q):
        low, high = int(data[pos]), int(data[pos + 1])
        pos += 2
        answers.append(count(high) - count(low - 1))
    out.append(" ".join(map(str, answers)))
print("\\n".join(out))
"""


def test_tokens_comparison_passes_a_right_answer_laid_out_differently(fixtures_dir, tmp_path, capsys):
    problems = fixtures_dir / "sandboxfusion" / "code_eval_code_contests.jsonl"
    write_jsonl(tmp_path / "c.jsonl", [{"id": "19", "completion": f"```python\n{CODEFORCES_1342C}```"}])
    argv = ["score", str(problems), str(tmp_path / "c.jsonl"), "--workers", "2", "--quiet"]

    assert main(argv) == 0
    (lines,) = results(tmp_path)
    failed = [(i, t["detail"]) for i, t in enumerate(lines["tests"]) if t["verdict"] != "passed"]
    assert failed == [
        (100, "expected 7 lines, got 2; first difference at line 1: expected '0', got '0 0 0 2 4'")
    ]

    assert main([*argv, "--comparison", "tokens"]) == 0
    (tokens,) = results(tmp_path)
    assert tokens["passed"] is True and len(tokens["tests"]) == 101
    capsys.readouterr()


def _gym_rollout_files(fixtures_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    folder = fixtures_dir / "nemo_gym"
    rows = [json.loads(line) for line in (folder / "code_gen_example.jsonl").read_text().splitlines()]
    by_prompt = {row["responses_create_params"]["input"][0]["content"]: row["hash_id"] for row in rows}
    completions = []
    for line in (folder / "code_gen_example_rollouts.jsonl").read_text().splitlines():
        rollout = json.loads(line)
        text = "".join(
            part["text"]
            for item in rollout["response"]["output"]
            if item.get("type") == "message"
            for part in item.get("content", [])
            if part.get("type") == "output_text"
        )
        completions.append(
            {"id": by_prompt[rollout["responses_create_params"]["input"][0]["content"]], "completion": text}
        )
    return folder / "code_gen_example.jsonl", write_jsonl(tmp_path / "c.jsonl", completions)


def test_score_uses_the_shipped_checkers_by_default(fixtures_dir, tmp_path, capsys):
    problems, completions = _gym_rollout_files(fixtures_dir, tmp_path)
    multi_answer = {"ff86821ed6f7260c7a17c4c9be03b663", "c69268d8bdb4da0685d7b187c88296c1"}
    argv = ["score", str(problems), str(completions), "--format", "gym", "--workers", "2", "--quiet"]

    assert main(argv) == 0
    passed = {row["id"]: row["passed"] for row in results(tmp_path)}
    # f3e3b9f1... is right as laid out; the two multi-answer rollouts only a checker can accept.
    right = {key for key in passed if key.startswith("f3e3b9f1")}
    assert {key for key, value in passed.items() if value} == multi_answer | right

    assert main([*argv, "--no-checkers"]) == 0
    passed = {row["id"]: row["passed"] for row in results(tmp_path)}
    assert {key for key, value in passed.items() if value} == right
    capsys.readouterr()


def _arc_results(path: Path) -> Path:
    rows = [
        {"id": "a", "predictions": [[[1]]], "train_accuracy": 1.0},
        {"id": "b", "predictions": [None], "train_accuracy": 0.0},
        {"id": "c", "predictions": None, "format_ok": False},
    ]
    return write_jsonl(path, rows)


def _challenges(path: Path, count: int) -> Path:
    task = {"train": [{"input": [[0]], "output": [[1]]}], "test": [{"input": [[0]]}]}
    path.write_text(
        json.dumps({name: task for name in ["a", "b", "c", *(f"t{i}" for i in range(count - 3))]})
    )
    return path


def test_arc_submission_names_the_tasks_without_a_prediction(tmp_path, capsys):
    results_file = _arc_results(tmp_path / "arc.results.jsonl")
    output = tmp_path / "submission.json"
    assert main(["arc-submission", str(results_file), "-o", str(output)]) == 0
    captured = capsys.readouterr()
    message = "2 of 3 tasks have no prediction: 1 with placeholder attempts (b); 1 left out (c)"
    assert message in captured.err
    assert sorted(json.loads(output.read_text())) == ["a", "b"]

    challenges = _challenges(tmp_path / "challenges.json", 400)
    assert main(["arc-submission", str(results_file), "-o", str(output), "--validate", str(challenges)]) == 0
    captured = capsys.readouterr()
    message = (
        "399 of 400 tasks have no prediction: 399 with placeholder attempts (b, c, t0, t1, t2, t3, t4, t5"
    )
    assert message + ", t6, t7, ... 389 more)" in captured.err
    assert "valid" in captured.out and len(json.loads(output.read_text())) == 400


def test_arc_submission_never_replaces_a_submission_with_less(tmp_path, capsys):
    output = tmp_path / "submission.json"
    held = {name: [{"attempt_1": [[1]], "attempt_2": [[2]]}] for name in ("a", "b", "z")}
    output.write_text(json.dumps(held))

    not_arc = write_jsonl(
        tmp_path / "code.results.jsonl", [{"id": "HumanEval/0", "passed": True, "tests": []}]
    )
    assert main(["arc-submission", str(not_arc), "-o", str(output)]) == 2
    assert "no row has ARC predictions" in capsys.readouterr().err
    assert json.loads(output.read_text()) == held

    results_file = _arc_results(tmp_path / "arc.results.jsonl")
    refused = r"not replaced: 1 of its 3 tasks would be dropped \(z\); 1 tasks would lose their predictions"
    with pytest.raises(SystemExit, match=refused + r" \(b\); --force replaces it"):
        main(["arc-submission", str(results_file), "-o", str(output)])
    assert json.loads(output.read_text()) == held

    assert main(["arc-submission", str(results_file), "-o", str(output), "--force"]) == 0
    assert sorted(json.loads(output.read_text())) == ["a", "b"]
    capsys.readouterr()


def test_doctests_of_the_modules_these_paths_go_through():
    import doctest

    from nemo_code_rl.engine import limits
    from nemo_code_rl.unit_tests import checkers, scoring

    for module in (scoring, checkers, limits):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_arc_scoring_keeps_bad_lines_as_bad_input_rows(tmp_path, capsys):
    task = {
        "id": "same",
        "train": [{"input": [[1, 2]], "output": [[1, 2]]}],
        "test": [{"input": [[3]], "output": [[3]]}],
    }
    write_jsonl(tmp_path / "arc.jsonl", [task])
    identity = "```python\ndef transform(grid):\n    return grid\n```"
    (tmp_path / "c.jsonl").write_text(
        json.dumps({"id": "same", "completion": identity})
        + "\n{broken\n"
        + json.dumps({"id": "other", "completion": identity})
        + "\n"
    )
    argv = ["score", str(tmp_path / "arc.jsonl"), str(tmp_path / "c.jsonl"), "--workers", "1", "--quiet"]

    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "COMPLETIONS: 1 line(s) cannot be used, recorded as bad_input: line 2: not valid JSON" in err
    assert (
        "1 of 3 completions name no problem in PROBLEMS, recorded as unknown_problem: 'other' (line 3)" in err
    )
    rows = results(tmp_path)
    assert [row["index"] for row in rows] == [0, 1, 2]
    assert rows[0]["passed"] is True and rows[1]["status"] == "bad_input" and rows[1]["passed"] is None
    assert main([*argv, "--strict"]) == 1
    capsys.readouterr()


def test_a_data_time_limit_times_the_factor_past_a_day_does_not_stop_the_batch():
    from nemo_code_rl.engine.limits import MAX_SECONDS
    from nemo_code_rl.unit_tests.problems import parse_problem
    from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

    slow = parse_problem(
        {
            "problem_id": "slow",
            "question": "double",
            "input_output": json.dumps({"inputs": ["2\n"], "outputs": ["4\n"]}),
            "time_limit": 80_000,
        }
    )
    with Verifier(VerifierConfig(timeout_s=5, time_limit_factor=10), workers=1) as verifier:
        assert verifier.time_limit(slow) == MAX_SECONDS
        assert verifier.verify_batch([(slow, "```python\nprint(int(input()) * 2)\n```")])[0].passed
