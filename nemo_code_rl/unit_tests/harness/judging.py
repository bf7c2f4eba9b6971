"""Judge a test's result against its expected output, where the program ran.

Each sandbox worker's supervisor judges its programs' results as their inputs end (``Judge``),
so the process that sent the batch only routes verdicts: judging scales with the workers, and
the programs' output stays in the worker. The supervisor already holds every job's data, and no
program is ever forked from it (the template, which has never held job data, forks them), so the
expected outputs a judge carries reach no program. This module is loaded by workers, which must
not import pydantic: the comparison settings arrive as plain data (``spec``) and the rules are
``comparison_rules``'s.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any, Literal, Protocol

from nemo_code_rl.engine.results import Judgement, Verdict
from nemo_code_rl.unit_tests.comparison_rules import (
    TextRules,
    ValueRules,
    compare_data,
    compare_text,
    value_repr,
)
from nemo_code_rl.unit_tests.harness import assert_driver, call_driver, codec

TestKind = Literal["stdio", "call", "assert"]


class Ran(Protocol):
    """What judging reads of a run: an ``ExecutionResult``, or in a worker, where each input is
    judged as it ends, the supervisor's result fields without the dataclass (``Judge.judged``)."""

    @property
    def verdict(self) -> Verdict: ...
    @property
    def stdout(self) -> str: ...
    @property
    def stderr(self) -> str: ...
    @property
    def error(self) -> str: ...


def spec(
    kind: TestKind, expected: Sequence[str], comparison: TextRules, values: ValueRules
) -> dict[str, Any]:
    """What a worker needs to judge a program's inputs, as plain data: ``expected[i]`` is the
    expected output of input ``i`` (stdout, or a call's return value as JSON; none for asserts)."""
    return {
        "module": __name__,
        "kind": kind,
        "expected": list(expected),
        "comparison": {name: getattr(comparison, name) for name in _fields(TextRules)},
        "values": {name: getattr(values, name) for name in _fields(ValueRules)},
    }


@functools.cache
def _fields(rules: type) -> tuple[str, ...]:
    """The settings a rules protocol reads (its properties); once per protocol, not per program."""
    return tuple(name for name, member in vars(rules).items() if isinstance(member, property))


class Judge:
    """Judges one program's results, in input order, from its ``spec``.

    Of the output, only what feedback can report is kept: the answer (``Judgement.got``) and the
    error output of the first input that failed. Every other result's stdout and stderr are
    dropped once judged; verdicts, details and timings stay.
    """

    def __init__(self, judge_spec: dict[str, Any]) -> None:
        self.kind: TestKind = judge_spec["kind"]
        self.expected: list[str] = judge_spec["expected"]
        self.comparison = SimpleNamespace(**judge_spec["comparison"])
        self.values = SimpleNamespace(**judge_spec["values"])
        self.failure_shown = False

    def judged(self, position: int, result: dict[str, Any]) -> dict[str, Any]:
        """A worker's result dict for input ``position``, with its judgement and only the output kept."""
        ran = SimpleNamespace(
            verdict=Verdict(result["verdict"]),
            stdout=result.get("stdout", ""),
            stderr=result.get("stderr", ""),
            error=result.get("error", ""),
        )
        expected = self.expected[position] if self.kind != "assert" else ""
        judgement = judge(self.kind, expected, ran, self.comparison, self.values)
        shown = not self.failure_shown and judgement.verdict not in (Verdict.PASSED, Verdict.NOT_RUN)
        self.failure_shown = self.failure_shown or shown
        if not shown:
            judgement = Judgement(judgement.verdict, judgement.detail)
        return {
            **result,
            "stdout": "",
            "stderr": result.get("stderr", "") if shown else "",
            "judgement": judgement,
        }


def judge(kind: TestKind, expected: str, result: Ran, comparison: TextRules, values: ValueRules) -> Judgement:
    """Judge one engine result of a test of ``kind`` whose expected output is ``expected``."""
    if result.verdict is Verdict.NOT_RUN:
        return Judgement(Verdict.NOT_RUN)
    if kind == "assert":
        return _judge_assert(result)
    if result.verdict is not Verdict.OK:
        return Judgement(_engine_verdict(result), result.error, result.stdout)
    if kind == "stdio":
        outcome = compare_text(result.stdout, expected, comparison)
        return Judgement(
            Verdict.PASSED if outcome.passed else Verdict.WRONG_ANSWER, outcome.reason, result.stdout
        )
    return _judge_call(expected, result, values)


def _judge_call(expected: str, result: Ran, values: ValueRules) -> Judgement:
    lines = [line for line in result.stdout.splitlines() if line.startswith(call_driver.RESULT_MARKER)]
    if not lines:
        return Judgement(Verdict.WRONG_ANSWER, "the function returned no value")
    try:
        actual = codec.loads(lines[-1][len(call_driver.RESULT_MARKER) :])
    except codec.NotPlainData as exc:
        return Judgement(Verdict.WRONG_ANSWER, f"unreadable return value: {exc}")
    outcome = compare_data(actual, json.loads(expected), values)
    return Judgement(
        Verdict.PASSED if outcome.passed else Verdict.WRONG_ANSWER, outcome.reason, value_repr(actual)[:1000]
    )


def _judge_assert(result: Ran) -> Judgement:
    passed = result.stdout.rstrip("\n").endswith(assert_driver.PASS_MARKER)
    if result.verdict is Verdict.OK and passed:
        return Judgement(Verdict.PASSED)
    if result.verdict is Verdict.OK:
        return Judgement(Verdict.WRONG_ANSWER, "the tests did not run to their end")
    if result.verdict is Verdict.RUNTIME_ERROR and result.error.startswith("AssertionError"):
        return Judgement(Verdict.WRONG_ANSWER, _failed_assertion(result.stderr) or "an assertion failed")
    return Judgement(_engine_verdict(result), result.error)


def _engine_verdict(result: Ran) -> Verdict:
    """The engine's verdict, except that a candidate the driver could not compile is a syntax error."""
    if result.verdict is Verdict.RUNTIME_ERROR and result.error.startswith(
        ("SyntaxError", "CandidateSyntaxError")
    ):
        return Verdict.SYNTAX_ERROR
    return result.verdict


def _failed_assertion(stderr: str) -> str:
    """The test line that failed, from the driver's traceback."""
    lines = stderr.rstrip().splitlines()
    failing = ""
    for number, line in enumerate(lines[:-1]):
        if line.strip().startswith('File "test.py"'):
            failing = lines[number + 1].strip()
    return f"failed: {failing}" if failing else ""
