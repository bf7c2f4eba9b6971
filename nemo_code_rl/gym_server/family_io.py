"""A task family's face in the Gym server: its request and response models, how a verify request
becomes the family's subject, and how a verification becomes the response's fields.

The service is generic (fault policy, reasoning-format penalty, coalescing, metrics are shared);
``ServerOptions.family`` picks one of these. The unit-test family answers as Gym's ``code_gen``
(``result`` with LiveCodeBench's codes, ``metadata``, ...); ARC reads NeMo Gym's ``arc_agi`` rows
(``train``, ``test_input``, ``expected_output``, ``task_id``) and answers with ``result_fields``
(the ARC outcome, verdict, message, predictions). Each family also says what its task metrics
count as right and as the answer that ``majority@k`` votes on (``metrics``): ``code_gen``'s rule
(reward > 0, the extracted code) for unit tests; for ARC, a program right on the test grids, voted
on by its predicted grids, with the ARC table (``arc.metrics``) beside.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from pydantic import BaseModel

from nemo_code_rl.arc.family import PIECES as ARC_PIECES
from nemo_code_rl.arc.family import ArcSubject
from nemo_code_rl.arc.metrics import ArcOutcome
from nemo_code_rl.arc.scoring import result_fields
from nemo_code_rl.arc.task import task_from_row
from nemo_code_rl.arc.verifier import ArcVerification, ArcVerifier
from nemo_code_rl.families import ARC, UNIT_TESTS
from nemo_code_rl.gym_server.models import (
    ArcVerifyRequest,
    ArcVerifyResponse,
    VerifyRequest,
    VerifyResponse,
)
from nemo_code_rl.outcomes import Verdict
from nemo_code_rl.rows import ID_FIELDS
from nemo_code_rl.unit_tests.family import PIECES as UNIT_TEST_PIECES
from nemo_code_rl.unit_tests.problems import Problem, parse_problem
from nemo_code_rl.unit_tests.verification import Verification, Verifier

# LiveCodeBench's per-test codes, as code_gen reports them in ``result`` (-1 is its compile error;
# a lost worker reports it too, and ``infra_fault`` tells the two apart).
_LCB_CODES: dict[str, int] = {
    Verdict.WRONG_ANSWER: -2,
    Verdict.TIMEOUT: -3,
    Verdict.WORKER_LOST: -1,
    Verdict.COMPILE_ERROR: -1,
}
_LCB_RUNTIME_ERROR = -4


class GymFamily(Protocol):
    """What the Gym server needs of a family beyond its ``FamilyPieces`` (``pieces``)."""

    @property
    def pieces(self) -> Any: ...
    @property
    def request_model(self) -> type[BaseModel]: ...
    @property
    def response_model(self) -> type[BaseModel]: ...

    def subject(self, request: Mapping[str, Any]) -> Any:
        """The subject of a validated verify request; ``ProblemFormatError`` when unreadable."""
        ...

    def verify(self, verifier: Any, jobs: Sequence[Any], cancelled: Callable[[int], bool]) -> list[Any]:
        """The verifier's results for ``jobs``; ``cancelled(i)``: job ``i``'s client has gone."""
        ...

    def details(self, request: Mapping[str, Any], verification: Any) -> dict[str, Any]:
        """The family's response fields for a verification (the shared ones are the service's)."""
        ...

    def solved(self, response: Mapping[str, Any]) -> bool:
        """Whether a verify response counts as right in the task metrics (``accuracy``)."""
        ...

    def answer(self, response: Mapping[str, Any]) -> str | None:
        """The answer ``majority@k`` votes on; ``None``: the response gave none (``no_answer``)."""
        ...

    def own_metrics(self, responses: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        """The family's own metrics over judged verify responses, beside the task metrics."""
        ...


