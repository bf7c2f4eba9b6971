"""The server on NeMo Gym's own base classes; importing this module needs ``nemo_gym``.

Gym's ``SimpleResourcesServer`` supplies the routes, the session middleware, config loading from
Gym's global config and the baseline of ``/aggregate_metrics``; this class supplies verification
(the engine pool starts and stops with the app) and ``code_gen``'s task metrics. Request and
response schemas extend Gym's ``BaseVerifyRequest`` / ``BaseVerifyResponse`` with the fields of
``models``, so both apps validate and answer alike.
"""

from __future__ import annotations

from typing import Any, ClassVar

from fastapi import FastAPI, Request
from pydantic import ConfigDict

try:
    from nemo_gym import base_resources_server
    from nemo_gym.base_resources_server import (
        BaseResourcesServerConfig,
        BaseVerifyRequest,
        BaseVerifyResponse,
        SimpleResourcesServer,
    )
except ImportError as error:  # the standalone app needs no Gym; say which one to run
    raise ImportError(
        "nemo_code_rl.gym_server.gym_resources_server needs nemo_gym (Gym installs it in the server's "
        "environment); without Gym, serve the standalone app: python -m nemo_code_rl.gym_server"
    ) from error

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.families import UNIT_TESTS
from nemo_code_rl.gym_server.app import service_lifespan, verify_or_http_error
from nemo_code_rl.gym_server.metrics import key_metrics, pass_metrics
from nemo_code_rl.gym_server.models import ServerOptions, VerifierMetadata, VerifyDetails

# Gym releases after 0.4.0 ask each server whether a rollout can be re-verified from its record.
_REVERIFY_MODE = getattr(base_resources_server, "ReverifyMode", None)


class NemoCodeRLServerConfig(ServerOptions, BaseResourcesServerConfig):
    """Gym's server config (host, port, name, ...) with this server's options."""

    model_config = ConfigDict(extra="ignore")

    REVERIFY_MODE: ClassVar[Any] = _REVERIFY_MODE.STATELESS if _REVERIFY_MODE is not None else None


class NemoCodeRLVerifyRequest(BaseVerifyRequest):
    """Gym's verify request with the row's ``verifier_metadata``; other row fields are kept."""

    model_config = ConfigDict(extra="allow")

    verifier_metadata: VerifierMetadata


class NemoCodeRLVerifyResponse(VerifyDetails, NemoCodeRLVerifyRequest, BaseVerifyResponse):
    """Gym's verify response with ``code_gen``'s fields and ours."""


class NemoCodeRLResourcesServer(SimpleResourcesServer):
    """A drop-in for Gym's ``code_gen`` resources server, verifying in nemo-code-rl's sandbox."""

    config: NemoCodeRLServerConfig

    def setup_webserver(self) -> FastAPI:
        if self.config.family != UNIT_TESTS.name:
            raise ConfigError(
                f"family {self.config.family!r}: on Gym's base classes this server serves"
                f" {UNIT_TESTS.name} only; serve another family with the standalone app"
                " (python -m nemo_code_rl.gym_server)"
            )
        app = super().setup_webserver()
        app.router.lifespan_context = service_lifespan(self.config)
        return app

    async def verify(self, body: NemoCodeRLVerifyRequest, request: Request) -> NemoCodeRLVerifyResponse:
        data = body.model_dump(mode="json")
        details = await verify_or_http_error(request.app.state.service, data, request)
        return NemoCodeRLVerifyResponse.model_validate({**data, **details})

    def compute_metrics(self, tasks: list[list[dict[str, Any]]]) -> dict[str, Any]:
        return pass_metrics(tasks)

    def get_key_metrics(self, agent_metrics: dict[str, Any]) -> dict[str, Any]:
        return key_metrics(agent_metrics)
