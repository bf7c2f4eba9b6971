"""The ARC family on NeMo Gym's own base classes, where ``nemo_gym`` is installed (skipped elsewhere).

The shipped ``configs/nemo_code_rl_arc_programs.yaml``, validated as Gym's launcher validates it,
configures ``NemoCodeRLResourcesServer``; the app Gym's ``SimpleResourcesServer`` builds is served
by uvicorn on a loopback port with its real sandbox pool, and NeMo Gym's ``arc_agi`` example rows
are verified with a right and a wrong ``transform`` program.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("nemo_gym", reason="nemo_gym is not installed (Gym's base classes need Python >= 3.12)")

import uvicorn
import yaml
from nemo_gym.base_resources_server import BaseVerifyResponse
from nemo_gym.config_types import BaseServerConfig, maybe_get_server_instance_config
from nemo_gym.server_utils import ServerClient
from omegaconf import OmegaConf

import nemo_code_rl.gym_server
from nemo_code_rl.families import ARC
from nemo_code_rl.gym_server.family_io import GYM_FAMILIES
from nemo_code_rl.gym_server.gym_resources_server import NemoCodeRLResourcesServer, NemoCodeRLServerConfig
from nemo_code_rl.gym_server.metrics import aggregate_metrics
from tests.arc.programs import TILE_00576224, completion

from . import responses_answer
from .test_server_process import START_TIMEOUT_S, _free_port

NAME = "nemo_code_rl_arc_programs"
SHIPPED_CONFIG = Path(nemo_code_rl.gym_server.__file__).parent / "configs" / f"{NAME}.yaml"
WRONG = "def transform(grid):\n    return grid\n"


@pytest.fixture(scope="module")
def arc_rows(fixtures_dir) -> list[dict[str, Any]]:
    """NeMo Gym's ``arc_agi`` example rows (the first is task 00576224, which ``TILE_00576224`` solves)."""
    path = fixtures_dir / "nemo_gym" / "arc_agi_example.jsonl"
    if not path.is_file():
        pytest.skip(f"no NeMo Gym arc_agi fixture at {path}")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert rows[0]["task_id"] == "00576224"
    return rows


@pytest.fixture(scope="module")
def gym_arc_server() -> Iterator[str]:
    """The shipped ARC config's server on Gym's base classes, served on a free loopback port."""
    node = yaml.safe_load(SHIPPED_CONFIG.read_text())[NAME]["resources_servers"][NAME]
    port = _free_port()
    config = NemoCodeRLServerConfig.model_validate(
        {**node, "host": "127.0.0.1", "port": port, "name": NAME, "num_processes": 2}
    )
    client = ServerClient(
        head_server_config=BaseServerConfig(host="127.0.0.1", port=0), global_config_dict=OmegaConf.create({})
    )
    app = NemoCodeRLResourcesServer(config=config, server_client=client).setup_webserver()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="gym-arc-server")
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("the Gym ARC server did not start")
        time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join()


def _verify(server: str, row: dict[str, Any], text: str) -> httpx.Response:
    request = {**row, "response": responses_answer(text)}
    return httpx.post(server + "/verify", json=request, timeout=60, trust_env=False)


def test_the_shipped_arc_config_is_a_gym_config():
    data = OmegaConf.create(yaml.safe_load(SHIPPED_CONFIG.read_text()))
    for name, node in data.items():
        config, error = maybe_get_server_instance_config(str(name), node)
        assert error is None and config is not None, (name, error)
    assert data[NAME]["resources_servers"][NAME]["family"] == ARC.name


