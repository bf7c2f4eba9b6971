from __future__ import annotations

import doctest
import math

import pytest

from nemo_code_rl import passk
from nemo_code_rl.passk import STANDARD_KS, pass_at_k, pass_at_k_table
from nemo_code_rl.unit_tests import rewards
from nemo_code_rl.unit_tests.rewards import (
    REWARD_VERSION,
    RewardConfig,
    ShapedWeights,
    VerificationSummary,
    compute_reward,
)

BINARY = RewardConfig()
FRACTION = RewardConfig(mode="fraction")
SHAPED = RewardConfig(mode="shaped")


def _summary(format_ok=True, ran=True, passed=0, total=4, infra=False) -> VerificationSummary:
    return VerificationSummary(
        format_ok=format_ok, ran_without_error=ran, n_passed=passed, n_total=total, infra_fault=infra
    )


def test_docstring_examples() -> None:
    assert doctest.testmod(rewards).failed == 0
    assert doctest.testmod(passk).failed == 0


def test_reward_version_is_a_string() -> None:
    assert isinstance(REWARD_VERSION, str) and REWARD_VERSION


def test_binary_is_the_default() -> None:
    assert compute_reward(_summary(passed=4)) == 1.0
    assert compute_reward(_summary(passed=3)) == 0.0
    assert compute_reward(_summary(format_ok=False, ran=False)) == 0.0


def test_fraction() -> None:
    assert compute_reward(_summary(passed=1), FRACTION) == 0.25
    assert compute_reward(_summary(ran=False, passed=2), FRACTION) == 0.5


def test_shaped_defaults() -> None:
    assert compute_reward(_summary(format_ok=False, ran=False), SHAPED) == 0.0
    assert compute_reward(_summary(ran=False), SHAPED) == pytest.approx(0.1)
    assert compute_reward(_summary(passed=0), SHAPED) == pytest.approx(0.2)
    assert compute_reward(_summary(passed=2), SHAPED) == pytest.approx(0.35)
    assert compute_reward(_summary(passed=4), SHAPED) == pytest.approx(1.0)


def test_shaped_custom_weights() -> None:
    config = RewardConfig(mode="shaped", weights=ShapedWeights(0.0, 0.0, 1.0, 0.0))
    assert compute_reward(_summary(passed=3), config) == 0.75


@pytest.mark.parametrize("config", [BINARY, FRACTION, SHAPED])
def test_infrastructure_fault_is_never_scored(config: RewardConfig) -> None:
    assert compute_reward(_summary(passed=4, infra=True), config) is None
    assert compute_reward(_summary(ran=False, infra=True), config) is None


@pytest.mark.parametrize(
    "weights", [(0.5, 0.5, 0.5, 0.5), (-0.1, 0.1, 0.5, 0.5), (0.1, 0.1, 0.3, 0.4), (float("nan"), 0, 0, 1)]
)
def test_invalid_weights(weights: tuple) -> None:
    with pytest.raises(ValueError):
        ShapedWeights(*weights)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"total": 0},
        {"passed": 5},
        {"passed": -1},
        {"format_ok": False, "ran": True},
        {"format_ok": False, "ran": False, "passed": 1},
    ],
)
def test_inconsistent_summaries_are_rejected(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        _summary(**kwargs)


def test_unknown_mode() -> None:
    with pytest.raises(ValueError):
        RewardConfig(mode="partial")


def _chen_product_form(n: int, c: int, k: int) -> float:
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def test_pass_at_k_matches_the_product_form_of_chen_et_al() -> None:
    for n in (1, 2, 5, 10, 37, 200):
        for c in range(0, n + 1, max(1, n // 7)):
            for k in (1, 2, 5, 10, 100):
                if k <= n:
                    assert pass_at_k(n, c, k) == pytest.approx(_chen_product_form(n, c, k), abs=1e-12)


def test_pass_at_k_edges() -> None:
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(10, 6, 5) == 1.0
    assert pass_at_k(10, 4, 1) == 0.4
    assert pass_at_k(2000, 1, 1) == 1 / 2000


@pytest.mark.parametrize(("n", "c", "k"), [(5, 6, 1), (5, -1, 1), (5, 2, 0), (5, 2, 6)])
def test_pass_at_k_rejects_bad_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_table_keeps_only_ks_the_data_supports() -> None:
    results = {"a": [True] * 3 + [False] * 7, "b": [False] * 12}
    table = pass_at_k_table(results)
    assert list(table) == [1, 2, 5, 10]
    assert table[1] == pytest.approx((0.3 + 0.0) / 2)
    assert table[10] == pytest.approx(0.5)


def test_table_with_many_samples_reaches_100() -> None:
    table = pass_at_k_table([[i % 10 == 0 for i in range(100)]])
    assert list(table) == list(STANDARD_KS)
    assert table[1] == pytest.approx(0.1)
    assert table[100] == 1.0


def test_table_pass_at_1_is_mean_success_rate() -> None:
    results = [[True, False, False, True], [False, False, False, False], [True, True, True, True]]
    assert pass_at_k_table(results, ks=(1,)) == {1: pytest.approx((0.5 + 0.0 + 1.0) / 3)}


def test_table_rejects_empty_input() -> None:
    with pytest.raises(ValueError):
        pass_at_k_table({})
    with pytest.raises(ValueError):
        pass_at_k_table({"a": [True], "b": []})
