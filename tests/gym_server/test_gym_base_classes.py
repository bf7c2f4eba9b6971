"""The server on NeMo Gym's own base classes, where ``nemo_gym`` is installed (skipped elsewhere).

Gym's ``SimpleResourcesServer`` builds the app (routes, session middleware, Gym's request schemas
and its ``/aggregate_metrics`` baseline); requests go in-process through httpx's ASGI transport,
with the app's lifespan, so the real sandbox pool verifies them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("nemo_gym", reason="nemo_gym is not installed (Gym's base classes need Python >= 3.12)")

import yaml
from nemo_gym.base_resources_server import BaseVerifyResponse
from nemo_gym.config_types import BaseServerConfig
from nemo_gym.server_utils import ServerClient
from omegaconf import OmegaConf

import nemo_code_rl.gym_server
from nemo_code_rl.gym_server.gym_resources_server import (
    NemoCodeRLResourcesServer,
    NemoCodeRLServerConfig,
)

from . import CHECKED_PROBLEMS, CHECKERS_DIR, recorded_rollouts, stdio_request

SHIPPED_CONFIG = Path(nemo_code_rl.gym_server.__file__).parent / "configs" / "nemo_code_rl_code_gen.yaml"


def gym_config(**options: Any) -> NemoCodeRLServerConfig:
    """The server's node of the shipped config, as Gym's launcher validates it (plus run-time keys)."""
    data = yaml.safe_load(SHIPPED_CONFIG.read_text())
    node = data["nemo_code_rl_code_gen"]["resources_servers"]["nemo_code_rl_code_gen"]
    return NemoCodeRLServerConfig.model_validate(
        {
            **node,
            "host": "127.0.0.1",
            "port": 0,
            "name": "nemo_code_rl_code_gen",
            "num_processes": 1,
            **options,
        }
    )


def post_all(config: NemoCodeRLServerConfig, calls: list[tuple[str, dict[str, Any]]]) -> list[httpx.Response]:
    head = BaseServerConfig(host="127.0.0.1", port=0)
    client = ServerClient(head_server_config=head, global_config_dict=OmegaConf.create({}))
    app = NemoCodeRLResourcesServer(config=config, server_client=client).setup_webserver()

    async def main() -> list[httpx.Response]:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://gym-server") as http:
                return [await http.post(path, json=body) for path, body in calls]

    return asyncio.run(main())


def test_recorded_rollouts_get_gyms_rewards_through_gyms_base_classes(fixtures_dir):
    rollouts = recorded_rollouts(fixtures_dir)
    answers = post_all(gym_config(), [("/verify", request) for request, _ in rollouts])
    for (request, gym_reward), answer in zip(rollouts, answers, strict=True):
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["reward"] == gym_reward and body["hash_id"] == request["hash_id"]
        BaseVerifyResponse.model_validate(body)  # what a Gym client parses


def test_checkers_through_gyms_base_classes(fixtures_dir):
    checked = [
        request for request, _ in recorded_rollouts(fixtures_dir) if request["hash_id"] in CHECKED_PROBLEMS
    ]
    answers = post_all(
        gym_config(checkers_dir=str(CHECKERS_DIR)), [("/verify", request) for request in checked]
    )
    assert [answer.json()["reward"] for answer in answers] == [1.0, 1.0]


def test_malformed_requests_and_metrics_through_gyms_base_classes():
    good = stdio_request("print(input())", ["3\n"], ["3"])
    wrong = stdio_request("print(4)", ["3\n"], ["3"])
    no_tests, bad_call, right, missed = post_all(
        gym_config(),
        [
            ("/verify", {**good, "verifier_metadata": {}}),
            (
                "/verify",
                {
                    **good,
                    "verifier_metadata": {"unit_tests": {"inputs": ["x"], "outputs": ["1"], "fn_name": "f"}},
                },
            ),
            ("/verify", good),
            ("/verify", wrong),
        ],
    )
    assert no_tests.status_code == 422 and bad_call.status_code == 422
    assert "each line must be a JSON value" in bad_call.text
    rows = [
        {**answer.json(), "_ng_task_index": 0, "_ng_rollout_index": i}
        for i, answer in enumerate((right, missed))
    ]
    [metrics] = post_all(gym_config(), [("/aggregate_metrics", {"verify_responses": rows})])
    assert metrics.status_code == 200, metrics.text
    body = metrics.json()
    assert body["agent_metrics"]["mean/reward"] == 0.5  # Gym's own baseline statistics
    assert (
        body["key_metrics"]["pass@2/accuracy"] == 100.0
        and body["key_metrics"]["pass@1[avg-of-2]/accuracy"] == 50.0
    )
