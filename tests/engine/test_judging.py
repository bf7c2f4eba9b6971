"""Programs that come with a judge are judged in the worker: the pool's process gets verdicts, and
of the output only what feedback can show (the first failing input's answer and error output).
Expected outputs stay in the supervisor: a later program scanning its memory finds none."""

from __future__ import annotations

import uuid

import pytest

from nemo_code_rl import Program, Verdict
from nemo_code_rl.unit_tests.comparison import ComparisonConfig, ValueComparisonConfig
from nemo_code_rl.unit_tests.harness import judging, programs
from nemo_code_rl.unit_tests.problems import parse_problem
from tests.isolation_probes import MEMORY_SCANNER, stdout_of

DOUBLE_AND_WARN = "import sys\nn = int(input())\nprint(n * 2)\nprint('warned', n, file=sys.stderr)\n"


def _stdio_judge(expected: list[str]) -> dict:
    return judging.spec("stdio", expected, ComparisonConfig(), ValueComparisonConfig())


def test_the_worker_judges_and_returns_only_the_first_failures_output(pool):
    program = Program(DOUBLE_AND_WARN, ["1", "2", "3", "4"], judge=_stdio_judge(["2", "5", "6", "9"]))
    results = pool.run(program)
    judgements = [r.judgement for r in results]
    assert [j.verdict for j in judgements] == [
        Verdict.PASSED,
        Verdict.WRONG_ANSWER,
        Verdict.PASSED,
        Verdict.WRONG_ANSWER,
    ]
    assert judgements[1].detail == "line 1: expected '5', got '4'"
    assert (judgements[1].got, results[1].stderr) == ("4\n", "warned 2\n")
    assert judgements[3].detail == "line 1: expected '9', got '8'"
    for position in (0, 2, 3):
        assert (results[position].stdout, results[position].stderr, judgements[position].got) == ("", "", "")
    assert results[1].stdout == ""
    assert all(r.verdict is Verdict.OK for r in results)


def test_streamed_results_are_judged_too(pool):
    seen = []

    def stop_at_first_failure(program: int, position: int, result) -> bool:
        seen.append(result.judgement.verdict)
        return result.judgement.verdict is not Verdict.PASSED

    program = Program(DOUBLE_AND_WARN, ["1", "2", "3"], judge=_stdio_judge(["2", "5", "6"]))
    results = pool.run_batch([program], stop_when=stop_at_first_failure)[0]
    assert seen[:2] == [Verdict.PASSED, Verdict.WRONG_ANSWER]
    assert results[1].judgement.got == "4\n"


def test_results_the_worker_makes_itself_are_judged(pool):
    results = pool.run(Program("print(", ["1", "2"], judge=_stdio_judge(["1", "2"])))
    assert [r.judgement.verdict for r in results] == [Verdict.SYNTAX_ERROR, Verdict.SYNTAX_ERROR]
    assert results[0].judgement.detail.startswith("SyntaxError")
    looping = Program("while True:\n    pass\n", ["1", "2"], judge=_stdio_judge(["1", "2"]))
    limits = pool.limits.with_overrides(timeout_s=0.5, stop_after_timeout=True)
    results = pool.run(Program(looping.source, looping.inputs, limits=limits, judge=looping.judge))
    assert [r.judgement.verdict for r in results] == [Verdict.TIMEOUT, Verdict.NOT_RUN]


def test_call_based_tests_are_judged_in_the_worker(pool):
    problem = parse_problem(
        {
            "id": "call",
            "question": "",
            "input_output": '{"fn_name": "twice", "inputs": [[1], [2]], "outputs": [2, 5]}',
        }
    )
    spec = programs.judge_spec(problem, [0, 1], ComparisonConfig(), ValueComparisonConfig())
    program = programs.build_program(problem, "def twice(n):\n    return 2 * n\n", [0, 1], pool.limits, spec)
    judgements = [r.judgement for r in pool.run(program)]
    assert [j.verdict for j in judgements] == [Verdict.PASSED, Verdict.WRONG_ANSWER]
    assert (judgements[1].detail, judgements[1].got) == ("expected 5, got 4", "4")


def test_expected_outputs_never_reach_a_program(pool):
    """The judge's expected outputs live in the supervisor, never in the template programs are
    forked from: a program scanning its memory sees no more copies of them than of a control
    needle no job used (see ``isolation_probes.assert_children_never_see_earlier_jobs_in_memory``)."""
    secret, control = f"expected{uuid.uuid4().hex}", f"expected{uuid.uuid4().hex}"
    for _ in range(pool.size):
        results = pool.run(Program("print(input())", ["x"], judge=_stdio_judge([secret])))
        assert results[0].judgement.verdict is Verdict.WRONG_ANSWER
    seen = controls = 0
    for secret_first in (True, False):
        pair = [secret, control] if secret_first else [control, secret]
        needles = "\n".join([uuid.uuid4().hex, *pair, uuid.uuid4().hex])
        for _ in range(pool.size):
            counts = [int(n) for n in stdout_of(pool, MEMORY_SCANNER, needles).split()][1:-1]
            seen += counts[0] if secret_first else counts[1]
            controls += counts[1] if secret_first else counts[0]
    assert seen <= controls + 2, "a judge's expected output is in a program's memory"


def test_a_judge_is_a_module_of_the_package_named_by_the_job(pool):
    """The engine knows no family: the spec names its judge's module. One outside the package is
    the caller's error when the program is made, never a worker's crash."""
    spec = _stdio_judge(["2"])
    assert spec["module"] == judging.__name__
    assert pool.run(Program("print(2)", ["1"], judge=spec))[0].judgement.verdict is Verdict.PASSED
    for module in ("os", None, "nemo_code_rl_evil.judge"):
        with pytest.raises(ValueError, match="a judge must be a module of nemo_code_rl"):
            Program("print(2)", ["1"], judge={**spec, "module": module})
