"""Verify Gym rollouts in the sandboxed engine: the work behind ``/verify``, whichever app serves it.

Verification blocks, so it runs in a thread pool off the event loop; the requests waiting there
meet in one ``BatchCoalescer``, which hands everything queued to a single ``verify_batch``: the
engine's workers share one batch instead of each request running alone, and the pool, not a
semaphore, bounds the work in flight.

Infrastructure faults follow the package's one policy (``nemo_code_rl.fault_policy``): a failed
engine call is retried once; a row the sandbox could not judge gets a neutral reward from its
problem's recent judged rows (a request holds one row, so the current call alone has no peers)
and is flagged for Gym's failures file; once more than ``faults.max_fault_rate`` of recent rows
faulted, ``/verify`` answers 503 with the cause. A call lost twice is a 503 too (counted as a
fault): there is no verification to answer with, and Gym's client retries it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from nemo_code_rl.coalescer import BatchCoalescer
from nemo_code_rl.engine.backend import ExecutionBackend
from nemo_code_rl.fault_policy import Attempt, FaultPolicy, InfrastructureFaultError
from nemo_code_rl.gym_server.family_io import GYM_FAMILIES
from nemo_code_rl.gym_server.models import ServerOptions

# Gym routes a row carrying this key to its failures file instead of the results.
FAILURE_CLASS_KEY = "_ng_failure_class"
INFRA_FAILURE_CLASS = "verifier_infra_fault"

_THINK_TAGS = ("<think>", "</think>")


# A verify request's job: the family's verifier job (its subject and the model's output text), and
# the event set when its client has gone.
_Job = tuple[Any, threading.Event]


class VerificationUnavailable(RuntimeError):
    """The engine failed the whole batch (not a verdict on the model's answer)."""


class VerificationService:
    """Owns the execution backend and answers verify requests for the family of ``options``
    (``ServerOptions.family``); ``close`` stops the workers."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        self.family = GYM_FAMILIES[options.family]
        self._verifier = self.family.pieces.make_verifier(
            options.verifier_config(),
            workers=options.num_processes,
            isolation=options.isolation,
            backend=options.backend,
        )
        self._coalescer: BatchCoalescer[_Job, Any] = BatchCoalescer(self._verify_jobs)
        self._open: set[threading.Event] = set()
        self._open_lock = threading.Lock()
        self._faults = FaultPolicy(options.faults)
        self._executor = ThreadPoolExecutor(
            max_workers=options.max_concurrent_requests, thread_name_prefix="gym-verify"
        )

    def _verify_jobs(self, jobs: list[_Job]) -> list[Any]:
        return self.family.verify(
            self._verifier, [job for job, _ in jobs], lambda index: jobs[index][1].is_set()
        )

    @property
    def backend(self) -> ExecutionBackend:
        """The execution backend every request's programs run in (``options.backend``)."""
        return self._verifier.pool

    async def verify(self, request: Mapping[str, Any], gone: threading.Event | None = None) -> dict[str, Any]:
        """The fields ``/verify`` adds to ``request`` (a validated verify request, as JSON data).

        ``gone`` is set when the client has gone: the request's program is then stopped while it
        runs, mid-test, or never started (its tests not run are ``not_run``; the backend's
        ``run_batch(cancelled=...)``), and so is every open request's when the service closes.

        Raises ``ProblemFormatError`` when the row's tests (or task) cannot be read, and
        ``VerificationUnavailable`` when the engine failed the call twice or too many recent rows
        could not be judged (the fault policy's bound).
        """
        subject = self.family.subject(request)
        subject_id = self.family.pieces.subject_id(subject)
        output_text = response_output_text(request["response"])
        gone = gone or threading.Event()
        with self._open_lock:
            self._open.add(gone)
        loop = asyncio.get_running_loop()
        try:
            verified, cause = await loop.run_in_executor(
                self._executor,
                self._faults.verify,
                self._coalescer.submit,
                [(self.family.pieces.job(subject, output_text), gone)],
            )
        finally:
            with self._open_lock:
                self._open.discard(gone)
        verification = verified[0] if verified is not None else None
        reward = verification.reward if verification is not None else None
        default_cause = f"{subject_id}: the sandbox lost the program twice (worker_lost)"
        settlement = self._faults.settle([Attempt(subject_id, reward, cause=cause or default_cause)])
        if verification is None:
            raise VerificationUnavailable(cause)
        try:
            settlement.raise_if_failed()
        except InfrastructureFaultError as error:
            raise VerificationUnavailable(str(error)) from error
        violation = has_reasoning_format_violation(request["response"], output_text)
        return self._details(request, verification, settlement.rewards[0], output_text, violation)

    def _details(
        self,
        request: Mapping[str, Any],
        verification: Any,
        reward: float,
        output_text: str,
        violation: bool,
    ) -> dict[str, Any]:
        """The response fields: the family's, then the shared ones, which win (ARC's outcome
        carries the verifier's own ``reward``); ``reward`` is the judged one, the fault policy's
        for a fault, or the reasoning-format penalty."""
        if violation and not verification.infra_fault:
            reward = self.options.reasoning_format_penalty
        details: dict[str, Any] = {
            **self.family.details(request, verification),
            "reward": reward,
            "extracted_model_output": output_text if output_text.strip() else None,
            "reasoning_format_violation_rate": 1.0 if violation else 0.0,
        }
        if verification.infra_fault:
            details[FAILURE_CLASS_KEY] = INFRA_FAILURE_CLASS
        return details

    def close(self) -> None:
        """Stop taking work, stop the programs of open requests, then the sandbox workers (once
        the batch running has ended, so none is started behind the closing pool's back)."""
        with self._open_lock:
            for gone in self._open:
                gone.set()
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._verifier.close()


def response_output_text(response: Mapping[str, Any]) -> str:
    """The Responses API's ``output_text``: the text parts of the output messages, joined.

    This is what ``code_gen`` extracts code from; reasoning items are not part of it.
    """
    return "".join(
        part.get("text") or ""
        for item in response.get("output") or []
        if item.get("type") == "message"
        for part in item.get("content") or []
        if part.get("type") == "output_text"
    )


def has_reasoning_format_violation(response: Mapping[str, Any], output_text: str) -> bool:
    """``code_gen``'s rule: a think tag in the final text, or either tag twice in the reasoning."""
    if any(tag in output_text for tag in _THINK_TAGS):
        return True
    reasoning = "".join(
        summary.get("text") or ""
        for item in response.get("output") or []
        if item.get("type") == "reasoning"
        for summary in item.get("summary") or []
        if isinstance(summary, Mapping) and isinstance(summary.get("text"), str)
    )
    return any(reasoning.count(tag) > 1 for tag in _THINK_TAGS)
