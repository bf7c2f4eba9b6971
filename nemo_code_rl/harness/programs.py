"""Turn a problem's tests into engine programs, and engine results back into test outcomes.

One engine program per (problem, candidate): stdin/stdout tests run the candidate itself;
call-based and assert-based tests run a driver (see ``call_driver`` and ``assert_driver``) that
loads the candidate. Expected answers never enter the candidate's sandbox: stdout and returned
values are compared here, and assert-based test code reaches only the driver's process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from nemo_code_rl.comparison import (
    ComparisonConfig,
    ValueComparisonConfig,
    compare,
    compare_values,
    value_repr,
)
from nemo_code_rl.engine import ExecutionResult, Limits, Program, Verdict
from nemo_code_rl.harness import assert_driver, call_driver, codec
from nemo_code_rl.problems import Problem

_HERE = Path(__file__).parent


@cache
def _prelude(driver: str) -> str:
    return "\n\n".join((_HERE / name).read_text() for name in ("codec.py", driver))


@dataclass(frozen=True)
class Judgement:
    """How one test went: a test verdict and, for humans, why."""

    verdict: Verdict
    detail: str = ""
    got: str = ""


def build_program(problem: Problem, code: str, tests: list[int], limits: Limits) -> Program:
    """The engine program that runs ``code`` on the selected tests of ``problem``."""
    if problem.kind == "stdio":
        return Program(code, [problem.inputs[i] for i in tests], limits=limits)
    if problem.kind == "call":
        source = _prelude("call_driver.py") + f"\nrun_call({code!r}, {problem.fn_name!r})\n"
        return Program(source, [problem.inputs[i] for i in tests], limits=limits)
    source = _prelude("assert_driver.py") + f"\nrun_tests({problem.entry_point!r})\n"
    return Program(source, [_assert_input(problem, code, i) for i in tests], limits=limits, private=True)


def assert_units(problem: Problem) -> list[str]:
    """The separately judged pieces of an assert-based problem: each MBPP assert, or HumanEval's check."""
    return list(problem.test_list) if problem.test_list else [problem.test_code or ""]


def test_count(problem: Problem) -> int:
    return len(assert_units(problem)) if problem.kind == "assert" else len(problem.inputs)


def _assert_input(problem: Problem, code: str, index: int) -> bytes:
    candidate = json.dumps(code).encode()
    tests = json.dumps(
        {
            "helpers": trusted_helpers(problem),
            "setup": problem.setup_code or "",
            "test": assert_units(problem)[index],
        }
    ).encode()
    header = f"{len(candidate)} {len(tests)}".encode().ljust(assert_driver.HEADER_BYTES)
    return header + candidate + tests


def trusted_helpers(problem: Problem) -> str:
    """Code the tests may rely on that must come from the data, not the candidate (HumanEval's prompt)."""
    return problem.prompt if problem.source_format == "humaneval" else ""


def judge(
    problem: Problem,
    test: int,
    result: ExecutionResult,
    comparison: ComparisonConfig,
    values: ValueComparisonConfig,
) -> Judgement:
    """Judge one engine result against test ``test`` of ``problem``."""
    if result.verdict is Verdict.NOT_RUN:
        return Judgement(Verdict.NOT_RUN)
    if problem.kind == "assert":
        return _judge_assert(result)
    if result.verdict is not Verdict.OK:
        return Judgement(_engine_verdict(result), result.error, result.stdout)
    if problem.kind == "stdio":
        outcome = compare(result.stdout, problem.outputs[test], comparison)
        return Judgement(
            Verdict.PASSED if outcome.passed else Verdict.WRONG_ANSWER, outcome.reason, result.stdout
        )
    return _judge_call(problem, test, result, values)


def _judge_call(
    problem: Problem, test: int, result: ExecutionResult, values: ValueComparisonConfig
) -> Judgement:
    lines = [line for line in result.stdout.splitlines() if line.startswith(call_driver.RESULT_MARKER)]
    if not lines:
        return Judgement(Verdict.WRONG_ANSWER, "the function returned no value")
    try:
        actual = codec.loads(lines[-1][len(call_driver.RESULT_MARKER) :])
    except codec.NotPlainData as exc:
        return Judgement(Verdict.WRONG_ANSWER, f"unreadable return value: {exc}")
    expected = json.loads(problem.outputs[test])
    outcome = compare_values(actual, expected, values)
    return Judgement(
        Verdict.PASSED if outcome.passed else Verdict.WRONG_ANSWER, outcome.reason, value_repr(actual)[:1000]
    )


def _judge_assert(result: ExecutionResult) -> Judgement:
    passed = result.stdout.rstrip("\n").endswith(assert_driver.PASS_MARKER)
    if result.verdict is Verdict.OK and passed:
        return Judgement(Verdict.PASSED)
    if result.verdict is Verdict.OK:
        return Judgement(Verdict.WRONG_ANSWER, "the tests did not run to their end")
    if result.verdict is Verdict.RUNTIME_ERROR and result.error.startswith("AssertionError"):
        return Judgement(Verdict.WRONG_ANSWER, _failed_assertion(result.stderr) or "an assertion failed")
    return Judgement(_engine_verdict(result), result.error)


def _engine_verdict(result: ExecutionResult) -> Verdict:
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


def checker_source(checker: str) -> str:
    """A program that runs a special judge's ``check(input, expected, actual)`` on one test."""
    return _prelude("call_driver.py") + f"\nrun_call({checker!r}, 'check')\n"


def judge_checker(result: ExecutionResult, stdout: str) -> Judgement:
    """The verdict a special judge returned; a checker that fails is reported, not trusted."""
    if result.verdict is not Verdict.OK:
        return Judgement(
            Verdict.WRONG_ANSWER, f"the checker failed: {result.error or result.verdict.value}", stdout
        )
    lines = [line for line in result.stdout.splitlines() if line.startswith(call_driver.RESULT_MARKER)]
    try:
        verdict = codec.loads(lines[-1][len(call_driver.RESULT_MARKER) :]) if lines else None
    except codec.NotPlainData:
        verdict = None
    if verdict is True:
        return Judgement(Verdict.PASSED, "accepted by the checker", stdout)
    return Judgement(Verdict.WRONG_ANSWER, "rejected by the checker", stdout)
