"""What every adapter does with a sample the sandbox could not judge (an infrastructure fault).

GRPO turns rewards into advantages within the group of samples of one prompt, so a fault scored
0 would push the model down for the sandbox's failure, and a fault that stops training would let
one lost worker end a run. One policy, shared by the NeMo RL environments, the TRL rewards and
the Gym server:

1. **Retry once.** The engine already re-runs a program whose worker died once and reports
   ``worker_lost`` only after a second loss (the Ray pool re-runs a lost actor's share), so a
   per-sample fault has had its retry when it arrives here; a verifier call that fails as a
   whole is retried once by ``FaultPolicy.verify``.
2. **A neutral reward** for what is still unjudged: the mean of the problem's recent judged
   rewards, remembered across calls (under async GRPO a call holds one sample, so the current
   call alone has no peers), else the mean of recent judged rewards of every problem, else 0
   before anything was judged. Memory is bounded: ``history`` rewards for each of at most
   ``problems`` problems, the least recently judged forgotten first.
3. **Multi-turn:** a faulted turn after a judged one keeps that episode reward (a reward change
   of 0), never a negative change that would erase the earlier turn's reward.
4. **Counted, and bounded:** each fault is flagged by its adapter and counted here
   (``metrics``); when more than ``max_fault_rate`` of the last ``window`` samples faulted, the
   call raises ``InfrastructureFaultError`` with the last cause, after its results are recorded,
   so a broken sandbox stops the run instead of training on made-up rewards. The environment
   actor itself stays alive.

The statuses are ``nemo_code_rl.outcomes.AttemptStatus``: ``INFRA_FAULT`` marks what this
policy settles.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any, TypeVar

from nemo_code_rl.config_keys import ConfigError, ConfigSection, config_section
from nemo_code_rl.outcomes import AttemptStatus

logger = logging.getLogger(__name__)

Job = TypeVar("Job")
Result = TypeVar("Result")


class InfrastructureFaultError(RuntimeError):
    """Too many samples of recent calls could not be judged: the sandbox, not the model, is failing."""


@config_section
class FaultPolicyConfig(ConfigSection):
    """The policy's bounds (the ``faults`` section of an environment, TRL reward or Gym server).

    Attributes:
        history: judged rewards remembered per problem for the neutral reward.
        problems: problems remembered at most.
        window: samples (across calls) over which the fault rate is measured; it is measured once
            that many were seen, or on a call that alone holds that many.
        max_fault_rate: a call after which the measured fault rate exceeds this raises.
    """

    WHERE = "faults"

    history: int = 32
    problems: int = 4096
    window: int = 128
    max_fault_rate: float = 0.5

    def __post_init__(self) -> None:
        for name in ("history", "problems", "window"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        rate = self.max_fault_rate
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise ConfigError(f"max_fault_rate must be a number from 0 to 1, got {rate!r}")


@dataclass(frozen=True)
class Attempt:
    """One sample as the policy sees it.

    Attributes:
        group: the problem's id (its GRPO group); ``None`` when unknown.
        reward: the judged reward, or ``None`` when an infrastructure fault left it unjudged.
        previous: the episode's reward after its last judged turn, for a turn after the first.
        cause: why it was not judged (kept for the error a bounded fault rate raises).
    """

    group: str | None
    reward: float | None
    previous: float | None = None
    cause: str = ""

    @property
    def status(self) -> AttemptStatus:
        return AttemptStatus.INFRA_FAULT if self.reward is None else AttemptStatus.JUDGED


@dataclass(frozen=True)
class Settlement:
    """The rewards of one call's attempts, and whether the fault rate now exceeds its bound.

    Attributes:
        rewards: one per attempt: the judged reward, or the one this policy gives a fault.
        faults: how many attempts were faults.
        error: set when the measured fault rate exceeds ``max_fault_rate``; ``raise_if_failed``
            raises it (after the caller has recorded the call's metrics).
    """

    rewards: list[float]
    faults: int
    error: str | None = None

    def raise_if_failed(self) -> None:
        if self.error is not None:
            raise InfrastructureFaultError(self.error)


class FaultPolicy:
    """The policy of the module doc; thread-safe (concurrent ``step`` calls and requests share it)."""

    def __init__(self, config: FaultPolicyConfig | Mapping[str, Any] | None = None) -> None:
        self.config = FaultPolicyConfig.from_dict(config)
        self._lock = threading.Lock()
        self._by_problem: OrderedDict[str, deque[float]] = OrderedDict()
        self._recent: deque[float] = deque(maxlen=self.config.window)
        self._window: deque[bool] = deque(maxlen=self.config.window)
        self._counts = dict.fromkeys(
            ("faults", "batch_retries", "batch_losses", "neutral_from_problem", "neutral_from_all",
             "neutral_none", "kept_episode_reward"),
            0,
        )  # fmt: skip
        self._last_cause = ""

    def verify(
        self, verify: Callable[[Sequence[Job]], list[Result]], jobs: list[Job]
    ) -> tuple[list[Result] | None, str]:
        """``verify(jobs)``, retried once if it raises; ``(None, cause)`` when both calls failed."""
        cause = ""
        for attempt in (1, 2):
            try:
                return verify(jobs), ""
            except Exception as error:  # any failure of the whole call is the infrastructure's
                cause = f"verification of {len(jobs)} samples failed: {type(error).__name__}: {error}"
                logger.warning("%s (attempt %d of 2)", cause, attempt, exc_info=attempt == 2)
                with self._lock:
                    self._counts["batch_retries" if attempt == 1 else "batch_losses"] += 1
        return None, cause

    def settle(self, attempts: Sequence[Attempt]) -> Settlement:
        """Record the judged rewards, then give every fault its reward (see the module doc)."""
        with self._lock:
            for attempt in attempts:
                if attempt.reward is not None and attempt.group is not None:
                    self._remember(attempt.group, attempt.reward)
            rewards = [self._reward(attempt) for attempt in attempts]
            faults = [attempt.status is AttemptStatus.INFRA_FAULT for attempt in attempts]
            self._window.extend(faults)
            for attempt in attempts:
                if attempt.reward is None:
                    self._last_cause = attempt.cause or self._last_cause
            n_faults = sum(faults)
            self._counts["faults"] += n_faults
            return Settlement(rewards, n_faults, self._rate_error(faults))

    def metrics(self) -> dict[str, float]:
        """Counts since the start: faults, whole-call retries and losses, where neutral rewards came from."""
        with self._lock:
            counts = {f"faults/{name}": float(count) for name, count in self._counts.items()}
            counts["faults/window_rate"] = sum(self._window) / len(self._window) if self._window else 0.0
            return counts

    def _remember(self, group: str, reward: float) -> None:
        rewards = self._by_problem.pop(group, None)
        if rewards is None:
            rewards = deque(maxlen=self.config.history)
        rewards.append(reward)
        self._by_problem[group] = rewards
        while len(self._by_problem) > self.config.problems:
            self._by_problem.popitem(last=False)
        self._recent.append(reward)

    def _reward(self, attempt: Attempt) -> float:
        if attempt.reward is not None:
            return attempt.reward
        if attempt.previous is not None:
            self._counts["kept_episode_reward"] += 1
            return attempt.previous
        group = self._by_problem.get(attempt.group) if attempt.group is not None else None
        if group:
            self._counts["neutral_from_problem"] += 1
            return fmean(group)
        if self._recent:
            self._counts["neutral_from_all"] += 1
            return fmean(self._recent)
        self._counts["neutral_none"] += 1
        return 0.0

    def _rate_error(self, faults: list[bool]) -> str | None:
        window = self.config.window
        if len(faults) >= window:
            rate = sum(faults) / len(faults)
        elif len(self._window) >= window:
            rate = sum(self._window) / len(self._window)
        else:
            return None
        if rate <= self.config.max_fault_rate:
            return None
        return (
            f"{rate:.0%} of the last {max(len(faults), len(self._window))} samples were infrastructure "
            f"faults (more than faults.max_fault_rate = {self.config.max_fault_rate:g}); last cause: "
            f"{self._last_cause or 'unknown'}"
        )
