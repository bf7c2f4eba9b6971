"""NeMo RL's own ``grpo_train`` on CPU with our unit-test environment in multi-turn mode (3 turns).

The shipped multi-turn config (``grpo_code_multiturn_8gpu.yaml``) with the CPU overrides of
``training.py``, run synchronously (the config's async GRPO is covered by
``test_async_grpo_train.py``): a failing program gets its test report back as a user turn in the
policy's chat format and answers again, up to 3 attempts. Our environment returns each turn's
change in the episode's reward; NeMo RL adds them up. 3 steps, then validation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nemo_code_rl.run import nemo_rl_problem

if (_problem := nemo_rl_problem()) is not None:  # before importing the CPU policy (torch, Ray)
    pytest.skip(_problem, allow_module_level=True)

from nemo_code_rl.config_loading import load_resolved
from nemo_code_rl.unit_tests.problems import Problem
from tests.nemo_rl_train.code_problems import conversation, judge, problem_of, problems_file
from tests.nemo_rl_train.training import assert_trained, cpu_overrides, run_training

pytestmark = pytest.mark.slow

CONFIG = "grpo_code_multiturn_8gpu.yaml"
TURNS = 3
STEPS = 3
# SmolLM2's chat markup around a feedback turn (our environment derives it from the chat template).
USER_TURN, NEXT_ANSWER = "<|im_start|>user\n", "<|im_start|>assistant\n"


def _overrides(model: Path, run_dir: Path, problems: Path) -> list[str]:
    return [
        # 128 new tokens a turn: an answer cut at the limit ends NeMo RL's episode before feedback.
        *cpu_overrides(model, run_dir, STEPS, new_tokens=128, sequence_length=1024),
        "grpo.async_grpo.enabled=false",
        "policy.generation.colocated.resources.gpus_per_node=null",
        f"data.train.source={problems}",
        f"data.validation.source={problems}",
        "env.code_unit_tests.workers=2",
        "env.code_unit_tests.feedback_chars=300",
        f"grpo.val_period={STEPS}",
        "checkpointing.enabled=false",
    ]


def _episodes(rows: list[dict], problems: Path) -> list[tuple[Problem, list[str], list[str], float]]:
    """Each logged sample as (its problem, its answers, the observations after each, NeMo RL's reward)."""
    episodes = []
    for row in rows:
        prompt, *turns = conversation(row)
        answers, observations = turns[0::2], turns[1::2]
        assert 1 <= len(answers) <= TURNS and len(observations) == len(answers), turns
        (reward,) = row["rewards"]
        episodes.append((problem_of(prompt, problems), answers, observations, float(reward)))
    return episodes


def test_grpo_train_multi_turn(smollm_folder: Path, ray_address: str, tmp_path: Path) -> None:
    problems = problems_file(tmp_path)
    overrides = _overrides(smollm_folder, tmp_path, problems)
    run = run_training(CONFIG, overrides, tmp_path, ray_address)
    assert run.returncode == 0, run.output[-6000:]
    assert_trained(run, STEPS)

    config = load_resolved(CONFIG, overrides)[1]
    assert config["grpo"]["max_rollout_turns"] == TURNS
    train = {step: _episodes(run.jsonl(f"train_data_step{step}.jsonl"), problems) for step in (1, 2, 3)}
    validation = _episodes(run.jsonl(f"val_data_step{STEPS}.jsonl"), problems)
    episodes = [e for step in (1, 2, 3) for e in train[step]] + validation
    jobs = [(problem, answer) for problem, answers, _, _ in episodes for answer in answers]
    judged = iter(judge(jobs, config["env"]["code_unit_tests"]))

    # Each episode's turns, as our verifier judges them again: every attempt but the last failed and
    # got a feedback turn (our report as a user turn in SmolLM2's chat markup); the last attempt
    # ended the episode with a summary (passed, or the third attempt), unless NeMo RL cut the episode
    # at an answer that hit the token limit. NeMo RL's reward is the sum of our per-turn changes, so
    # it is the last attempt's reward.
    per_turn: list[float] = []
    multi_turn = 0
    for problem, answers, observations, reward in episodes:
        rewards = [next(judged) for _ in answers]
        per_turn.extend(rewards)
        assert reward == rewards[-1], (problem.id, rewards, reward, answers)
        assert all(r < 1 for r in rewards[:-1]), (problem.id, rewards)
        for feedback in observations[:-1]:
            assert USER_TURN in feedback and feedback.endswith(NEXT_ANSWER), feedback
            assert "Your program did not pass the tests." in feedback, feedback
        last = observations[-1]
        assert last.startswith("Environment: ") or (len(answers) < TURNS and USER_TURN in last), last
        multi_turn += len(answers) > 1
    assert multi_turn > 0, "no episode got a feedback turn"

    # Some GRPO group had mixed rewards (non-zero advantages), and NeMo RL's logger got the loss,
    # the mean episode reward of each step, NeMo RL's count of turns and the validation accuracy.
    groups: dict[tuple[int, str], set[float]] = {}
    for step in (1, 2, 3):
        for problem, _, _, reward in train[step]:
            groups.setdefault((step, problem.id), set()).add(reward)
    assert any(len(rewards) > 1 for rewards in groups.values()), groups
    scalars = run.scalars()
    assert sorted(step for step, _ in scalars["train/loss"]) == [1, 2, 3]
    assert dict(scalars["train/reward"]) == pytest.approx(
        {step: sum(e[3] for e in train[step]) / len(train[step]) for step in (1, 2, 3)}
    )
    assert dict(scalars["train/avg_turns_per_sample"]) == pytest.approx(
        {step: sum(len(e[1]) for e in train[step]) / len(train[step]) for step in (1, 2, 3)}
    )
    assert scalars["validation/accuracy"] == [
        (STEPS, pytest.approx(sum(e[3] for e in validation) / len(validation)))
    ]

    # Our environment's metrics_jsonl has one line per environment step, i.e. per turn (NeMo RL's
    # rollouts step one sample at a time here), with that turn's reward as our environment judged it.
    lines = run.jsonl("env_metrics.jsonl")
    assert [line["samples"] for line in lines] == [1.0] * len(per_turn)
    assert sorted(line["mean_reward"] for line in lines) == sorted(per_turn)
    assert sum(line.get("solved_after_feedback", 0.0) for line in lines) == sum(
        1 for _, answers, _, reward in episodes if len(answers) > 1 and reward == 1
    )
