"""Turn the outcome of verifying one completion into a scalar GRPO reward.

An infrastructure fault (a lost worker, a sandbox that failed to start) says nothing about the
policy, so it yields ``None``: the caller must drop or retry the sample, never train on a made-up
score. ``REWARD_VERSION`` changes whenever a mode's numbers change, so logged rewards can be told
apart across versions.

Modes:
    ``binary`` (default): 1.0 iff every test passed, else 0.0.
    ``fraction``: the fraction of tests passed (partial credit).
    ``shaped``: a weighted sum of four signals, each 0 or 1 except the fraction:
        the answer had extractable code (``format_ok``, default weight 0.1), every test ran to
        completion without a runtime error or timeout (``ran_without_error``, 0.1), the fraction
        of tests passed (0.3), all tests passed (0.5). Weights sum to 1, so a full solution
        scores 1.0 and a missing answer 0.0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from nemo_code_rl.config_keys import ConfigSection, config_section

REWARD_VERSION = "1"

RewardMode = Literal["binary", "fraction", "shaped"]


@dataclass(frozen=True)
class VerificationSummary:
    """What verifying one completion established.

    Attributes:
        format_ok: code could be extracted from the completion.
        ran_without_error: every test ran to completion (wrong answers allowed; runtime errors,
            timeouts and resource-limit kills not).
        n_passed / n_total: tests passed, out of the problem's tests.
        infra_fault: the verdict is unknown because the infrastructure failed.
    """

    format_ok: bool
    ran_without_error: bool
    n_passed: int
    n_total: int
    infra_fault: bool = False

    def __post_init__(self) -> None:
        if self.n_total < 1:
            raise ValueError(f"n_total must be at least 1, got {self.n_total}")
        if not 0 <= self.n_passed <= self.n_total:
            raise ValueError(f"n_passed must be in [0, {self.n_total}], got {self.n_passed}")
        if not self.format_ok and (self.n_passed or self.ran_without_error):
            raise ValueError("a completion without code cannot have run or passed tests")

    @property
    def all_passed(self) -> bool:
        return self.format_ok and self.n_passed == self.n_total


@config_section
class ShapedWeights(ConfigSection):
    """Weights of the ``shaped`` reward; non-negative and summing to 1."""

    WHERE = "reward.weights"

    format_ok: float = 0.1
    ran_without_error: float = 0.1
    fraction_passed: float = 0.3
    all_passed: float = 0.5

    def __post_init__(self) -> None:
        weights = (self.format_ok, self.ran_without_error, self.fraction_passed, self.all_passed)
        if any(not weight >= 0 for weight in weights):
            raise ValueError(f"shaped reward weights must be >= 0, got {weights}")
        if not math.isclose(sum(weights), 1.0, abs_tol=1e-9):
            raise ValueError(f"shaped reward weights must sum to 1, got {sum(weights)}")


@config_section
class RewardConfig(ConfigSection):
    """Which reward mode to use, and the weights of ``shaped``."""

    WHERE = "reward"

    mode: RewardMode = "binary"
    weights: ShapedWeights = field(default_factory=ShapedWeights)


def compute_reward(summary: VerificationSummary, config: RewardConfig | None = None) -> float | None:
    """The reward for one verified completion, or ``None`` on an infrastructure fault.

    >>> summary = VerificationSummary(format_ok=True, ran_without_error=True, n_passed=3, n_total=4)
    >>> compute_reward(summary), compute_reward(summary, RewardConfig(mode="fraction"))
    (0.0, 0.75)
    >>> round(compute_reward(summary, RewardConfig(mode="shaped")), 3)
    0.425
    """
    config = config or RewardConfig()
    if summary.infra_fault:
        return None
    fraction = summary.n_passed / summary.n_total
    if config.mode == "binary":
        return 1.0 if summary.all_passed else 0.0
    if config.mode == "fraction":
        return fraction
    weights = config.weights
    return (
        weights.format_ok * summary.format_ok
        + weights.ran_without_error * summary.ran_without_error
        + weights.fraction_passed * fraction
        + weights.all_passed * summary.all_passed
    )
