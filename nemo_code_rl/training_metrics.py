"""Per-step training metrics of code judged by unit tests, as pure functions of plain data.

Two kinds of signal matter when RL on code goes wrong, and both are here:

- what verification saw (``verification_metrics``): format failures, crashes, timeouts, memory
  kills, infrastructure faults and the time they cost, pass rates, and the share of GRPO groups
  whose samples all got one reward (they carry no learning signal);
- what the responses look like (``response_metrics``): length, truncation (hitting the generation
  limit, or a code fence left open) and repetition, the usual signs of a collapsing policy.

Rates are over the samples the policy can be judged on: infrastructure faults and unreadable
metadata are counted on their own and left out of every rate, so a flaky sandbox shows up as
faults, not as a worse policy.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nemo_code_rl.unit_tests.verification import Verification

DEFAULT_NGRAM = 4
DEFAULT_REPETITION_THRESHOLD = 0.3


@dataclass(frozen=True)
class SampleOutcome:
    """What one ``step`` established about one sample (one attempt of one episode).

    Attributes:
        problem_id: the problem, to group the samples of one GRPO prompt; ``None`` when unreadable.
        turn: the attempt's number in its episode, from 1.
        terminal: the episode ended with this attempt.
        format_ok: code was found in the response.
        passed: every test passed; ``None`` when unknown (infrastructure fault, bad metadata).
        fraction_passed: tests passed over tests run (0 without code).
        ran_without_error: every test ran to completion (wrong answers allowed).
        verdicts: how many tests got each verdict (``timeout``, ``runtime_error``, ...).
        infra_fault: the sandbox failed; the verdict says nothing about the policy.
        bad_metadata: the sample's problem could not be read.
        execution_s / timeout_lost_s: sandbox time spent, and the part spent on tests that timed out.
        reward: the episode's reward after this attempt.
    """

    problem_id: str | None
    turn: int = 1
    terminal: bool = True
    format_ok: bool = False
    passed: bool | None = False
    fraction_passed: float = 0.0
    ran_without_error: bool = False
    verdicts: Mapping[str, int] = field(default_factory=dict)
    infra_fault: bool = False
    bad_metadata: bool = False
    execution_s: float = 0.0
    timeout_lost_s: float = 0.0
    reward: float = 0.0

    @property
    def judged(self) -> bool:
        """The attempt says something about the policy."""
        return not (self.infra_fault or self.bad_metadata)


def verification_outcome(
    verification: Verification, reward: float, *, turn: int = 1, terminal: bool = True
) -> SampleOutcome:
    """The record of one attempt judged against unit tests (``reward`` as finally given)."""
    return SampleOutcome(
        problem_id=verification.problem_id,
        turn=turn,
        terminal=terminal,
        format_ok=verification.format_ok,
        passed=verification.passed,
        fraction_passed=verification.n_passed / verification.n_total if verification.n_total else 0.0,
        ran_without_error=verification.ran_without_error,
        verdicts=dict(Counter(test.verdict for test in verification.tests)),
        infra_fault=verification.infra_fault,
        execution_s=verification.execution_s,
        timeout_lost_s=verification.timeout_lost_s,
        reward=reward,
    )


def verification_metrics(outcomes: Sequence[SampleOutcome]) -> dict[str, float]:
    """Rates, verdict counts and costs of a step's attempts (see the module doc).

    >>> ok = SampleOutcome("p", format_ok=True, passed=True, fraction_passed=1.0, ran_without_error=True,
    ...                    verdicts={"passed": 2}, reward=1.0)
    >>> slow = SampleOutcome("p", format_ok=True, fraction_passed=0.5, verdicts={"passed": 1, "timeout": 1},
    ...                      execution_s=3.0, timeout_lost_s=2.0)
    >>> m = verification_metrics([ok, slow, SampleOutcome("q", infra_fault=True, passed=None)])
    >>> m["pass_rate"], m["mean_fraction_passed"], m["verdict/timeout"], m["infra_faults"]
    (0.5, 0.75, 1.0, 1.0)
    """
    judged = [o for o in outcomes if o.judged]
    execution_s = sum(o.execution_s for o in outcomes)
    timeout_lost_s = sum(o.timeout_lost_s for o in outcomes)
    metrics: dict[str, float] = {
        "samples": float(len(outcomes)),
        "judged_samples": float(len(judged)),
        "infra_faults": float(sum(o.infra_fault for o in outcomes)),
        "infra_fault_rate": _rate(o.infra_fault for o in outcomes),
        "bad_metadata": float(sum(o.bad_metadata for o in outcomes)),
        "format_rate": _rate(o.format_ok for o in judged),
        "ran_without_error_rate": _rate(o.ran_without_error for o in judged),
        "pass_rate": _rate(bool(o.passed) for o in judged),
        "mean_fraction_passed": fmean(o.fraction_passed for o in judged) if judged else 0.0,
        "mean_reward": fmean(o.reward for o in judged) if judged else 0.0,
        "execution_s": execution_s,
        "execution_s_per_sample": execution_s / len(outcomes) if outcomes else 0.0,
        "timeout_lost_s": timeout_lost_s,
        "timeout_lost_fraction": timeout_lost_s / execution_s if execution_s > 0 else 0.0,
    }
    verdicts: Counter[str] = Counter()
    for outcome in outcomes:
        verdicts.update(outcome.verdicts)
    metrics.update({f"verdict/{name}": float(count) for name, count in sorted(verdicts.items())})
    metrics.update(_group_metrics([o for o in judged if o.terminal]))
    if any(o.turn > 1 for o in outcomes):
        metrics.update(_turn_metrics(outcomes))
    return metrics


def response_metrics(
    texts: Sequence[str],
    truncated: Sequence[bool] | None = None,
    *,
    ngram: int = DEFAULT_NGRAM,
    repetition_threshold: float = DEFAULT_REPETITION_THRESHOLD,
) -> dict[str, float]:
    """Length, truncation and repetition of the policy's responses.

    Args:
        texts: each sample's response text (for multi-turn, its assistant turns joined).
        truncated: whether each response hit the generation limit, when the trainer knows it.
        ngram / repetition_threshold: a response is repetitive when its most repeated word
            ``ngram`` covers more than ``repetition_threshold`` of its words.

    >>> m = response_metrics(["```python\\nprint(1)\\n```", "x = 1 " * 50, "```python\\nwhile True:"])
    >>> m["unclosed_fence_rate"], m["repetition_rate"]
    (0.3333333333333333, 0.3333333333333333)
    """
    coverages = [max_ngram_coverage(text.split(), ngram) for text in texts]
    metrics = {
        "responses": float(len(texts)),
        "response_chars_mean": fmean(len(text) for text in texts) if texts else 0.0,
        "response_chars_max": float(max((len(text) for text in texts), default=0)),
        "unclosed_fence_rate": _rate(has_unclosed_fence(text) for text in texts),
        "max_ngram_coverage_mean": fmean(coverages) if coverages else 0.0,
        "repetition_rate": _rate(coverage > repetition_threshold for coverage in coverages),
    }
    if truncated is not None:
        metrics["truncation_rate"] = _rate(bool(flag) for flag in truncated)
    return metrics


def max_ngram_coverage(tokens: Sequence[Hashable], n: int = DEFAULT_NGRAM) -> float:
    """The fraction of ``tokens`` covered by the occurrences of the most repeated ``n``-gram.

    Overlapping occurrences count each covered token once. An n-gram seen only once is not a
    repetition, so text without any repeated n-gram scores 0.

    >>> max_ngram_coverage("a b c d a b c d a b c d".split(), 4)
    1.0
    >>> max_ngram_coverage("the quick brown fox jumps over the lazy dog".split(), 2)
    0.0
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if len(tokens) < 2 * n:
        return 0.0
    starts: dict[tuple[Hashable, ...], list[int]] = defaultdict(list)
    for index in range(len(tokens) - n + 1):
        starts[tuple(tokens[index : index + n])].append(index)
    positions = max(starts.values(), key=len)
    if len(positions) < 2:
        return 0.0
    covered = n + sum(min(n, later - earlier) for earlier, later in itertools.pairwise(positions))
    return covered / len(tokens)


