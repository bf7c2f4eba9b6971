"""NeMo Gym ``code_gen`` rollouts, re-verified: the recorded rewards, and special judges' verdicts.

The fixtures (``nemo_gym/code_gen_example.jsonl`` and its ``_rollouts``) are read from the real-data
folder (``$NEMO_CODE_RL_FIXTURES``); the tests are skipped when it is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nemo_code_rl.extraction import ExtractionConfig
from nemo_code_rl.unit_tests.checkers import SHIPPED_CHECKERS as CHECKERS_DIR
from nemo_code_rl.unit_tests.problems import Problem, parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

# Problems that accept many answers; only a special judge (the shipped nemo_code_rl/unit_tests/checkers/<hash_id>.py)
# can judge them.
CIRCLE_COLORING = "ff86821ed6f7260c7a17c4c9be03b663"
REVERSE_WORDS = "c69268d8bdb4da0685d7b187c88296c1"
GYM = ExtractionConfig(mode="gym")


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _first_user_text(row: dict) -> str:
    return row["responses_create_params"]["input"][0]["content"]


def _output_text(response: dict) -> str:
    """The completion NeMo Gym graded: the ``output_text`` of the response's messages."""
    return "".join(
        item["text"]
        for message in response["output"]
        if message.get("type") == "message"
        for item in message.get("content", [])
        if item.get("type") == "output_text"
    )


@pytest.fixture(scope="module")
def rollouts(fixtures_dir: Path) -> list[tuple[Problem, str, float]]:
    """(problem, completion, Gym's reward) for every rollout, joined by the first user message."""
    folder = fixtures_dir / "nemo_gym"
    if not (folder / "code_gen_example_rollouts.jsonl").is_file():
        pytest.skip(f"no NeMo Gym code_gen fixtures in {folder}")
    rows = _jsonl(folder / "code_gen_example.jsonl")
    problems = {_first_user_text(row): parse_problem(row) for row in rows}
    joined = [
        (problems[_first_user_text(row)], _output_text(row["response"]), float(row["reward"]))
        for row in _jsonl(folder / "code_gen_example_rollouts.jsonl")
    ]
    assert len(joined) == 5 and len({problem.id for problem, _, _ in joined}) == 5
    return joined


@pytest.fixture(scope="module")
def verifier():
    verifier = Verifier(VerifierConfig(extraction=GYM), workers=2)
    yield verifier
    verifier.close()


def test_default_comparison_reproduces_gym_rewards(rollouts, verifier):
    verifications = verifier.verify_batch([(problem, completion) for problem, completion, _ in rollouts])
    for (problem, _, gym_reward), verification in zip(rollouts, verifications, strict=True):
        assert not verification.infra_fault, problem.id
        assert verification.reward == gym_reward, (problem.id, verification.feedback)


def test_checkers_accept_the_valid_answers(rollouts, verifier):
    # Verdicts established by hand and by running the extracted code through the checkers; see
    # nemo_code_rl/unit_tests/checkers/README.md. Both rollouts are valid on every test: Gym scored them 0 only
    # because its line-by-line comparison demands the reference output's layout
    # (ff86...: 97 of 100 references print all five answers on one line; c692...: the rollout
    # skips the optional empty index line after "0").
    checkers = {name: (CHECKERS_DIR / f"{name}.py").read_text() for name in (CIRCLE_COLORING, REVERSE_WORDS)}
    judged = Verifier(VerifierConfig(extraction=GYM, checkers=checkers), pool=verifier.pool)
    items = [(problem, completion) for problem, completion, _ in rollouts if problem.id in checkers]
    expected_tests = {CIRCLE_COLORING: 100, REVERSE_WORDS: 1}
    verifications = judged.verify_batch(items)
    assert {v.problem_id for v in verifications} == set(checkers)
    for verification in verifications:
        assert verification.n_total == expected_tests[verification.problem_id]
        assert verification.n_passed == verification.n_total, (verification.problem_id, verification.feedback)
        assert verification.passed is True and verification.reward == 1.0
        assert all(test.detail == "accepted by the checker" for test in verification.tests)
