"""Pure metric functions: repetition, truncation and verification statistics."""

from __future__ import annotations

import doctest

import pytest

from nemo_code_rl import training_metrics as metrics
from nemo_code_rl.training_metrics import (
    SampleOutcome,
    has_unclosed_fence,
    max_ngram_coverage,
    response_metrics,
    verification_metrics,
)


def test_docstring_examples() -> None:
    assert doctest.testmod(metrics).failed == 0


def test_ngram_coverage() -> None:
    assert max_ngram_coverage([], 4) == 0.0
    assert max_ngram_coverage(list("abcabc"), 4) == 0.0  # shorter than two n-grams
    assert max_ngram_coverage(list("abcdefgh"), 2) == 0.0  # nothing repeats
    assert max_ngram_coverage(list("aaaaaaaa"), 2) == 1.0  # overlapping occurrences count tokens once
    assert max_ngram_coverage(list("abxyabzw"), 2) == pytest.approx(4 / 8)
    # a loop that repeats one line dominates a real program
    program = ["n", "=", "int(input())", "for", "i", "in", "range(n):", "print(i)"]
    loop = [
        *program,
        "print(0)",
        "print(0)",
        "print(0)",
        "print(0)",
        "print(0)",
        "print(0)",
        "print(0)",
        "print(0)",
    ]
    assert max_ngram_coverage(program, 4) == 0.0
    assert max_ngram_coverage(loop, 4) > 0.3
    with pytest.raises(ValueError):
        max_ngram_coverage(["a"], 0)


def test_unclosed_fence() -> None:
    assert not has_unclosed_fence("no code")
    assert not has_unclosed_fence("```python\nx = 1\n```\nand\n```\ny\n```")
    assert has_unclosed_fence("```python\nx = 1\n```\n```python\nwhile True:\n")
    assert has_unclosed_fence("  ```py\nindented fence, cut off")


def test_response_metrics() -> None:
    texts = ["```python\nprint(1)\n```", "```python\n" + "print(0)\n" * 40, ""]
    result = response_metrics(texts, truncated=[False, True, False])
    assert result["responses"] == 3
    assert result["truncation_rate"] == pytest.approx(1 / 3)
    assert result["unclosed_fence_rate"] == pytest.approx(1 / 3)
    assert result["repetition_rate"] == pytest.approx(1 / 3)
    assert result["response_chars_max"] == len(texts[1])
    assert "truncation_rate" not in response_metrics(texts)
    assert response_metrics([])["responses"] == 0


def _outcome(problem: str, passed: bool | None, **fields) -> SampleOutcome:
    defaults = {
        "format_ok": True,
        "ran_without_error": bool(passed),
        "fraction_passed": float(bool(passed)),
        "reward": float(bool(passed)),
    }
    return SampleOutcome(problem, passed=passed, **{**defaults, **fields})


def test_verification_metrics_rates_leave_faults_out() -> None:
    outcomes = [
        _outcome("a", True, verdicts={"passed": 3}, execution_s=0.3),
        _outcome("a", False, verdicts={"passed": 1, "runtime_error": 1, "not_run": 1}, execution_s=0.2),
        _outcome("a", False, format_ok=False),
        _outcome("b", False, verdicts={"timeout": 1, "not_run": 2}, execution_s=2.0, timeout_lost_s=2.0),
        _outcome("b", False, verdicts={"memory_limit": 1}),
        _outcome("c", None, infra_fault=True, verdicts={"worker_lost": 1}),
        SampleOutcome(None, passed=None, bad_metadata=True),
    ]
    result = verification_metrics(outcomes)
    assert result["samples"] == 7 and result["judged_samples"] == 5
    assert result["infra_faults"] == 1 and result["infra_fault_rate"] == pytest.approx(1 / 7)
    assert result["bad_metadata"] == 1
    assert result["format_rate"] == pytest.approx(4 / 5)
    assert result["pass_rate"] == pytest.approx(1 / 5)
    assert result["ran_without_error_rate"] == pytest.approx(1 / 5)
    assert (result["verdict/timeout"], result["verdict/runtime_error"], result["verdict/memory_limit"]) == (
        1,
        1,
        1,
    )
    assert result["verdict/worker_lost"] == 1
    assert result["execution_s"] == pytest.approx(2.5)
    assert result["timeout_lost_fraction"] == pytest.approx(0.8)
    # problems a and b had judged samples; a was solved; b's samples all got 0: no GRPO signal
    assert result["problems"] == 2 and result["solved_problem_rate"] == 0.5
    assert result["uniform_reward_group_rate"] == 0.5
    assert "first_turn_pass_rate" not in result


def test_verification_metrics_of_multi_turn_episodes() -> None:
    outcomes = [
        _outcome("a", False, turn=1, terminal=False),
        _outcome("a", True, turn=2),
        _outcome("b", True, turn=1),
        _outcome("c", False, turn=1, terminal=False),
        _outcome("c", False, turn=2, terminal=False),
        _outcome("c", False, turn=3),
    ]
    result = verification_metrics(outcomes)
    assert result["first_turn_pass_rate"] == pytest.approx(1 / 3)
    assert result["episode_pass_rate"] == pytest.approx(2 / 3)
    assert result["mean_turns_per_finished_episode"] == pytest.approx(2.0)
    assert result["solved_after_feedback"] == 1
    assert result["solved_problem_rate"] == pytest.approx(2 / 3)


def test_empty_step() -> None:
    result = verification_metrics([])
    assert result["samples"] == 0 and result["pass_rate"] == 0.0 and result["timeout_lost_fraction"] == 0.0
