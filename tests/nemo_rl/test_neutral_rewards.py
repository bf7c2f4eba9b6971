"""Samples the sandbox could not judge get a neutral reward, never a failing one."""

import doctest

from nemo_code_rl.environments import neutral_rewards as module
from nemo_code_rl.environments.neutral_rewards import neutral_rewards


def test_unjudged_samples_get_their_group_mean():
    ids = ["p", "p", "p", "q", "q", None]
    rewards = [1.0, 1.0, None, None, 0.0, None]
    assert neutral_rewards(ids, rewards) == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]


def test_no_judged_peer_falls_back_to_zero():
    assert neutral_rewards(["p", "p"], [None, None]) == [0.0, 0.0]


def test_doctest():
    assert doctest.testmod(module).failed == 0
