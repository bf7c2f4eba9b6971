"""Output a judge does not need never reaches it: stdout is cut near twice the expected answer,
stderr to a few KiB, so one print-loop bug cannot take a scoring run's memory."""

import json

from nemo_code_rl import ExecutionPool, Limits, Program, Verdict
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import OUTPUT_SLACK_BYTES

from .verification_data import fenced


def stdio_problem(name: str, inputs: list[str], outputs: list[str]):
    tests = json.dumps({"inputs": inputs, "outputs": outputs})
    return parse_problem({"problem_id": name, "question": name, "input_output": tests})


STDIO = stdio_problem("double", ["2\n", "5\n"], ["4\n", "10\n"])


def test_a_print_loop_is_cut_near_the_expected_size(verifier):
    flood = "n = int(input())\nprint(n * 2)\nimport sys\nsys.stdout.write('x' * 5_000_000)\n"
    result = verifier.verify_batch([(STDIO, fenced(flood))])[0]
    assert not result.passed
    assert [t.verdict for t in result.tests] == [Verdict.OUTPUT_LIMIT, Verdict.OUTPUT_LIMIT]


def test_a_right_answer_with_a_flood_of_stderr_still_passes(verifier):
    noisy = "import sys\nsys.stderr.write('debug ' * 2_000_000)\nprint(int(input()) * 2)\n"
    result = verifier.verify_batch([(STDIO, fenced(noisy))])[0]
    assert result.passed, result.tests


def test_a_right_answer_laid_out_with_extra_spaces_still_fits(verifier):
    spaced = "print(' ' * 1000 + str(int(input()) * 2) + ' ' * 1000)\n"
    result = verifier.verify_batch([(STDIO, fenced(spaced))])[0]
    assert result.passed, result.tests


def test_engine_keeps_stderr_to_its_own_cap():
    limits = Limits(timeout_s=5, stderr_bytes=1024)
    with ExecutionPool(workers=1, limits=limits) as pool:
        result = pool.run(Program("import sys\nsys.stderr.write('e' * 100_000)\nprint('ok')", [""]))[0]
    assert (result.verdict, result.stdout) == (Verdict.OK, "ok\n")
    assert len(result.stderr) == 1024 and result.stderr_dropped == 100_000 - 1024


def test_the_cap_follows_the_largest_expected_output():
    from nemo_code_rl.unit_tests.verification import output_cap

    big = stdio_problem("big", ["", ""], ["1\n", "y" * 1_000_000])
    assert output_cap(big) == 2 * 1_000_000 + OUTPUT_SLACK_BYTES
    assert output_cap(STDIO) == 2 * 3 + OUTPUT_SLACK_BYTES
