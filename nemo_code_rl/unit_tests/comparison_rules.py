"""The comparison rules themselves, as plain functions that need nothing beyond the standard library.

They run wherever outputs are judged: in each sandbox worker's supervisor (``harness.judging``),
which must stay free of pydantic, and in this process. ``nemo_code_rl.unit_tests.comparison`` documents the
rules and holds their settings (``ComparisonConfig``, ``ValueComparisonConfig``); here ``config`` is
anything with those settings' fields: the config itself, or its fields as plain data in a worker.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext
from typing import Any, Literal, Protocol

ComparisonMode = Literal["lines", "tokens"]

_INTEGER = re.compile(r"[+-]?\d+")
_SHOWN_CHARS = 60


class TextRules(Protocol):
    """The fields of ``comparison.ComparisonConfig`` that stdout comparison reads."""

    @property
    def mode(self) -> ComparisonMode: ...
    @property
    def abs_tol(self) -> float: ...
    @property
    def rel_tol(self) -> float: ...
    @property
    def case_sensitive(self) -> bool: ...


class ValueRules(Protocol):
    """The fields of ``comparison.ValueComparisonConfig`` that value comparison reads."""

    @property
    def abs_tol(self) -> float: ...
    @property
    def rel_tol(self) -> float: ...
    @property
    def unwrap_singleton(self) -> bool: ...


@dataclass(frozen=True)
class ComparisonResult:
    """A verdict and, when it failed, where: ``line 3: expected '1', got '-1'`` (text truncated)."""

    passed: bool
    reason: str = ""


def compare_text(actual: str, expected: str, config: TextRules) -> ComparisonResult:
    """Compare a program's stdout with the expected output (``comparison.compare``)."""
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


def _compare_lines(actual: str, expected: str, config: TextRules) -> ComparisonResult:
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


def _lines_match(got: str, want: str, config: TextRules) -> bool:
    if _fold(got, config) == _fold(want, config):
        return True
    got_tokens = _fold(got, config).split()
    want_tokens = _fold(want, config).split()
    if len(got_tokens) != len(want_tokens):
        return False
    return all(_numbers_match(a, b, config) for a, b in zip(got_tokens, want_tokens, strict=True))


def _compare_tokens(actual: str, expected: str, config: TextRules) -> ComparisonResult:
    got_tokens = actual.split()
    want_tokens = expected.split()
    for index, (got, want) in enumerate(zip(got_tokens, want_tokens, strict=False)):
        folded_got, folded_want = _fold(got, config), _fold(want, config)
        if folded_got != folded_want and not _numbers_match(folded_got, folded_want, config):
            return ComparisonResult(
                False, f"token {index + 1}: expected {show_text(want)}, got {show_text(got)}"
            )
    if len(got_tokens) != len(want_tokens):
        return ComparisonResult(False, f"expected {_count(len(want_tokens), 'token')}, got {len(got_tokens)}")
    return ComparisonResult(True)


def _numbers_match(got: str, want: str, config: TextRules) -> bool:
    """Both tokens are numbers, and equal (or within tolerance where one is not an integer)."""
    try:
        got_number, want_number = Decimal(got), Decimal(want)
    except InvalidOperation:
        return False
    if got_number.is_nan() or want_number.is_nan():
        return False
    if got_number == want_number:
        return True
    if (
        not (config.abs_tol > 0 or config.rel_tol > 0)
        or got_number.is_infinite()
        or want_number.is_infinite()
    ):
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


def compare_data(actual: Any, expected: Any, config: ValueRules) -> ComparisonResult:
    """Compare two values decoded from JSON, structurally (``comparison.compare_values``)."""
    difference = _value_difference(actual, expected, config, "")
    if difference is None:
        return ComparisonResult(True)
    if config.unwrap_singleton and isinstance(expected, (list, tuple)) and len(expected) == 1:  # noqa: SIM102 - two conditions, two reasons
        if _value_difference(actual, expected[0], config, "") is None:
            return ComparisonResult(True)
    return ComparisonResult(False, difference)


def _value_difference(actual: Any, expected: Any, config: ValueRules, path: str) -> str | None:
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


def _numbers_close(actual: float, expected: float, config: ValueRules) -> bool:
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


def _fold(text: str, config: TextRules) -> str:
    return text if config.case_sensitive else text.casefold()


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _difference(index: int, want_lines: list[str], got_lines: list[str]) -> str:
    return f"line {index + 1}: expected {show_text(want_lines[index])}, got {show_text(got_lines[index])}"


def _truncate(text: str) -> str:
    if len(text) <= _SHOWN_CHARS:
        return text
    return text[: _SHOWN_CHARS - 20] + "..." + text[-17:]


def show_text(text: str) -> str:
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
