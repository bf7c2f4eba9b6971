"""A problem is parsed once per row on the NeMo RL path: by whoever reads the row first.

Real fixture rows go the way training takes them: the loader, dataset rows through Arrow, the
processor with a real tokenizer, and the environment's ``step`` verifying each row's reference
solution in the sandbox. The row parser (``parse_problem``) is counted on the real function with
a profile hook, so no binding of it anywhere can run uncounted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nemo_code_rl.processors import code_unit_tests_processor
from nemo_code_rl.unit_tests import problems
from nemo_code_rl.unit_tests.problem_loading import load_code_dataset
from nemo_code_rl.unit_tests.problem_rows import to_dataset_rows

from .helpers import answer, conversation, counting_calls

datasets = pytest.importorskip("datasets", reason="the dataset rows go through Arrow: pip install datasets")
pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")

from nemo_code_rl.environments.code_environment import UnitTestEnvironment  # noqa: E402


def _references_pass(rows: list[dict[str, Any]], references: list[str], step: Callable[..., Any]) -> None:
    result = step(
        [conversation(answer(code)) for code in references], [row["extra_env_info"] for row in rows]
    )
    assert result.rewards.tolist() == [1.0] * len(rows)


def test_a_loaded_row_is_parsed_once_by_the_loader_only(fixtures_dir: Path, tokenizer) -> None:
    path = fixtures_dir / "sandboxfusion" / "code_eval_mbpp.jsonl"
    env = UnitTestEnvironment({"workers": 2, "timeout_s": 5.0})
    try:
        with counting_calls(problems.parse_problem) as count:
            loaded = load_code_dataset(path)
            assert count.calls == len(loaded) > 0  # the loader's one parse per row
            dataset = datasets.Dataset.from_list(to_dataset_rows(loaded, "mbpp"))
            data = [code_unit_tests_processor(row, None, tokenizer, 4096, i) for i, row in enumerate(dataset)]
            _references_pass(data, [p.reference_solution or "" for p in loaded], env.step)
            assert count.calls == len(loaded)  # neither the processor nor the environment parsed again
    finally:
        env.shutdown()
    assert [json.loads(d["extra_env_info"]["problem"])["id"] for d in data] == [p.id for p in loaded]


def test_a_raw_row_is_parsed_once_by_the_processor_only(fixtures_dir: Path, tokenizer) -> None:
    lines = (fixtures_dir / "sandboxfusion" / "code_eval_mbpp.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines if line.strip()][:4]
    env = UnitTestEnvironment({"workers": 2, "timeout_s": 5.0})
    try:
        with counting_calls(problems.parse_problem) as count:
            data = [code_unit_tests_processor(row, None, tokenizer, 4096, i) for i, row in enumerate(rows)]
            assert count.calls == len(rows)
            _references_pass(data, [row["canonical_solution"] for row in rows], env.step)
            assert count.calls == len(rows)
    finally:
        env.shutdown()
