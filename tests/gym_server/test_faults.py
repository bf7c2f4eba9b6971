"""The Gym server under the package's fault policy, with a real lost sandbox worker (killed twice):
one request is one sample, so a lost one gets the level of its problem's earlier judged requests."""

from __future__ import annotations

import asyncio
import json

import pytest

from nemo_code_rl.families import ARC
from nemo_code_rl.gym_server.models import ServerOptions
from nemo_code_rl.gym_server.service import INFRA_FAILURE_CLASS, VerificationService, VerificationUnavailable
from tests.arc.programs import TILE_00576224, completion
from tests.engine.conftest import kill_workers_later

from . import responses_answer, stdio_request

TESTS = (["2\n", "5\n"], ["4", "10"])
RIGHT = stdio_request("print(int(input()) * 2)", *TESTS, hash_id="double")
WRONG = stdio_request("print(int(input()))", *TESTS, hash_id="double")
SLEEPY = stdio_request("import time\ntime.sleep(3)\nprint(int(input()) * 2)", *TESTS, hash_id="double")
SLEEPY_TRANSFORM = "import time\n\ndef transform(grid):\n    time.sleep(8)\n    return grid\n"


def lost(service: VerificationService, request: dict, delay: float = 1.0) -> dict:
    """``verify`` while the sandbox's workers are killed twice, ``delay`` seconds apart (the
    engine's retry is spent); the program must outlive both kills."""
    killer = kill_workers_later(service._verifier.pool, rounds=2, delay=delay)  # the test reaches the pool
    try:
        return asyncio.run(service.verify(request))
    finally:
        killer.join()


def test_a_lost_request_gets_its_problems_level_and_goes_to_gyms_failures() -> None:
    service = VerificationService(ServerOptions(num_processes=1, unit_test_timeout_secs=10))
    try:
        rewards = [asyncio.run(service.verify(request))["reward"] for request in (RIGHT, WRONG)]
        answer = lost(service, SLEEPY)
    finally:
        service.close()

    assert rewards == [1.0, 0.0]
    assert answer["reward"] == 0.5 and answer["infra_fault"] is True and answer["passed"] is None
    assert answer["_ng_failure_class"] == INFRA_FAILURE_CLASS


def test_too_many_lost_requests_answer_503_with_the_cause() -> None:
    options = ServerOptions(
        num_processes=1, unit_test_timeout_secs=10, faults={"window": 1, "max_fault_rate": 0}
    )
    service = VerificationService(options)
    try:
        with pytest.raises(
            VerificationUnavailable,
            match=r"100% of the last 1 samples were infrastructure faults|verification of 1 samples failed",
        ):
            lost(service, SLEEPY)
        assert asyncio.run(service.verify(RIGHT))["reward"] == 1.0  # the server goes on
    finally:
        service.close()


def test_a_misspelled_faults_option_is_refused() -> None:
    with pytest.raises(ValueError, match="did you mean 'max_fault_rate'"):
        ServerOptions(faults={"max_fault_rat": 0.1})


def test_a_lost_arc_request_gets_its_tasks_level_not_the_verifiers_none(fixtures_dir) -> None:
    """ARC's outcome fields carry the verifier's reward (``None`` for a fault): the answer's is
    the fault policy's."""
    path = fixtures_dir / "nemo_gym" / "arc_agi_example.jsonl"
    if not path.is_file():
        pytest.skip(f"no NeMo Gym arc_agi fixture at {path}")
    row = json.loads(path.read_text().splitlines()[0])
    right, wrong, sleepy = (
        {**row, "response": responses_answer(completion(code))}
        for code in (TILE_00576224, "def transform(grid):\n    return grid\n", SLEEPY_TRANSFORM)
    )
    verifier = {"reward": {"mode": "binary"}, "execution": {"timeout_s": 10}}
    options = ServerOptions(family=ARC.name, num_processes=1, verifier=verifier)
    service = VerificationService(options)
    try:
        rewards = [asyncio.run(service.verify(request))["reward"] for request in (right, wrong)]
        answer = lost(service, sleepy, delay=4.0)  # an ARC worker takes over a second to start
    finally:
        service.close()

    assert rewards == [1.0, 0.0]
    assert answer["reward"] == 0.5 and answer["infra_fault"] is True and answer["passed"] is None
    assert answer["_ng_failure_class"] == INFRA_FAILURE_CLASS
