"""The resources server as a FastAPI app, and the entry point Gym runs (``python app.py``).

``create_app`` builds the standalone app: Gym's endpoints and schemas without Gym installed, for
``python -m nemo_code_rl.gym_server`` or any ASGI server. Gym's launcher starts a resources server
by running ``app.py`` in the server's folder, in a virtual environment that has ``nemo_gym``; run
that way, this module serves ``NemoCodeRLResourcesServer``, the same verification behind Gym's own
base classes (``gym_resources_server``), so Gym's middleware, config loading and metrics apply.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from nemo_code_rl.gym_server.family_io import GYM_FAMILIES
from nemo_code_rl.gym_server.metrics import aggregate_metrics
from nemo_code_rl.gym_server.models import (
    AggregateMetrics,
    AggregateMetricsRequest,
    SeedSessionRequest,
    SeedSessionResponse,
    ServerOptions,
)
from nemo_code_rl.gym_server.service import VerificationService, VerificationUnavailable
from nemo_code_rl.rows import ProblemFormatError

_DISCONNECT_POLL_S = 0.5

# Verification keeps no state between requests, so a rollout can be re-verified from its record
# (Gym's ``ReverifyMode.STATELESS``).
REVERIFY_MODE = "stateless"


def create_app(config: ServerOptions | Mapping[str, Any] | None = None) -> FastAPI:
    """The standalone app: ``POST /seed_session``, ``/verify``, ``/aggregate_metrics``, and
    ``GET /`` (liveness) and ``/reverify_mode``, as Gym's resources servers serve them.

    The engine pool starts with the app (its lifespan) and stops with it, so a server answers
    ``GET /`` only once its sandbox workers are up.
    """
    options = config if isinstance(config, ServerOptions) else ServerOptions.model_validate(config or {})
    app = FastAPI(
        title="nemo-code-rl code verification (NeMo Gym resources server)", lifespan=service_lifespan(options)
    )
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]  # typed for Exception

    @app.get("/")
    async def liveness() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/reverify_mode")
    async def reverify_mode() -> str:
        return REVERIFY_MODE

    @app.post("/seed_session")
    async def seed_session(body: SeedSessionRequest) -> SeedSessionResponse:
        return SeedSessionResponse()

    family = GYM_FAMILIES[options.family]

    async def verify(body: BaseModel, request: Request) -> BaseModel:
        data = body.model_dump(mode="json", exclude_unset=True)
        details = await verify_or_http_error(request.app.state.service, data, request)
        return family.response_model.model_validate({**data, **details})

    # The family's request and response models, for FastAPI's validation and schema.
    verify.__annotations__.update({"body": family.request_model, "return": family.response_model})
    app.post("/verify", response_model_exclude_unset=True)(verify)

    @app.post("/aggregate_metrics")
    async def aggregate(body: AggregateMetricsRequest) -> AggregateMetrics:
        return aggregate_metrics(body.verify_responses, family)

    return app


def service_lifespan(options: ServerOptions) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """A lifespan that starts the verification service as ``app.state.service`` and stops it."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service = await asyncio.to_thread(VerificationService, options)
        app.state.service = service
        try:
            yield
        finally:
            await asyncio.to_thread(service.close)

    return lifespan


async def verify_or_http_error(
    service: VerificationService, request: Mapping[str, Any], http: Request | None = None
) -> dict[str, Any]:
    """``service.verify``, with a row whose tests cannot be read answered by a 422 naming the
    field, and an engine failure by a 503 (the client may retry; no reward is made up). With
    ``http``, a client that disconnects (or a server shutting down) stops the request's program."""
    gone = threading.Event()
    watcher = asyncio.create_task(_watch_disconnect(http, gone)) if http is not None else None
    try:
        return await service.verify(request, gone)
    except ProblemFormatError as error:
        location = ["body", *(error.field or "").split(".")] if error.field else ["body"]
        raise HTTPException(
            status_code=422, detail=[{"loc": location, "msg": str(error), "type": "problem_format"}]
        ) from error
    except VerificationUnavailable as error:
        raise HTTPException(status_code=503, detail=str(error)) from error
    finally:
        gone.set()  # a no-op once answered; stops the program when the task was cancelled
        if watcher is not None:
            watcher.cancel()


async def _watch_disconnect(http: Request, gone: threading.Event) -> None:
    while not await http.is_disconnected():
        await asyncio.sleep(_DISCONNECT_POLL_S)
    gone.set()


async def _validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
    """FastAPI's 422, without echoing the (often very long) offending input back."""
    errors = [{"loc": list(item["loc"]), "msg": item["msg"], "type": item["type"]} for item in error.errors()]
    return JSONResponse(status_code=422, content={"detail": errors})


if __name__ == "__main__":
    from nemo_code_rl.gym_server.gym_resources_server import NemoCodeRLResourcesServer

    NemoCodeRLResourcesServer.run_webserver()
