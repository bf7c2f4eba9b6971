"""The server with ``family: arc_programs``: NeMo Gym's ``arc_agi`` rows judged as ARC programs, by
``python -m nemo_code_rl.gym_server`` on a loopback port with real sandbox workers."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from nemo_code_rl.families import ARC, UNIT_TESTS
from nemo_code_rl.gym_server import ServerOptions
from tests.arc.programs import TILE_00576224, completion

from . import responses_answer
from .test_server_process import (
    disconnect_mid_program,
    start_server,  # noqa: F401  # the fixture that starts servers
)

WRONG = "def transform(grid):\n    return grid\n"


@pytest.fixture(scope="module")
def arc_row(fixtures_dir) -> dict[str, Any]:
    path = fixtures_dir / "nemo_gym" / "arc_agi_example.jsonl"
    if not path.is_file():
        pytest.skip(f"no NeMo Gym arc_agi fixture at {path}")
    row = json.loads(path.read_text().splitlines()[0])
    assert row["task_id"] == "00576224"
    return row


@pytest.fixture(scope="module")
def arc_server(start_server) -> str:  # noqa: F811
    return start_server(f"family: {ARC.name}\nnum_processes: 2")


def _verify(server: str, row: dict[str, Any], code: str) -> httpx.Response:
    request = {**row, "response": responses_answer(completion(code))}
    return httpx.post(server + "/verify", json=request, timeout=60, trust_env=False)


def test_a_right_and_a_wrong_arc_program_are_judged(arc_server, arc_row):
    right = _verify(arc_server, arc_row, TILE_00576224)
    wrong = _verify(arc_server, arc_row, WRONG)
    assert right.status_code == wrong.status_code == 200, (right.text, wrong.text)
    right_fields, wrong_fields = right.json(), wrong.json()
    assert right_fields["task_id"] == wrong_fields["task_id"] == "00576224"
    assert right_fields["passed"] is True and right_fields["verdict"] == "passed"
    assert right_fields["predictions"] == [arc_row["expected_output"]]
    assert right_fields["extracted_model_code"].startswith("def transform")
    assert wrong_fields["passed"] is False and wrong_fields["verdict"] == "wrong_answer"
    assert right_fields["reward"] > wrong_fields["reward"]
    assert right_fields["expected_output"] == arc_row["expected_output"]  # the request is echoed
    assert not right_fields["infra_fault"] and "_ng_failure_class" not in right_fields


def test_a_malformed_arc_row_is_a_422_naming_the_field(arc_server, arc_row):
    ragged = {**arc_row, "train": [{"input": [[1, 2], [3]], "output": [[1]]}]}
    answer = _verify(arc_server, ragged, WRONG)
    assert answer.status_code == 422, answer.text
    assert "train[0].input" in answer.text
    missing = {key: value for key, value in arc_row.items() if key != "test_input"}
    assert _verify(arc_server, missing, WRONG).status_code == 422
    assert _verify(arc_server, arc_row, TILE_00576224).status_code == 200  # still serving


def test_arc_task_metrics_count_right_test_grids_not_positive_rewards(arc_server, arc_row):
    """Under the default shaped reward a valid but wrong program earns 1: ``accuracy`` is ARC's
    (every test grid right), not ``code_gen``'s reward > 0."""
    right, wrong = (_verify(arc_server, arc_row, code).json() for code in (TILE_00576224, WRONG))
    assert right["reward"] > wrong["reward"] > 0
    rows = [
        {**fields, "_ng_task_index": 0, "_ng_rollout_index": i} for i, fields in enumerate((right, wrong))
    ]
    answer = httpx.post(arc_server + "/aggregate_metrics", json={"verify_responses": rows}, trust_env=False)
    assert answer.status_code == 200, answer.text
    metrics = answer.json()["agent_metrics"]
    assert metrics["pass@1[avg-of-2]/accuracy"] == 50.0 and metrics["pass@2/accuracy"] == 100.0
    assert metrics["majority@2/accuracy"] == 50.0 and metrics["pass@1[avg-of-2]/no_answer"] == 0.0
    assert metrics["arc/train_pass_rate"] == 0.5 and metrics["arc/tasks"] == 1.0


def test_a_looping_transform_is_stopped_when_its_client_has_gone(start_server, arc_row):  # noqa: F811
    """Every grid runs in one input: a looping ``transform`` whose client hangs up is stopped
    mid-run, long before its limit (60 s a grid), and its worker serves the next request."""
    url = start_server(f"family: {ARC.name}\nnum_processes: 1\nverifier:\n  execution:\n    timeout_s: 60")
    looping = "def transform(grid):\n    while True:\n        pass\n"
    disconnect_mid_program(url, {**arc_row, "response": responses_answer(completion(looping))})
    answer = _verify(url, arc_row, TILE_00576224)
    assert answer.status_code == 200 and answer.json()["passed"] is True, answer.text


def test_the_family_key_is_checked():
    with pytest.raises(ValidationError, match=f"did you mean '{ARC.name}'"):
        ServerOptions.model_validate({"family": ARC.name[:-1]})
    with pytest.raises(ValidationError, match=f"unit_test_timeout_secs: options of the {UNIT_TESTS.name}"):
        ServerOptions.model_validate({"family": ARC.name, "unit_test_timeout_secs": 3})
    with pytest.raises(ValidationError, match="verifier"):
        ServerOptions.model_validate({"family": ARC.name, "verifier": {"rewrad": {}}})
    assert ServerOptions().family == UNIT_TESTS.name
