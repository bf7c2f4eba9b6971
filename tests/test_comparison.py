from __future__ import annotations

import doctest
import json
import math
import random
from decimal import Decimal

import pytest

from nemo_code_rl.unit_tests import comparison
from nemo_code_rl.unit_tests.comparison import (
    GYM_VALUE_COMPARISON,
    ComparisonConfig,
    ValueComparisonConfig,
    compare,
    compare_json,
    compare_values,
    stripped_lines,
)


def test_docstring_examples() -> None:
    assert doctest.testmod(comparison).failed == 0


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        ("3\n", "3"),
        ("  3  \n\n\n", "3"),
        ("1 2 3 \n4\n", "1 2 3\n4"),
        ("1\r\n2\r\n", "1\n2\n"),
        ("1.0\n", "1"),
        ("1e2", "100"),
        ("2  3", "2 3"),
        ("-0", "0"),
        ("0.50", ".5"),
        ("nan", "nan"),
        ("", ""),
        ("\n", ""),
        ("YES", "YES"),
        ("a b\n\nc", "a b\n\nc"),
    ],
)
def test_default_accepts(actual: str, expected: str) -> None:
    assert compare(actual, expected).passed


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        ("-1", "1"),
        ("", "0"),
        ("1\n2", "1 2"),
        ("a\n\nb", "a\nb"),
        ("YES  1", "YES 1"),
        ("yes", "YES"),
        ("nan", "NaN"),
        ("0.30000000000000004", "0.3"),
        ("50000000000000001", "50000000000000000"),
        ("1 2", "1 2 3"),
        ("sNaN 1", "sNaN  1"),
        ("0x10", "16"),
    ],
)
def test_default_rejects(actual: str, expected: str) -> None:
    assert not compare(actual, expected).passed


def test_stripped_lines_follow_livecodebench() -> None:
    assert stripped_lines("") == [""]
    assert stripped_lines("\n\n a \n\n b \n") == ["a", "", "b"]


def _reference_lines_rule(actual: str, expected: str) -> bool:
    """The LiveCodeBench / NeMo Gym rule, written out plainly for a differential test."""
    got = [line.strip() for line in actual.strip().split("\n")]
    want = [line.strip() for line in expected.strip().split("\n")]
    if len(got) != len(want):
        return False
    for got_line, want_line in zip(got, want, strict=True):
        if got_line == want_line:
            continue
        try:
            got_numbers = [Decimal(token) for token in got_line.split()]
            want_numbers = [Decimal(token) for token in want_line.split()]
            if got_numbers != want_numbers:
                return False
        except ArithmeticError:
            return False
    return True


def test_default_matches_the_reference_rule_on_random_outputs() -> None:
    pieces = [
        "1",
        "1.0",
        "01",
        "-0",
        "2",
        "1e1",
        "10",
        "a",
        "A",
        "nan",
        "inf",
        " ",
        "  ",
        "\n",
        "\n\n",
        "\t",
        "\r\n",
    ]
    rng = random.Random(1234)
    disagreements = []
    for _ in range(5000):
        actual = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
        expected = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
        if compare(actual, expected).passed != _reference_lines_rule(actual, expected):
            disagreements.append((actual, expected))
    assert disagreements == []


def test_reason_names_line_and_values() -> None:
    result = compare("1\n5\n3", "1\n2\n3")
    assert result.reason == "line 2: expected '2', got '5'"


def test_reason_for_line_count_mismatch_names_first_difference() -> None:
    reason = compare("1\n9", "1\n2\n3").reason
    assert reason == "expected 3 lines, got 2; first difference at line 2: expected '2', got '9'"
    assert compare("1\n2", "1\n2\n3").reason == "expected 3 lines, got 2"


def test_reason_truncates_long_lines() -> None:
    reason = compare("x" * 1000, "y" * 1000).reason
    assert len(reason) < 200
    assert "..." in reason


def test_passing_result_has_empty_reason() -> None:
    assert compare("1", "1").reason == ""


def test_float_tolerance() -> None:
    absolute = ComparisonConfig(abs_tol=1e-6)
    assert compare("0.30000000000000004", "0.3", absolute).passed
    assert compare("3.1415930", "3.1415926", absolute).passed
    assert not compare("3.1416", "3.1415926", absolute).passed
    relative = ComparisonConfig(rel_tol=1e-3)
    assert compare("1000.5", "1000", relative).passed
    assert not compare("1002", "1000.0", relative).passed


def test_tolerance_never_relaxes_integers_or_specials() -> None:
    config = ComparisonConfig(rel_tol=1e-3)
    assert not compare("1001", "1000", config).passed
    assert compare("1000.0", "1000", config).passed
    assert not compare("inf", "1e400", config).passed
    assert compare("inf", "Infinity", config).passed
    assert not compare("nan", "0.0", config).passed


def test_tolerance_applies_per_token_and_words_must_match() -> None:
    config = ComparisonConfig(abs_tol=1e-6)
    assert compare("2.0000001 3", "2 3.0", config).passed
    assert not compare("YES 2.0000001", "YES 2", config).passed


