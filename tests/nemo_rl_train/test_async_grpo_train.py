"""NeMo RL's own ``async_grpo_train`` on CPU with our unit-test environment: the production config.

``grpo_code_8gpu.yaml`` (async GRPO, importance-sampling correction) with the CPU overrides of
``training.py``: generation colocated with training, which NeMo RL's async loop allows for its
``megatron`` generation backend. NeMo RL starts its trajectory collector and replay buffer as Ray
actors in its vLLM Python environment (``ray_actor_environment_registry.py`` names
``PY_EXECUTABLES.VLLM`` for both, even with ``NEMO_RL_PY_EXECUTABLES_SYSTEM=1``), which it takes
from ``NEMO_RL_VENV_DIR`` when prebuilt there, as in NeMo RL's container. Here those environments
lack this package (``actor_venvs``), as a worker venv NeMo RL builds would: the collector unpickles
our processor with the training dataloader, so the run reaches its steps only if the launcher's
export of the package reaches NeMo RL's actors. 2 steps, then validation.

The collector makes one pass over the training data (``grpo.max_num_epochs`` does not apply to it:
``async_utils/trajectory_collector.py``, ``_collection_loop``), and training waits for the batch
after the current one: the 2 problems go in 3 times over, one batch of 2 prompts per step + 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nemo_code_rl.run import nemo_rl_problem

if (_problem := nemo_rl_problem()) is not None:  # before importing the CPU policy (torch, Ray)
    pytest.skip(_problem, allow_module_level=True)

from nemo_code_rl.config_loading import load_resolved
from tests.nemo_rl_train.code_problems import problems_file, rejudge
from tests.nemo_rl_train.training import cpu_overrides, run_training

pytestmark = pytest.mark.slow

CONFIG = "grpo_code_8gpu.yaml"
STEPS = 2


def _overrides(model: Path, run_dir: Path, problems: Path) -> list[str]:
    return [
        *cpu_overrides(model, run_dir, STEPS),
        "policy.generation.colocated.resources.gpus_per_node=null",
        f"data.train.source={problems}",
        f"data.validation.source={problems}",
        "data.shuffle=false",
        "env.code_unit_tests.workers=2",
        f"grpo.val_period={STEPS}",
        "checkpointing.enabled=false",
    ]


def test_async_grpo_train(smollm_folder: Path, ray_address: str, actor_venvs: Path, tmp_path: Path) -> None:
    problems = problems_file(tmp_path, copies=STEPS + 1)
    overrides = _overrides(smollm_folder, tmp_path, problems)
    config = load_resolved(CONFIG, overrides)[1]
    assert config["grpo"]["async_grpo"]["enabled"] and config["loss_fn"]["use_importance_sampling_correction"]
    run = run_training(
        CONFIG, overrides, tmp_path, ray_address, extra_env={"NEMO_RL_VENV_DIR": str(actor_venvs)}
    )
    assert run.returncode == 0, run.output[-6000:]
    assert "Starting async GRPO training" in run.output

    # The policy trained once a step with NeMo RL's loss_fn (importance-sampling corrected), the
    # weights moving each time, and NeMo RL refit the generation weights after each step.
    trains = run.of("train")
    assert [t["optimizer_steps"] for t in trains] == [1, 2]
    assert all(t["digest_before"] != t["digest_after"] for t in trains)
    refits = {e["digest"] for e in run.of("refit")}
    assert {t["digest_after"] for t in trains} <= refits, run.of("refit")

    # The trajectories NeMo RL trained on carry our environment's rewards for their texts, a group
    # of 4 answers to each of the 2 prompts a step.
    means = []
    for step in range(1, STEPS + 1):
        groups = rejudge(
            run.jsonl(f"train_data_step{step}.jsonl"), config["env"]["code_unit_tests"], problems
        )
        assert sorted(len(logged) for logged, _ in groups.values()) == [4, 4], (step, groups)
        assert all(logged == ours for logged, ours in groups.values()), (step, groups)
        means.append(sum(sum(logged) for logged, _ in groups.values()) / 8)

    # NeMo RL's logger got each step's loss and reward, and validation ran with our environment.
    scalars = run.scalars()
    assert sorted(step for step, _ in scalars["train/loss"]) == [1, 2]
    assert dict(scalars["train/reward"]) == pytest.approx({1: means[0], 2: means[1]})
    validation = run.jsonl(f"val_data_step{STEPS}.jsonl")
    judged = rejudge(validation, config["env"]["code_unit_tests"], problems)
    assert all(logged == ours for logged, ours in judged.values()), judged
    val_rewards = [reward for logged, _ in judged.values() for reward in logged]
    assert scalars["validation/accuracy"] == [(STEPS, pytest.approx(sum(val_rewards) / len(val_rewards)))]