class UnitTestGym:
    """Coding problems, answered as Gym's ``code_gen`` answers."""

    pieces = UNIT_TEST_PIECES
    request_model = VerifyRequest
    response_model = VerifyResponse

    def subject(self, request: Mapping[str, Any]) -> Problem:
        return problem_from_request(request)

    def verify(
        self, verifier: Verifier, jobs: Sequence[tuple[Problem, str]], cancelled: Callable[[int], bool]
    ) -> list[Verification]:
        return verifier.verify_batch(jobs, cancelled=cancelled)

    def details(self, request: Mapping[str, Any], verification: Verification) -> dict[str, Any]:
        return {
            "extracted_model_code": verification.code,
            "result": lcb_result(verification) if verification.format_ok else None,
            "metadata": lcb_metadata(verification) if verification.format_ok else None,
            "unit_tests_time_taken": verification.execution_s if verification.format_ok else None,
            "difficulty": request["verifier_metadata"].get("difficulty"),
            "problem_id": verification.problem_id,
            "passed": verification.passed,
            "format_ok": verification.format_ok,
            "n_passed": verification.n_passed,
            "n_total": verification.n_total,
            "infra_fault": verification.infra_fault,
            "tests": [
                {"verdict": test.verdict, "wall_s": test.wall_s, "detail": test.detail}
                for test in verification.tests
            ],
            "feedback": verification.feedback,
            "reward_version": verification.reward_version,
        }

    def solved(self, response: Mapping[str, Any]) -> bool:
        """``code_gen``'s rule: a reward above 0 (so a reasoning-format penalty of 0 counts)."""
        reward = response.get("reward")
        return isinstance(reward, (int, float)) and reward > 0

    def answer(self, response: Mapping[str, Any]) -> str | None:
        return response.get("extracted_model_code")

    def own_metrics(self, responses: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        return {}


class ArcGym:
    """ARC tasks as NeMo Gym's ``arc_agi`` rows carry them, answered with a ``transform`` program."""

    pieces = ARC_PIECES
    request_model = ArcVerifyRequest
    response_model = ArcVerifyResponse

    def subject(self, request: Mapping[str, Any]) -> ArcSubject:
        return ArcSubject(task_from_row(request), None)

    def verify(
        self, verifier: ArcVerifier, jobs: Sequence[Any], cancelled: Callable[[int], bool]
    ) -> list[ArcVerification]:
        """A gone client's program is stopped while it runs (every grid is one run), or never started."""
        return verifier.verify_batch(jobs, cancelled=cancelled)

    def details(self, request: Mapping[str, Any], verification: ArcVerification) -> dict[str, Any]:
        """ARC's result fields; ``passed`` is null for an infrastructure fault (nothing was judged),
        as in the unit-test family's answers."""
        return {
            **result_fields(verification),
            "passed": None if verification.infra_fault else verification.passed,
            "task_id": verification.task_id,
            "extracted_model_code": verification.code,
        }

    def solved(self, response: Mapping[str, Any]) -> bool:
        """Right on every test grid, ARC's score (the reward, shaped by default, judges the train
        pairs: a valid but wrong program earns 1)."""
        return response.get("passed") is True

    def answer(self, response: Mapping[str, Any]) -> str | None:
        """The predicted test grids: programs that compute the same grids vote together."""
        predictions = response.get("predictions") or []
        if all(grid is None for grid in predictions):
            return None
        return json.dumps(predictions, separators=(",", ":"))

    def own_metrics(self, responses: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        """The ARC table (valid code and outputs, pixel scores, pass rates), ``arc/`` before each
        name; a response's task is its ``task_id`` (which ``/verify`` always answers with)."""
        outcomes = [
            ArcOutcome.from_row({**response, "id": response.get("task_id")}) for response in responses
        ]
        metrics = self.pieces.metrics(outcomes) if outcomes else {}
        return {f"{self.pieces.metrics_prefix}{name}": value for name, value in metrics.items()}


GYM_FAMILIES: dict[str, GymFamily] = {UNIT_TESTS.name: UnitTestGym(), ARC.name: ArcGym()}


def problem_from_request(request: Mapping[str, Any]) -> Problem:
    """The problem a verify request is about, read as a Gym row by ``parse_problem``.

    Its id is the request's first id field (``hash_id`` in Gym's code data), which is what checkers
    are keyed by; without one, a digest of the tests, so the same row always gets the same id.
    """
    metadata = request["verifier_metadata"]
    row = {"responses_create_params": request["responses_create_params"], "verifier_metadata": metadata}
    ids = [str(request[name]) for name in ID_FIELDS if request.get(name) not in (None, "")]
    digest = hashlib.sha256(json.dumps(metadata["unit_tests"], sort_keys=True).encode()).hexdigest()
    row["id"] = ids[0] if ids else f"tests-{digest[:24]}"
    return parse_problem(row)


def lcb_result(verification: Verification) -> list[bool | int]:
    """One LiveCodeBench code per test that ran (``True`` for a pass)."""
    return [
        True if test.verdict == Verdict.PASSED else _LCB_CODES.get(test.verdict, _LCB_RUNTIME_ERROR)
        for test in verification.tests
        if test.verdict != Verdict.NOT_RUN
    ]


def lcb_metadata(verification: Verification) -> dict[str, Any]:
    """The total test time, and the first failure's code and message, under code_gen's keys."""
    metadata: dict[str, Any] = {"execution time": verification.execution_s}
    failing = next(
        (t for t in verification.tests if t.verdict not in (Verdict.PASSED, Verdict.NOT_RUN)), None
    )
    if failing is not None:
        code = _LCB_CODES.get(failing.verdict, _LCB_RUNTIME_ERROR)
        message = failing.detail or failing.verdict.replace("_", " ")
        metadata.update(error_code=code, error_message=message)
    return metadata