def test_right_and_wrong_programs_get_1_and_0_through_gyms_base_classes(gym_arc_server, arc_rows):
    row = arc_rows[0]
    right = _verify(gym_arc_server, row, completion(TILE_00576224))
    wrong = _verify(gym_arc_server, row, completion(WRONG))
    prose = _verify(gym_arc_server, row, "The answer is \\boxed{[[3, 2]]}.")
    for answer in (right, wrong, prose):
        assert answer.status_code == 200, answer.text
        BaseVerifyResponse.model_validate(answer.json())  # what a Gym client parses
    right_fields, wrong_fields, prose_fields = right.json(), wrong.json(), prose.json()
    assert right_fields["reward"] == 1.0 and right_fields["passed"] is True
    assert right_fields["verdict"] == "passed" and right_fields["task_id"] == "00576224"
    assert right_fields["predictions"] == [row["expected_output"]]
    assert right_fields["train_accuracy"] == 1.0 and right_fields["valid_code"] is True  # ARC's outcome
    assert right_fields["extracted_model_code"].startswith("def transform")
    assert right_fields["expected_output"] == row["expected_output"]  # the row is echoed
    assert wrong_fields["reward"] == 0.0 and wrong_fields["passed"] is False
    assert wrong_fields["verdict"] == "wrong_answer" and "train 1" in wrong_fields["message"]
    assert prose_fields["reward"] == 0.0 and prose_fields["format_ok"] is False
    assert prose_fields["verdict"] == "no_code" and prose_fields["extracted_model_code"] is None
    assert not any(fields["infra_fault"] for fields in (right_fields, wrong_fields, prose_fields))


def test_a_malformed_arc_row_is_a_422_naming_the_field_through_gyms_base_classes(gym_arc_server, arc_rows):
    row = arc_rows[0]
    ragged = _verify(gym_arc_server, {**row, "train": [{"input": [[1, 2], [3]], "output": [[1]]}]}, WRONG)
    assert ragged.status_code == 422, ragged.text
    assert "train[0].input" in ragged.text
    missing = _verify(gym_arc_server, {k: v for k, v in row.items() if k != "test_input"}, WRONG)
    assert missing.status_code == 422, missing.text
    assert ["body", "test_input"] in [error["loc"] for error in missing.json()["detail"]]
    not_grid = _verify(gym_arc_server, {**row, "test_input": "3 2\n7 8"}, WRONG)
    assert not_grid.status_code == 422 and "test_input" in not_grid.text
    assert _verify(gym_arc_server, row, completion(TILE_00576224)).json()["reward"] == 1.0  # still serving


def test_arc_metrics_through_gyms_base_classes_match_the_standalone_apps(gym_arc_server, arc_rows):
    row = arc_rows[0]
    texts = [completion(TILE_00576224), completion(WRONG), completion(TILE_00576224.replace("grid", "g"))]
    responses = [
        {**_verify(gym_arc_server, row, text).json(), "_ng_task_index": 0, "_ng_rollout_index": index}
        for index, text in enumerate(texts)
    ]
    answer = httpx.post(
        gym_arc_server + "/aggregate_metrics",
        json={"verify_responses": responses},
        timeout=60,
        trust_env=False,
    )
    assert answer.status_code == 200, answer.text
    metrics = answer.json()["agent_metrics"]
    assert metrics["mean/reward"] == pytest.approx(2 / 3)  # Gym's own baseline statistics
    assert metrics["pass@1[avg-of-3]/accuracy"] == pytest.approx(200 / 3)
    assert metrics["pass@3/accuracy"] == 100.0
    # The two right programs differ as text but predict the same grid: one vote of two.
    assert metrics["majority@3/accuracy"] == 100.0
    assert metrics["arc/valid_code"] == 1.0 and metrics["arc/train_pass_rate"] == pytest.approx(2 / 3)
    standalone = aggregate_metrics(responses, GYM_FAMILIES[ARC.name]).agent_metrics
    family_keys = [name for name in standalone if name.startswith(("pass@", "majority@", "arc/"))]
    assert family_keys and {name: metrics[name] for name in family_keys} == {
        name: standalone[name] for name in family_keys
    }
    assert answer.json()["key_metrics"]["pass@1[avg-of-3]/accuracy"] == pytest.approx(200 / 3)


def test_a_think_tag_in_the_final_text_gets_the_reasoning_penalty_not_arcs_reward(gym_arc_server, arc_rows):
    answer = _verify(gym_arc_server, arc_rows[0], "</think>" + completion(TILE_00576224))
    assert answer.status_code == 200, answer.text
    fields = answer.json()
    assert fields["passed"] is True and fields["reasoning_format_violation_rate"] == 1.0
    assert fields["reward"] == 0.0  # the shipped config's reasoning_format_penalty
