"""What multi-turn feedback shows of a failing hidden test: by default its verdict only, so a
policy cannot earn reward by hard-coding tests it was shown (``feedback_reveals``)."""

from __future__ import annotations

import json

import pytest

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

SECRET_IN, SECRET_OUT = "hidden-input-7341", "hidden-output-9052"
STDIO = parse_problem(
    {
        "id": "stdio",
        "question": "Print the answer.",
        "input_output": json.dumps(
            {"inputs": ["a\n", f"{SECRET_IN}\n"], "outputs": ["a\n", f"{SECRET_OUT}\n"]}
        ),
    }
)
ASSERTS = parse_problem(
    {"task_id": 1, "text": "Add one.", "test_list": ["assert add(1) == 2", "assert add(41) == 42"]}
)
# Echoes stdin to stdout and stderr: a program can always print its input.
ECHO = "```python\nimport sys\nline = input()\nprint(line)\nprint(line, file=sys.stderr)\n```"
OFF_BY_ONE = "```python\ndef add(x):\n    return x + 1 if x < 10 else x\n```"


@pytest.fixture(scope="module")
def pool():
    with Verifier(workers=2) as verifier:
        yield verifier.pool


def feedback(pool, reveals: str | None, problem, completion: str) -> str:
    config = VerifierConfig() if reveals is None else VerifierConfig(feedback_reveals=reveals)
    (verification,) = Verifier(config, pool=pool).verify_batch([(problem, completion)])
    return verification.feedback


def test_default_reveals_the_verdict_only(pool):
    for problem, completion in ((STDIO, ECHO), (ASSERTS, OFF_BY_ONE)):
        assert feedback(pool, None, problem, completion) == "Test 2 of 2 failed: wrong answer."
    assert VerifierConfig().feedback_reveals == "verdict"


def test_input_reveals_the_input_and_the_programs_output_but_not_the_expected_one(pool):
    text = feedback(pool, "input", STDIO, ECHO)
    assert f"Input:\n{SECRET_IN}" in text and f"Got:\n{SECRET_IN}" in text and "Error output" in text
    assert SECRET_OUT not in text and "Expected" not in text
    text = feedback(pool, "input", ASSERTS, OFF_BY_ONE)
    assert text == "Test 2 of 2 failed: wrong answer."  # an assert is input and expected at once


def test_input_and_expected_reveals_everything(pool):
    text = feedback(pool, "input_and_expected", STDIO, ECHO)
    assert f"Input:\n{SECRET_IN}" in text and f"Expected:\n{SECRET_OUT}" in text
    assert f"expected '{SECRET_OUT}'" in text  # the comparison's detail
    assert "add(41) == 42" in feedback(pool, "input_and_expected", ASSERTS, OFF_BY_ONE)


def test_an_unknown_level_is_a_config_error():
    from nemo_code_rl.environments.config import CodeEnvConfig

    with pytest.raises(
        ConfigError, match=r"env.feedback_reveals: expected 'verdict', 'input' or 'input_and_expected'"
    ):
        CodeEnvConfig.from_dict({"feedback_reveals": "everything"})
    assert CodeEnvConfig.from_dict({"feedback_reveals": "input"}).verifier.feedback_reveals == "input"
