"""The environment class in process: faults of the sandbox never raise out of ``step``."""

from __future__ import annotations

import doctest

import pytest

pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")

from nemo_code_rl.environments import chat_turns, config
from nemo_code_rl.environments.code_environment import UnitTestEnvironment
from nemo_code_rl.processors import env_info_for_problem

from .helpers import CORRECT_SUM, answer, conversation, sum_problem


def test_docstring_examples() -> None:
    for module in (config, chat_turns):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_a_lost_sandbox_gives_flagged_neutral_rewards_not_an_exception() -> None:
    env = UnitTestEnvironment({"workers": 1, "timeout_s": 1.0})
    info = env_info_for_problem(sum_problem())
    assert env.step([conversation(answer(CORRECT_SUM))], [info]).rewards.tolist() == [1.0]
    env.shutdown()
    env.shutdown()  # idempotent

    result = env.step([conversation(answer(CORRECT_SUM)), conversation("no code")], [info, "garbage"])
    # the lost sample gets its problem's judged level (1.0 in the step before); bad metadata gets 0
    assert result.rewards.tolist() == [1.0, 0.0]
    assert result.terminateds.tolist() == [True, True]
    assert "shut down" in result.metadata[0]["result"]["error"]
    assert "must be a dict" in result.metadata[1]["result"]["error"]

    _, metrics = env.global_post_process_and_metrics({})
    assert (metrics["samples"], metrics["infra_faults"], metrics["bad_metadata"]) == (3, 1, 1)
    assert metrics["pass_rate"] == 1.0  # the faulted samples are not counted against the policy


def test_an_empty_batch() -> None:
    env = UnitTestEnvironment({"workers": 1})
    try:
        result = env.step([], [])
        assert result.rewards.shape == (0,) and result.observations == [] and result.answers == []
    finally:
        env.shutdown()


def test_a_completion_repeated_within_a_group_runs_once() -> None:
    slow_sum = "import time\ntime.sleep(0.3)\n" + CORRECT_SUM  # 0.3 s of sandbox time per test
    env = UnitTestEnvironment({"workers": 1, "timeout_s": 2.0})
    try:
        infos = [env_info_for_problem(sum_problem()) for _ in range(4)]  # as NeMo RL sends a group
        result = env.step([conversation(answer(slow_sum))] * 3 + [conversation("no code")], infos)
        _, metrics = env.global_post_process_and_metrics({})
    finally:
        env.shutdown()

    assert result.rewards.tolist() == [1.0, 1.0, 1.0, 0.0]
    assert metrics["verdict/passed"] == 6  # three samples of two tests each
    assert 0.55 < metrics["execution_s"] < 1.2  # one run of two tests, not three
