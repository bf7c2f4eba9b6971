"""Decide whether a program's output matches the expected output.

The default must give the same verdicts as LiveCodeBench and NeMo Gym ``code_gen`` (whose
``grade_stdio`` is LiveCodeBench's), otherwise rewards computed here would disagree with the
numbers people compare against. Their rule, reproduced by mode ``lines``:

1. strip both whole outputs, split them on ``"\\n"`` and strip every line;
2. the line counts must be equal;
3. each line pair must be identical, or both lines must be made entirely of numbers
   (``decimal.Decimal``-parsable tokens, split on whitespace) that are equal token for token, so
   ``1.0`` matches ``1`` and ``2  3`` matches ``2 3``, but ``YES  1`` does not match ``YES 1``.

Options, none of which is on by default: ``abs_tol`` / ``rel_tol`` let numbers that are not both
integers differ (integers stay exact, so a tolerance can never accept a wrong large count);
``mode="tokens"`` ignores line structure and compares whitespace-separated tokens, each identical
or numerically equal; ``case_sensitive=False`` compares case-folded text.

Call-based tests return values, not text: ``compare_values`` compares two values decoded from
JSON structurally (see its docstring).

The rules themselves are in ``comparison_rules`` (free of pydantic: sandbox workers' supervisors
run them); this module holds their settings and the entry points that default them.
"""

from __future__ import annotations

import json
from typing import Any

from nemo_code_rl.config_keys import ConfigSection, config_section
from nemo_code_rl.unit_tests.comparison_rules import (
    ComparisonMode,
    ComparisonResult,
    compare_data,
    compare_text,
    show_text,
    stripped_lines,
    value_repr,
)

__all__ = [
    "GYM_VALUE_COMPARISON",
    "ComparisonConfig",
    "ComparisonMode",
    "ComparisonResult",
    "ValueComparisonConfig",
    "compare",
    "compare_json",
    "compare_values",
    "stripped_lines",
    "value_repr",
]


@config_section
class ComparisonConfig(ConfigSection):
    """How stdout is compared with the expected output (defaults: LiveCodeBench / NeMo Gym).

    Args:
        mode: ``lines`` (line by line, LiveCodeBench rule) or ``tokens`` (whitespace-insensitive).
        abs_tol / rel_tol: numbers match when ``|a - b| <= max(abs_tol, rel_tol * max(|a|, |b|))``;
            applied only where at least one of the two tokens is not an integer.
        case_sensitive: ``False`` compares case-folded text (``YES`` matches ``yes``).
    """

    WHERE = "comparison"

    mode: ComparisonMode = "lines"
    abs_tol: float = 0.0
    rel_tol: float = 0.0
    case_sensitive: bool = True

    def __post_init__(self) -> None:
        for name in ("abs_tol", "rel_tol"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError(f"{name} must be a number >= 0, got {value!r}")


def compare(actual: str, expected: str, config: ComparisonConfig | None = None) -> ComparisonResult:
    """Compare a program's stdout with the expected output.

    >>> compare("1.0\\n2 3\\n", "1\\n2   3").passed
    True
    >>> compare("-1\\n", "1\\n").reason
    "line 1: expected '1', got '-1'"
    """
    return compare_text(actual, expected, config or ComparisonConfig())


@config_section
class ValueComparisonConfig(ConfigSection):
    """How call-based return values are compared.

    Args:
        abs_tol / rel_tol: floats match when ``math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)``;
            used only where at least one side is a float. ``GYM_VALUE_COMPARISON`` sets
            NumPy's ``allclose`` defaults, as NeMo Gym does.
        unwrap_singleton: an expected one-element list ``[x]`` also accepts ``x`` (the APPS / TACO
            convention for call-based outputs).
    """

    WHERE = "values"

    abs_tol: float = 0.0
    rel_tol: float = 0.0
    unwrap_singleton: bool = False

    def __post_init__(self) -> None:
        for name in ("abs_tol", "rel_tol"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError(f"{name} must be a number >= 0, got {value!r}")


GYM_VALUE_COMPARISON = ValueComparisonConfig(abs_tol=1e-8, rel_tol=1e-5)


def compare_values(
    actual: Any, expected: Any, config: ValueComparisonConfig | None = None
) -> ComparisonResult:
    """Compare two values decoded from JSON, structurally.

    Lists and tuples are the same (JSON has no tuples); dicts match when their keys and values do;
    numbers follow Python equality (``1 == 1.0 == True``, as LiveCodeBench's ``==`` does), with
    ``NaN`` equal to ``NaN`` (NeMo Gym also accepts equal ``json.dumps``); any other type pair must
    be equal values of the same type. Only plain data is compared, never a foreign ``__eq__``: the
    codec has already turned exact NumPy scalars into builtin numbers and a ``defaultdict`` into a
    dict; a ``Counter`` or ``OrderedDict`` compares as the dict it is (as their ``==`` with a dict
    does), and a ``deque`` equals no list (``deque([1]) == [1]`` is false in Python too).

    >>> compare_values([1, [2.0, "a"]], (1, (2, "a"))).passed
    True
    >>> compare_values({"k": [1, 2]}, {"k": [1, 3]}).reason
    "at ['k'][1]: expected 3, got 2"
    """
    return compare_data(actual, expected, config or ValueComparisonConfig())


def compare_json(
    actual_json: str, expected_json: str, config: ValueComparisonConfig | None = None
) -> ComparisonResult:
    """``compare_values`` on two JSON texts; output that is not JSON fails instead of raising.

    >>> compare_json("[1, 2]", "[1, 2]").passed
    True
    """
    try:
        actual = json.loads(actual_json)
    except ValueError as error:
        return ComparisonResult(False, f"returned value is not JSON ({error}): {show_text(actual_json)}")
    return compare_values(actual, json.loads(expected_json), config)
