"""The environments under the fault policy, with real lost sandbox workers (killed twice, so the
engine's retry is spent): a sequence of one-sample steps, as async GRPO sends them, and a
multi-turn episode whose second turn faults."""

from __future__ import annotations

import pytest

pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")

from nemo_code_rl.environments.code_environment import UnitTestEnvironment
from nemo_code_rl.fault_policy import InfrastructureFaultError
from nemo_code_rl.processors import env_info_for_problem
from tests.engine.conftest import kill_workers_later

from .helpers import CORRECT_SUM, answer, conversation, sum_problem

SLEEPY = answer("import time\ntime.sleep(3)\n" + CORRECT_SUM)
HALF_RIGHT = "print(3)"  # passes the first of the two tests


def _lost_step(env: UnitTestEnvironment, log: list[dict], info: dict):
    """``step`` while every sandbox worker is killed twice: the program ends ``worker_lost`` (or, on a
    loaded host where a replacement is killed while it starts, the engine call fails: also a fault)."""
    killer = kill_workers_later(env._verifier.pool, rounds=2, delay=1.0)  # the test reaches the pool
    try:
        return env.step([log], [info])
    finally:
        killer.join()


def test_one_sample_steps_give_a_lost_sample_its_groups_level(tmp_path) -> None:
    env = UnitTestEnvironment(
        {"workers": 1, "timeout_s": 10.0, "metrics_jsonl": str(tmp_path / "env_metrics.jsonl")}
    )
    info = env_info_for_problem(sum_problem())
    try:
        rewards = [
            env.step([conversation(answer(text))], [info]).rewards.item() for text in (CORRECT_SUM, "")
        ]
        lost = _lost_step(env, conversation(SLEEPY), info)
        _, metrics = env.global_post_process_and_metrics({})
    finally:
        env.shutdown()

    assert rewards == [1.0, 0.0]
    assert lost.rewards.tolist() == [0.5]  # the old per-step mean gave 0: no judged peer in the step
    assert lost.terminateds.tolist() == [True]
    assert metrics["infra_faults"] == 1.0 and metrics["faults/neutral_from_problem"] == 1.0
    assert '"infra_faults": 1.0' in (tmp_path / "env_metrics.jsonl").read_text().splitlines()[-1]


def test_a_faulted_second_turn_keeps_the_first_turns_reward(tokenizer_config) -> None:
    env = UnitTestEnvironment(
        {
            "workers": 1,
            "timeout_s": 10.0,
            "max_rollout_turns": 3,
            "tokenizer": tokenizer_config,
            "reward": {"mode": "fraction"},
        }
    )
    info = env_info_for_problem(sum_problem())
    log = conversation(answer(HALF_RIGHT))
    try:
        first = env.step([log], [info])
        assert first.rewards.tolist() == [0.5] and first.terminateds.tolist() == [False]
        log += [dict(first.observations[0]), {"role": "assistant", "content": SLEEPY}]
        second = _lost_step(env, log, first.metadata[0])
    finally:
        env.shutdown()

    assert second.rewards.tolist() == [0.0]  # a change of 0: the episode keeps 0.5 (the old code: -0.5)
    assert second.metadata[0]["episode_reward"] == 0.5 and second.terminateds.tolist() == [True]


def test_too_many_faults_raise_from_step_and_the_environment_goes_on() -> None:
    env = UnitTestEnvironment({"workers": 1, "timeout_s": 10.0, "faults": {"window": 1, "max_fault_rate": 0}})
    info = env_info_for_problem(sum_problem())
    try:
        with pytest.raises(
            InfrastructureFaultError, match="100% of the last 1 samples were infrastructure faults"
        ):
            _lost_step(env, conversation(SLEEPY), info)
        after = env.step([conversation(answer(CORRECT_SUM))], [info])
    finally:
        env.shutdown()
    assert after.rewards.tolist() == [1.0]


def test_a_misspelled_faults_key_is_refused() -> None:
    with pytest.raises(ValueError, match="did you mean 'window'"):
        UnitTestEnvironment({"workers": 1, "faults": {"windw": 4}})
