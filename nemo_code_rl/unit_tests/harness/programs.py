"""Turn a problem's tests into engine programs, and engine results back into test outcomes.

One engine program per (problem, candidate): stdin/stdout tests run the candidate itself;
call-based and assert-based tests run a driver (see ``call_driver`` and ``assert_driver``) that
loads the candidate. Expected answers never reach the candidate's process: stdout and returned
values are compared by the worker's supervisor (``judging``), which no program is forked from,
and assert-based test code reaches only the driver's process.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from nemo_code_rl.engine import ExecutionResult, Limits, Program, Verdict
from nemo_code_rl.engine.languages import CompileSettings, Language
from nemo_code_rl.engine.results import Judgement
from nemo_code_rl.unit_tests.comparison import ComparisonConfig, ValueComparisonConfig
from nemo_code_rl.unit_tests.harness import assert_driver, call_driver, codec, judging
from nemo_code_rl.unit_tests.problems import Problem

_HERE = Path(__file__).parent


@cache
def _prelude(driver: str) -> str:
    return "\n\n".join((_HERE / name).read_text() for name in ("codec.py", driver))


def build_program(
    problem: Problem,
    code: str,
    tests: list[int],
    limits: Limits,
    judge: dict[str, Any] | None = None,
    language: Language = Language.PYTHON,
    compile_settings: CompileSettings | None = None,
) -> Program:
    """The engine program that runs ``code`` on the selected tests of ``problem``; with ``judge``
    (``judge_spec``), the worker judges its results. Only stdin/stdout tests run another language
    than Python (``compile_settings`` compiles it); call and assert tests are Python drivers."""
    if problem.kind == "stdio":
        stdin = [problem.inputs[i] for i in tests]
        return Program(code, stdin, limits=limits, judge=judge, language=language, compile=compile_settings)
    if language is not Language.PYTHON:
        raise ValueError(f"{problem.kind} tests run Python only, not {language}")
    if problem.kind == "call":
        source = _prelude("call_driver.py") + f"\nrun_call({code!r}, {problem.fn_name!r})\n"
        return Program(source, [problem.inputs[i] for i in tests], limits=limits, judge=judge)
    source = _prelude("assert_driver.py") + f"\nrun_tests({problem.entry_point!r})\n"
    inputs = [_assert_input(problem, code, i) for i in tests]
    return Program(source, inputs, limits=limits, private=True, judge=judge)


def assert_units(problem: Problem) -> list[str]:
    """The separately judged pieces of an assert-based problem: each MBPP assert, or HumanEval's check."""
    return list(problem.test_list) if problem.test_list else [problem.test_code or ""]


def test_count(problem: Problem) -> int:
    return len(assert_units(problem)) if problem.kind == "assert" else len(problem.inputs)


def _assert_input(problem: Problem, code: str, index: int) -> bytes:
    candidate = json.dumps(code).encode()
    tests = json.dumps(
        {
            "helpers": problem.trusted_helpers,
            "setup": problem.setup_code or "",
            "test": assert_units(problem)[index],
        }
    ).encode()
    header = f"{len(candidate)} {len(tests)}".encode().ljust(assert_driver.HEADER_BYTES)
    return header + candidate + tests


def judge(
    problem: Problem,
    test: int,
    result: ExecutionResult,
    comparison: ComparisonConfig,
    values: ValueComparisonConfig,
) -> Judgement:
    """Judge one engine result against test ``test`` of ``problem`` (where no worker judged it)."""
    expected = problem.outputs[test] if problem.kind != "assert" else ""
    return judging.judge(problem.kind, expected, result, comparison, values)


def judge_spec(
    problem: Problem, tests: list[int], comparison: ComparisonConfig, values: ValueComparisonConfig
) -> dict[str, Any]:
    """What a worker needs to judge the program ``build_program`` makes for these tests."""
    expected = [problem.outputs[i] for i in tests] if problem.kind != "assert" else []
    return judging.spec(problem.kind, expected, comparison, values)


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