def test_tokens_mode_ignores_line_structure() -> None:
    config = ComparisonConfig(mode="tokens")
    assert compare("1 2\n3\n", "1\n2   3", config).passed
    assert compare("YES 1.0", "YES\n1", config).passed
    assert compare("a\n\nb", "a\nb", config).passed
    assert compare("1 2", "1 2 3", config).reason == "expected 3 tokens, got 2"
    assert compare("1 5 3", "1 2 3", config).reason == "token 2: expected '2', got '5'"


def test_case_insensitive() -> None:
    config = ComparisonConfig(case_sensitive=False)
    assert compare("yes\nNo", "YES\nno", config).passed
    assert compare("Yes  1", "YES 1", ComparisonConfig(mode="tokens", case_sensitive=False)).passed
    assert not compare("yes", "no", config).passed


@pytest.mark.parametrize(
    "kwargs", [{"mode": "exact"}, {"abs_tol": -1.0}, {"rel_tol": float("nan")}, {"abs_tol": True}]
)
def test_invalid_configs_are_rejected(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        ComparisonConfig(**kwargs)


def _gym_rollouts(fixtures_dir) -> list[dict]:
    path = fixtures_dir / "nemo_gym" / "code_gen_example_rollouts.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_agrees_with_gym_verdicts_on_recorded_outputs(fixtures_dir) -> None:
    judged = 0
    for rollout in _gym_rollouts(fixtures_dir):
        metadata = rollout["metadata"]
        if "output" not in metadata or "expected" not in metadata:
            continue
        judged += 1
        gym_passed = metadata.get("error_code") != -2
        result = compare(metadata["output"], metadata["expected"])
        assert result.passed == gym_passed, (metadata, result)
        message = metadata["error_message"]
        if "mismatched output length" in message:
            assert result.reason.startswith("expected ")
        else:
            assert result.reason.startswith("line 1:")
    assert judged == 4


def test_gym_problems_expected_outputs_match_themselves(fixtures_dir) -> None:
    path = fixtures_dir / "nemo_gym" / "code_gen_example.jsonl"
    for line in path.read_text().splitlines():
        for output in json.loads(line)["verifier_metadata"]["unit_tests"]["outputs"]:
            assert compare(output, output).passed
            assert compare(output.rstrip() + "\n\n", output).passed


def test_values_lists_and_tuples_are_equivalent() -> None:
    assert compare_values([1, [2, 3]], ((1, (2, 3)))).passed
    assert compare_values([[1, 2], [3]], [[1, 2], [3]]).passed
    assert not compare_values([1, 2], [1, 2, 3]).passed


def test_values_dicts_and_reasons() -> None:
    assert compare_values({"a": [1], "b": None}, {"b": None, "a": [1]}).passed
    assert (
        compare_values({"a": 1}, {"a": 1, "b": 2}).reason == "dict keys differ (missing ['b'], unexpected [])"
    )
    assert compare_values([1, [2, 9]], [1, [2, 3]]).reason == "at [1][1]: expected 3, got 9"
    assert compare_values("3", 3).reason == 'expected 3, got "3"'


def test_values_numbers_follow_python_equality() -> None:
    assert compare_values(1, 1.0).passed
    assert compare_values(True, 1).passed
    assert compare_values(float("nan"), float("nan")).passed
    assert not compare_values(0.1 + 0.2, 0.3).passed
    assert not compare_values(None, 0).passed
    assert not compare_values("a", ["a"]).passed


def test_values_float_tolerance() -> None:
    config = ValueComparisonConfig(abs_tol=1e-9)
    assert compare_values([0.1 + 0.2], [0.3], config).passed
    assert not compare_values([10**17 + 1], [10**17], ValueComparisonConfig(rel_tol=1e-3)).passed
    assert compare_values(0.1 + 0.2, 0.3, GYM_VALUE_COMPARISON).passed
    assert compare_values(1.000001, 1.0, GYM_VALUE_COMPARISON).passed
    assert not compare_values(1.001, 1.0, GYM_VALUE_COMPARISON).passed
    assert not compare_values(10**400, 1.5, config).passed


def test_values_singleton_unwrapping_is_opt_in() -> None:
    apps = ValueComparisonConfig(unwrap_singleton=True)
    assert compare_values(5, [5], apps).passed
    assert compare_values([5], [5], apps).passed
    assert not compare_values(5, [5]).passed
    assert not compare_values(5, [5, 5], apps).passed


def test_compare_json() -> None:
    assert compare_json("[1, 2.0]", "[1, 2]").passed
    assert compare_json("NaN", "NaN").passed
    result = compare_json("not json", "1")
    assert not result.passed
    assert result.reason.startswith("returned value is not JSON")


def test_values_results_agree_with_isclose() -> None:
    config = ValueComparisonConfig(rel_tol=1e-6, abs_tol=1e-12)
    rng = random.Random(7)
    for _ in range(1000):
        a = rng.uniform(-1e3, 1e3)
        b = a * (1 + rng.uniform(-1e-5, 1e-5))
        assert compare_values(a, b, config).passed == math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