def has_unclosed_fence(text: str) -> bool:
    """The response opened a code fence it never closed: the sign of a cut-off answer.

    >>> has_unclosed_fence("```python\\nprint(1)\\n```"), has_unclosed_fence("```python\\nprint(1)")
    (False, True)
    """
    fences = sum(line.lstrip().startswith("```") for line in text.splitlines())
    return fences % 2 == 1


def _group_metrics(final: Sequence[SampleOutcome]) -> dict[str, float]:
    """Per-problem view of finished episodes: how many problems were solved at least once, and
    how many multi-sample groups got one reward for every sample (zero GRPO advantage)."""
    groups: dict[str, list[SampleOutcome]] = defaultdict(list)
    for outcome in final:
        if outcome.problem_id is not None:
            groups[outcome.problem_id].append(outcome)
    sampled = [group for group in groups.values() if len(group) > 1]
    return {
        "problems": float(len(groups)),
        "solved_problem_rate": _rate(any(o.passed for o in group) for group in groups.values()),
        "uniform_reward_group_rate": _rate(len({o.reward for o in group}) == 1 for group in sampled),
    }


def _turn_metrics(outcomes: Sequence[SampleOutcome]) -> dict[str, float]:
    first = [o for o in outcomes if o.turn == 1 and o.judged]
    final = [o for o in outcomes if o.terminal and o.judged]
    return {
        "first_turn_pass_rate": _rate(bool(o.passed) for o in first),
        "episode_pass_rate": _rate(bool(o.passed) for o in final),
        "mean_turns_per_finished_episode": fmean(o.turn for o in final) if final else 0.0,
        "solved_after_feedback": float(sum(bool(o.passed) and o.turn > 1 for o in final)),
    }


def _rate(flags: Iterable[bool]) -> float:
    values = list(flags)
    return sum(values) / len(values) if values else 0.0
