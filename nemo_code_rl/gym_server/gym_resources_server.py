"""The server on NeMo Gym's own base classes; importing this module needs ``nemo_gym``.

Gym's ``SimpleResourcesServer`` supplies the routes, the session middleware, config loading from
Gym's global config and the baseline of ``/aggregate_metrics``; this class supplies verification
(the engine pool starts and stops with the app) and the family's task metrics, for whichever
family ``family`` names (``family_io.GYM_FAMILIES``). ``/verify`` validates and answers with the
family's request and response models (``family_io``) on Gym's ``BaseVerifyRequest`` /
``BaseVerifyResponse`` (``gym_verify_models``), so both apps validate and answer alike.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

from fastapi import FastAPI, Request
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, create_model

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

from nemo_code_rl.gym_server.app import service_lifespan, verify_or_http_error
from nemo_code_rl.gym_server.family_io import GYM_FAMILIES, GymFamily
from nemo_code_rl.gym_server.metrics import key_metrics, task_metrics
from nemo_code_rl.gym_server.models import ServerOptions

# Gym releases after 0.4.0 ask each server whether a rollout can be re-verified from its record.
_REVERIFY_MODE = getattr(base_resources_server, "ReverifyMode", None)
_VERIFY_PATH = "/verify"


class NemoCodeRLServerConfig(ServerOptions, BaseResourcesServerConfig):
    """Gym's server config (host, port, name, ...) with this server's options."""

    model_config = ConfigDict(extra="ignore")

    REVERIFY_MODE: ClassVar[Any] = _REVERIFY_MODE.STATELESS if _REVERIFY_MODE is not None else None


@functools.cache
def gym_verify_models(family_name: str) -> tuple[type[BaseVerifyRequest], type[BaseVerifyResponse]]:
    """The verify request and response of a family on Gym's base classes: Gym's typed
    ``responses_create_params`` and ``response`` (as Gym's clients send and parse them), and the
    family's own fields (``family_io``), other row fields kept."""
    family = GYM_FAMILIES[family_name]
    request = create_model(
        f"Gym{family.request_model.__name__}",
        __base__=(BaseVerifyRequest, family.request_model),
        __module__=__name__,
        __doc__=f"Gym's verify request with the {family_name} family's fields.",
    )
    response = create_model(
        f"Gym{family.response_model.__name__}",
        __base__=(BaseVerifyResponse, family.response_model),
        __module__=__name__,
        __doc__=f"Gym's verify response with the {family_name} family's fields.",
    )
    return request, response


class NemoCodeRLResourcesServer(SimpleResourcesServer):
    """A drop-in for Gym's ``code_gen`` (``family: code_unit_tests``) or a program-judging server
    for Gym's ``arc_agi`` rows (``family: arc_programs``), verifying in nemo-code-rl's sandbox."""

    config: NemoCodeRLServerConfig

    @property
    def family(self) -> GymFamily:
        """The family this server verifies (the config's ``family``)."""
        return GYM_FAMILIES[self.config.family]

    def setup_webserver(self) -> FastAPI:
        """Gym's app, its ``/verify`` typed by the family's models, the engine pool in its lifespan.

        Gym routes ``/verify`` to ``verify`` with the request type of its signature, which one
        class cannot vary by family; that route is replaced by one of the family's models.
        """
        app = super().setup_webserver()
        app.router.lifespan_context = service_lifespan(self.config)
        request_model, response_model = gym_verify_models(self.config.family)

        async def verify(body: BaseModel, request: Request) -> BaseModel:
            return await self.verify(body, request)

        verify.__annotations__.update({"body": request_model, "return": response_model})
        app.router.routes[:] = [
            route
            for route in app.router.routes
            if not (isinstance(route, APIRoute) and route.path == _VERIFY_PATH)
        ]
        app.post(_VERIFY_PATH)(verify)
        return app

    async def verify(self, body: BaseModel, request: Request) -> BaseVerifyResponse:
        """The family's verification of one rollout (``body``: the family's Gym request)."""
        data = body.model_dump(mode="json")
        details = await verify_or_http_error(request.app.state.service, data, request)
        return gym_verify_models(self.config.family)[1].model_validate({**data, **details})

    def compute_metrics(self, tasks: list[list[dict[str, Any]]]) -> dict[str, Any]:
        return task_metrics(tasks, self.family)

    def get_key_metrics(self, agent_metrics: dict[str, Any]) -> dict[str, Any]:
        return key_metrics(agent_metrics)
