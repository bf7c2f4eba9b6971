"""NeMo RL's own ``grpo_train``, end to end on CPU, with our unit-test environment.

Entered through ``python -m nemo_code_rl.run`` with a shipped config plus overrides and
``--policy-factory`` naming the CPU policy (``cpu_policy.py``): NeMo RL's data loading through its
registries with our processor, its colocated ``MegatronGeneration`` generating through the policy's
worker, its rollouts calling our environment actor, its advantages, ``loss_fn``, logger,
checkpointer and validation. A first run trains 2 steps and checkpoints; a second run resumes from
that checkpoint and trains step 3.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nemo_code_rl.run import nemo_rl_problem

if (_problem := nemo_rl_problem()) is not None:  # before importing the CPU policy (torch, Ray)
    pytest.skip(_problem, allow_module_level=True)

from nemo_code_rl.config_loading import load_resolved
from tests.nemo_rl_train.code_problems import problems_file, rejudge
from tests.nemo_rl_train.training import assert_trained, cpu_overrides, run_training

pytestmark = pytest.mark.slow


def _single_turn(model: Path, run_dir: Path, problems: Path, steps: int) -> list[str]:
    return [
        *cpu_overrides(model, run_dir, steps),
        f"data.train.source={problems}",
        f"data.validation.source={problems}",
        "env.code_unit_tests.workers=2",
        "env.code_unit_tests.max_tests=null",
        "grpo.val_period=2",
        "checkpointing.save_period=2",
    ]


def test_grpo_train_single_turn_then_resume(smollm_folder: Path, ray_address: str, tmp_path: Path) -> None:
    problems = problems_file(tmp_path)
    first = run_training(
        "grpo_code_2gpu.yaml", _single_turn(smollm_folder, tmp_path, problems, 2), tmp_path, ray_address
    )
    assert first.returncode == 0, first.output[-6000:]

    # The policy's train ran NeMo RL's loss_fn with a real optimizer step: the weights moved each step;
    # generation after each refit used the trained weights.
    assert_trained(first, 2)
    trains = first.of("train")

    # The rewards NeMo RL trained on are our verifier's judgements of the same texts, and some
    # group of 4 answers to one prompt had mixed rewards (non-zero advantages).
    config = load_resolved("grpo_code_2gpu.yaml", _single_turn(smollm_folder, tmp_path, problems, 2))[1]
    mixed, means = False, []
    for step in (1, 2):
        rows = first.jsonl(f"train_data_step{step}.jsonl")  # messages logged as their texts
        groups = rejudge(rows, config["env"]["code_unit_tests"], problems)
        assert sorted(len(logged) for logged, _ in groups.values()) == [4, 4], (step, groups)
        for logged, ours in groups.values():
            assert logged == ours, (step, groups)
            mixed = mixed or len(set(logged)) > 1
        means.append(sum(sum(logged) for logged, _ in groups.values()) / 8)
    assert mixed, "no group had mixed rewards: every advantage was 0"

    # NeMo RL's logger got the loss_fn's metrics and the mean of our environment's rewards; our
    # environment's own metrics (which NeMo RL's rollouts drop) went to its metrics_jsonl, one line
    # per step call, for every training sample and every validation sample.
    scalars = first.scalars()
    assert {"train/loss", "train/grad_norm", "train/reward", "validation/accuracy"} <= set(scalars)
    assert sorted(step for step, _ in scalars["train/loss"]) == [1, 2]
    assert dict(scalars["train/reward"]) == pytest.approx({1: means[0], 2: means[1]})
    validation = first.jsonl("val_data_step2.jsonl")
    assert len(validation) == 2
    env_metrics = first.jsonl("env_metrics.jsonl")
    assert sum(line["samples"] for line in env_metrics) == 2 * 8 + len(validation), env_metrics

    # Validation ran with our environment at step 2: its rewards are our verifier's judgements too
    # (its samples are in metrics_jsonl above), and NeMo RL's accuracy is their mean.
    judged = rejudge(validation, config["env"]["code_unit_tests"], problems)
    assert all(logged == ours for logged, ours in judged.values()), judged
    val_rewards = [reward for logged, _ in judged.values() for reward in logged]
    assert scalars["validation/accuracy"] == [(2, pytest.approx(sum(val_rewards) / len(val_rewards)))]

    # A checkpoint was written at step 2.
    step_dir = tmp_path / "checkpoints" / "step_2"
    assert (step_dir / "policy" / "weights" / "config.json").is_file()
    saved = first.of("save")[-1]

    # A second run resumes from step 2: model and optimizer restored, and it trains step 3 only.
    second = run_training(
        "grpo_code_2gpu.yaml", _single_turn(smollm_folder, tmp_path, problems, 3), tmp_path, ray_address
    )
    assert second.returncode == 0, second.output[-6000:]
    loaded = second.of("load")[0]
    assert loaded["source"] == str(step_dir / "policy" / "weights")
    assert loaded["digest"] == saved["digest"] == trains[1]["digest_after"]
    assert loaded["optimizer_steps"] == 2
    assert [t["optimizer_steps"] for t in second.of("train")] == [3]
    assert sorted(step for step, _ in second.scalars()["train/loss"]) == [3]
