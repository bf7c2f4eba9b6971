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
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext
from typing import Any, Literal

from nemo_code_rl.config_keys import ConfigSection, config_section

ComparisonMode = Literal["lines", "tokens"]

_INTEGER = re.compile(r"[+-]?\d+")
_SHOWN_CHARS = 60


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

    @property
    def has_tolerance(self) -> bool:
        return self.abs_tol > 0 or self.rel_tol > 0


@dataclass(frozen=True)
class ComparisonResult:
    """A verdict and, when it failed, where: ``line 3: expected '1', got '-1'`` (text truncated)."""

    passed: bool
    reason: str = ""


def compare(actual: str, expected: str, config: ComparisonConfig | None = None) -> ComparisonResult:
    """Compare a program's stdout with the expected output.

    >>> compare("1.0\\n2 3\\n", "1\\n2   3").passed
    True
    >>> compare("-1\\n", "1\\n").reason
    "line 1: expected '1', got '-1'"
    """
    config = config or ComparisonConfig()
    if config.mode == "tokens":
        return _compare_tokens(actual, expected, config)
    return _compare_lines(actual, expected, config)


def stripped_lines(text: str) -> list[str]:
    """The lines the ``lines`` mode compares: whole text stripped, split on ``\\n``, each stripped.

    Empty output is one empty line, as in LiveCodeBench.

    >>> stripped_lines("  a \\r\\n\\n b\\n\\n")
    ['a', '', 'b']
    """
    return [line.strip() for line in text.strip().split("\n")]


def _compare_lines(actual: str, expected: str, config: ComparisonConfig) -> ComparisonResult:
    if _fold(actual.strip(), config) == _fold(expected.strip(), config):
        return ComparisonResult(True)
    got_lines = stripped_lines(actual)
    want_lines = stripped_lines(expected)
    first = next(
        (
            index
            for index, (got, want) in enumerate(zip(got_lines, want_lines, strict=False))
            if not _lines_match(got, want, config)
        ),
        None,
    )
    if len(got_lines) != len(want_lines):
        reason = f"expected {_count(len(want_lines), 'line')}, got {len(got_lines)}"
        if first is not None:
            reason += f"; first difference at {_difference(first, want_lines, got_lines)}"
        return ComparisonResult(False, reason)
    if first is None:
        return ComparisonResult(True)
    return ComparisonResult(False, _difference(first, want_lines, got_lines))


def _lines_match(got: str, want: str, config: ComparisonConfig) -> bool:
    if _fold(got, config) == _fold(want, config):
        return True
    got_tokens = _fold(got, config).split()
    want_tokens = _fold(want, config).split()
    if len(got_tokens) != len(want_tokens):
        return False
    return all(_numbers_match(a, b, config) for a, b in zip(got_tokens, want_tokens, strict=True))


def _compare_tokens(actual: str, expected: str, config: ComparisonConfig) -> ComparisonResult:
    got_tokens = actual.split()
    want_tokens = expected.split()
    for index, (got, want) in enumerate(zip(got_tokens, want_tokens, strict=False)):
        folded_got, folded_want = _fold(got, config), _fold(want, config)
        if folded_got != folded_want and not _numbers_match(folded_got, folded_want, config):
            return ComparisonResult(False, f"token {index + 1}: expected {_show(want)}, got {_show(got)}")
    if len(got_tokens) != len(want_tokens):
        return ComparisonResult(False, f"expected {_count(len(want_tokens), 'token')}, got {len(got_tokens)}")
    return ComparisonResult(True)


def _numbers_match(got: str, want: str, config: ComparisonConfig) -> bool:
    """Both tokens are numbers, and equal (or within tolerance where one is not an integer)."""
    try:
        got_number, want_number = Decimal(got), Decimal(want)
    except InvalidOperation:
        return False
    if got_number.is_nan() or want_number.is_nan():
        return False
    if got_number == want_number:
        return True
    if not config.has_tolerance or got_number.is_infinite() or want_number.is_infinite():
        return False
    if _INTEGER.fullmatch(got) and _INTEGER.fullmatch(want):
        return False
    with localcontext() as context:
        context.prec = max(len(got), len(want)) + 30
        try:
            difference = abs(got_number - want_number)
            scale = max(abs(got_number), abs(want_number))
            abs_tol, rel_tol = Decimal(repr(float(config.abs_tol))), Decimal(repr(float(config.rel_tol)))
            return difference <= max(abs_tol, rel_tol * scale)
        except ArithmeticError:
            return False


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
    config = config or ValueComparisonConfig()
    difference = _value_difference(actual, expected, config, "")
    if difference is None:
        return ComparisonResult(True)
    if config.unwrap_singleton and isinstance(expected, (list, tuple)) and len(expected) == 1:
        if _value_difference(actual, expected[0], config, "") is None:
            return ComparisonResult(True)
    return ComparisonResult(False, difference)


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
        return ComparisonResult(False, f"returned value is not JSON ({error}): {_show(actual_json)}")
    return compare_values(actual, json.loads(expected_json), config)


def _value_difference(actual: Any, expected: Any, config: ValueComparisonConfig, path: str) -> str | None:
    where = f"at {path}: " if path else ""
    if _is_number(actual) and _is_number(expected):
        if _numbers_close(actual, expected, config):
            return None
        return f"{where}expected {_show_value(expected)}, got {_show_value(actual)}"
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            return f"{where}expected a list of {len(expected)}, got a list of {len(actual)}"
        for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
            difference = _value_difference(got, want, config, f"{path}[{index}]")
            if difference is not None:
                return difference
        return None
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual) != set(expected):
            missing = sorted(map(str, set(expected) - set(actual)))
            extra = sorted(map(str, set(actual) - set(expected)))
            return f"{where}dict keys differ (missing {missing}, unexpected {extra})"
        for key, want in expected.items():
            difference = _value_difference(actual[key], want, config, f"{path}[{key!r}]")
            if difference is not None:
                return difference
        return None
    if type(actual) is type(expected) and isinstance(actual, (str, type(None))) and actual == expected:
        return None
    return f"{where}expected {_show_value(expected)}, got {_show_value(actual)}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float))


def _numbers_close(actual: float, expected: float, config: ValueComparisonConfig) -> bool:
    if actual == expected:
        return True
    if not (isinstance(actual, float) or isinstance(expected, float)):
        return False
    if all(isinstance(value, float) and math.isnan(value) for value in (actual, expected)):
        return True
    try:
        return math.isclose(actual, expected, rel_tol=config.rel_tol, abs_tol=config.abs_tol)
    except OverflowError:
        return False


def _fold(text: str, config: ComparisonConfig) -> str:
    return text if config.case_sensitive else text.casefold()


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _difference(index: int, want_lines: list[str], got_lines: list[str]) -> str:
    return f"line {index + 1}: expected {_show(want_lines[index])}, got {_show(got_lines[index])}"


def _truncate(text: str) -> str:
    if len(text) <= _SHOWN_CHARS:
        return text
    return text[: _SHOWN_CHARS - 20] + "..." + text[-17:]


def _show(text: str) -> str:
    return repr(_truncate(text))


def _show_value(value: Any) -> str:
    try:
        return _truncate(json.dumps(value))
    except (TypeError, ValueError):
        return _truncate(value_repr(value))


def value_repr(value: Any) -> str:
    """``repr`` of a decoded value that never raises: an int past Python's limit on printed digits
    (a program may return ``10**5000``) makes the value show as too large instead.

    >>> value_repr([1, 10**5000])
    '<list holding an int too large to print>'
    """
    try:
        return repr(value)
    except ValueError:
        return f"<{type(value).__name__} holding an int too large to print>"
