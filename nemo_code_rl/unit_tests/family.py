"""The unit-test family's pieces: coding problems judged by running their tests (``families.UNIT_TESTS``).

Rows become problems through ``problem_rows`` (parsed once, then carried by ``problem_codec``);
the problem travels in NeMo RL's ``extra_env_info`` as its encoded text (``env_info_for_problem``);
``Verifier`` judges a completion against the tests; a verification means: the episode ends when
the program passes, faulted, ran out of turns or has nothing to say; its feedback is the test
report. Every framework adapter reads the family through ``PIECES``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from nemo_code_rl.engine.backend import BackendConfig, ExecutionBackend
from nemo_code_rl.families import UNIT_TESTS, TaskFamily
from nemo_code_rl.family_pieces import Judgement, decoded_env_info
from nemo_code_rl.outcomes import AttemptStatus
from nemo_code_rl.rows import ProblemFormatError
from nemo_code_rl.training_metrics import verification_outcome
from nemo_code_rl.unit_tests.problem_codec import EncodedProblem, decode_problem
from nemo_code_rl.unit_tests.problem_rows import (
    encoded_problem_from_datum,
    problem_from_datum,
    prompt_messages,
)
from nemo_code_rl.unit_tests.problems import Problem
from nemo_code_rl.unit_tests.verification import Verification, Verifier, VerifierConfig

PROBLEM_KEY = "problem"
# Problems kept decoded: a step's prompts, with room to spare (tests can be megabytes each).
RECENT_PROBLEMS = 256


def env_info_for_problem(problem: Problem | EncodedProblem) -> dict[str, Any]:
    """The ``extra_env_info`` dict for ``problem``: everything the environment needs to verify it.

    An ``EncodedProblem`` (a dataset row's, see ``problem_rows``) goes in as it is, its text not
    decoded; a ``Problem`` is encoded first.

    >>> from nemo_code_rl.unit_tests.problems import parse_problem
    >>> info = env_info_for_problem(parse_problem({"id": 1, "question": "Echo.", "input_output":
    ...     '{"inputs": ["a"], "outputs": ["a"]}'}))
    >>> (info["problem_id"], info["n_tests"], problem_from_env_info(info).inputs)
    ('1', 1, ['a'])
    """
    encoded = problem if isinstance(problem, EncodedProblem) else EncodedProblem.of(problem)
    return {
        PROBLEM_KEY: encoded.text,
        "problem_id": encoded.problem_id,
        "kind": encoded.kind,
        "n_tests": encoded.n_tests,
    }


def problem_from_env_info(info: Mapping[str, Any] | str) -> Problem:
    """The ``Problem`` that ``env_info_for_problem`` encoded, decoded without the row parser.

    Accepts the dict itself or JSON text of it (for callers that stored the whole dict as one
    string column), and a ``"problem"`` entry that is JSON text or an already-decoded dict.
    Anything else is a ``ProblemFormatError`` naming the field.
    """
    row = decoded_env_info(info, PROBLEM_KEY, UNIT_TESTS.processor)[PROBLEM_KEY]
    if isinstance(row, str):
        return _problem_from_text(row)
    return _problem_from_row(row)


@functools.lru_cache(maxsize=RECENT_PROBLEMS)
def _problem_from_text(text: str) -> Problem:
    """Samples of one prompt carry the same text; they share one ``Problem``, decoded once, so the
    verifier runs a completion repeated within the group once (see ``Verifier.verify_batch``)."""
    return _problem_from_row(text)


def _problem_from_row(row: Any) -> Problem:
    try:
        return decode_problem(row)
    except ProblemFormatError as error:
        raise error.under(f"extra_env_info.{PROBLEM_KEY}") from error


class UnitTestPieces:
    """The unit-test family as a plug-in (``nemo_code_rl.family_pieces.FamilyPieces``)."""

    family: TaskFamily = UNIT_TESTS
    metrics_prefix = ""
    check_verb = "verified"

    def make_verifier(
        self,
        config: VerifierConfig | Mapping[str, Any] | None,
        *,
        pool: ExecutionBackend | None = None,
        workers: int | None = None,
        isolation: str = "full",
        backend: BackendConfig | Mapping[str, Any] | str | None = None,
    ) -> Verifier:
        if isinstance(config, Mapping):
            config = VerifierConfig.from_dict(config)
        return Verifier(config, pool=pool, workers=workers, isolation=isolation, backend=backend)

    def subject_from_row(self, row: Mapping[str, Any], idx: int) -> Problem:
        return problem_from_datum(row, idx)

    def prompt(
        self, row: Mapping[str, Any], task_data_spec: Any, idx: int
    ) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """A row of our dataset classes is not parsed again: its prompt comes from the problem's
        header column and its encoded problem goes to ``extra_env_info`` as it is."""
        problem = encoded_problem_from_datum(row, idx)
        return prompt_messages(problem, task_data_spec), env_info_for_problem(problem)

    def subject_from_env_info(self, info: Mapping[str, Any] | str) -> Problem:
        return problem_from_env_info(info)

    def subject_id(self, subject: Problem) -> str:
        return subject.id

    def job(self, subject: Problem, completion: str) -> tuple[Problem, str]:
        return subject, completion

    def judge(
        self,
        subject: Problem,
        verification: Verification,
        *,
        turn: int,
        reward: float,
        max_turns: int,
        config: Any,
    ) -> Judgement:
        terminated = (
            bool(verification.passed)
            or verification.infra_fault
            or turn >= max_turns
            or not verification.feedback
        )
        outcome = verification_outcome(verification, reward, turn=turn, terminal=terminated)
        result = {
            "passed": verification.passed,
            "n_passed": verification.n_passed,
            "n_total": verification.n_total,
            "format_ok": verification.format_ok,
            "infra_fault": verification.infra_fault,
            "reward": verification.reward,
            "reward_version": verification.reward_version,
            "verdicts": dict(outcome.verdicts),
        }
        return Judgement(outcome, result, verification.feedback)

    def summary(self, verification: Verification) -> str:
        if verification.infra_fault:
            return "Environment: verification failed (sandbox fault); not scored as a failure."
        if not verification.format_ok:
            return "Environment: no code found."
        if verification.passed:
            return f"Environment: all {verification.n_total} tests passed."
        return f"Environment: {verification.n_passed}/{verification.n_total} tests passed."

    def metrics(self, records: Sequence[Any]) -> dict[str, float]:
        """None beyond the shared verification metrics."""
        return {}

    def verdict(self, verification: Verification) -> str:
        """The first failing test's verdict (``no_code``, ``infra_fault`` for the attempt)."""
        if not verification.format_ok:
            return AttemptStatus.NO_CODE.value
        if verification.infra_fault:
            return AttemptStatus.INFRA_FAULT.value
        failing = next((t.verdict for t in verification.tests if t.verdict != "passed"), None)
        return failing or "passed"


PIECES = UnitTestPieces()
