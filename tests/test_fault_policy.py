"""The one infrastructure-fault policy (``nemo_code_rl.fault_policy``): its rules on plain attempts,
and the TRL reward under the async shape (one sample per call) with a real lost sandbox worker."""

from __future__ import annotations

import pytest

from nemo_code_rl.benchmarking.easy_problems import easy_problems
from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.fault_policy import (
    Attempt,
    FaultPolicy,
    FaultPolicyConfig,
    InfrastructureFaultError,
)
from nemo_code_rl.integrations.trl import UnitTestReward, trl_rows
from tests.engine.conftest import kill_workers_later
from tests.nemo_rl.helpers import answer

TRAIN, _ = easy_problems()
ADD = next(p for p in TRAIN if p.id.startswith("add_") and not p.id.endswith("each"))
ADD_ROW = trl_rows([ADD])[0]


def test_a_fault_gets_its_problems_recent_level_across_calls() -> None:
    policy = FaultPolicy()
    assert policy.settle([Attempt("p", 1.0)]).rewards == [1.0]
    assert policy.settle([Attempt("p", 0.0)]).rewards == [0.0]
    assert policy.settle([Attempt("q", 1.0)]).rewards == [1.0]

    settled = policy.settle([Attempt("p", None, cause="lost")])

    assert settled.rewards == [0.5] and settled.faults == 1  # p's level, not 0 and not q's
    # a problem never judged gets the level of every recent judged sample; a call's own peers count
    assert policy.settle([Attempt("r", None)]).rewards == [pytest.approx(2 / 3)]
    assert policy.settle([Attempt("q", 0.0), Attempt("q", None)]).rewards == [0.0, 0.5]
    metrics = policy.metrics()
    assert metrics["faults/faults"] == 3.0
    assert metrics["faults/neutral_from_problem"] == 2.0 and metrics["faults/neutral_from_all"] == 1.0


def test_before_anything_is_judged_a_fault_gets_0() -> None:
    policy = FaultPolicy()
    assert policy.settle([Attempt("p", None)]).rewards == [0.0]
    assert policy.metrics()["faults/neutral_none"] == 1.0


def test_a_faulted_later_turn_keeps_the_episode_reward() -> None:
    policy = FaultPolicy()
    policy.settle([Attempt("p", 1.0)])
    assert policy.settle([Attempt("p", None, previous=0.25)]).rewards == [0.25]
    assert policy.metrics()["faults/kept_episode_reward"] == 1.0


def test_memory_is_bounded() -> None:
    policy = FaultPolicy({"history": 2, "problems": 2})
    policy.settle([Attempt("p", 0.0), Attempt("p", 1.0), Attempt("p", 1.0)])  # p keeps its last two
    assert policy.settle([Attempt("p", None)]).rewards == [1.0]
    policy.settle([Attempt("q", 0.0)])
    policy.settle([Attempt("r", 0.0)])  # p, the least recently judged, is forgotten
    assert policy.settle([Attempt("p", None)]).rewards != [1.0]


def test_a_fault_rate_above_the_bound_raises_with_the_cause() -> None:
    policy = FaultPolicy({"window": 4, "max_fault_rate": 0.5})
    for reward in (1.0, None, 1.0):
        policy.settle([Attempt("p", reward, cause="worker lost")]).raise_if_failed()  # window not full
    policy.settle([Attempt("p", None, cause="worker lost")]).raise_if_failed()  # 2 of 4: at the bound
    settled = policy.settle([Attempt("p", None, cause="worker lost on node 3")])  # 3 of the last 4

    assert settled.rewards == [1.0]  # the call's rewards are settled before it raises
    with pytest.raises(InfrastructureFaultError, match=r"75% of the last 4 samples.*worker lost on node 3"):
        settled.raise_if_failed()
    # one call larger than the window is measured on its own
    big = FaultPolicy({"window": 2}).settle([Attempt("p", None), Attempt("p", None), Attempt("p", 1.0)])
    assert big.error is not None and "67% of the last 3" in big.error


def test_a_failed_call_is_retried_once() -> None:
    policy = FaultPolicy()
    calls: list[list[int]] = []

    def flaky(jobs: list[int]) -> list[int]:
        calls.append(jobs)
        if len(calls) == 1:
            raise ConnectionError("engine restarting")
        return [job * 2 for job in jobs]

    assert policy.verify(flaky, [1, 2]) == ([2, 4], "")

    def broken(jobs: list[int]) -> list[int]:
        raise ConnectionError("engine gone")

    results, cause = policy.verify(broken, [1])
    assert results is None and "ConnectionError: engine gone" in cause
    metrics = policy.metrics()
    assert metrics["faults/batch_retries"] == 2.0 and metrics["faults/batch_losses"] == 1.0


def test_config_keys_are_strict() -> None:
    with pytest.raises(ConfigError, match="did you mean 'max_fault_rate'"):
        FaultPolicyConfig.from_dict({"max_fault_rat": 0.1})
    with pytest.raises(ConfigError, match="from 0 to 1"):
        FaultPolicyConfig(max_fault_rate=2)


def test_trl_single_sample_calls_give_a_lost_sample_its_groups_level() -> None:
    """Async shape: each call holds one sample; the fault's peers were judged in earlier calls."""
    sleepy = answer(f"import time\ntime.sleep(3)\ndef {ADD.fn_name}(x):\n    return x + 1")
    correct, wrong = answer(ADD.reference_solution), answer(f"def {ADD.fn_name}(x):\n    return x")
    with UnitTestReward({"timeout_s": 10.0}, workers=1) as reward:
        first = reward([correct], code_problem_json=[ADD_ROW["code_problem_json"]])
        second = reward([wrong], code_problem_json=[ADD_ROW["code_problem_json"]])
        killer = kill_workers_later(reward.pool, rounds=2, delay=1.0)
        lost = reward([sleepy], code_problem_json=[ADD_ROW["code_problem_json"]])
        killer.join()

    assert (first, second) == ([1.0], [0.0])
    assert lost == [0.5]  # the old per-call mean gave 0: no judged peer in the call
    assert reward.last_metrics["infra_faults"] == 1.0
    assert reward.last_metrics["faults/neutral_from_problem"] == 1.0
