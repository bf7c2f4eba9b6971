"""One batch API over every node of a Ray cluster: Ray actors, each owning a local ``ExecutionPool``.

A batch is split into chunks of equal work (tests, not programs: see ``balance``), heaviest first,
and handed to the actors as they become free, at most ``_IN_FLIGHT`` chunks each, so a fast node
takes more chunks than a slow one. An actor that dies mid-batch (node lost, OOM-killed,
``ray.kill``) is replaced and its chunks are re-run, so every call still returns one result per
input, in input order. The other actors go on taking chunks while the replacement waits to be
placed, so a batch finishes even when no node has room for it (the lost node held its CPUs). Ray
is imported only when a pool is created: the base install does not need it.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from nemo_code_rl.engine import sandbox
from nemo_code_rl.engine.balance import split_by_work, work_of
from nemo_code_rl.engine.limits import Limits
from nemo_code_rl.engine.pool import (
    CANCEL_POLL_S,
    CancelCheck,
    DoneCallback,
    ExecutionPool,
    ProgressCallback,
    StopPredicate,
    WorkerPool,
)
from nemo_code_rl.engine.program import PlannedProgram, Program, built
from nemo_code_rl.engine.results import ExecutionResult, Verdict

logger = logging.getLogger(__name__)

_CHUNKS_PER_ACTOR = 4
_IN_FLIGHT = 2
_MAX_ATTEMPTS = 2
_PLACEMENT_TIMEOUT_S = 120.0
_BACKENDS = ("process", "docker")
# The actors' concurrency group of ``cancel``: it runs beside a chunk's ``run`` (the default
# group, one call at a time), so a cancellation reaches a running chunk.
_CANCEL_GROUP = "cancel"


class EngineActor:
    """The body of each Ray actor: a local pool, a translation of chunk indices for ``stop_when``,
    and the programs its caller cancelled (``cancel``), which its pool's ``cancelled`` check reads.
    """

    def __init__(self, workers: int | None, backend: str, pool_options: dict[str, Any]) -> None:
        if backend == "docker":
            from nemo_code_rl.engine.docker_pool import DockerExecutionPool

            self._pool: WorkerPool = DockerExecutionPool(workers=workers, **pool_options)
        else:
            self._pool = ExecutionPool(workers=workers, **pool_options)
        self._cancelled: set[tuple[int, int]] = set()  # (batch, the caller's program index)
        self._cancelled_lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        """Where this actor runs and what it owns, for monitoring and for the soak's leftover count."""
        import ray

        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
            "workers": self._pool.size,
            "worker_pids": self._pool.worker_pids,
            "sandbox_uids": list(self._pool.sandbox_uids),
            "isolation": self._pool.isolation,
            "container_ids": getattr(self._pool, "container_ids", []),
        }

    def run(
        self,
        programs: list[Program],
        indices: list[int],
        stop_when: StopPredicate | None,
        batch: int | None = None,
        cancelled_already: Sequence[int] = (),
    ) -> list[list[ExecutionResult]]:
        """Run a chunk (``indices``: its programs' indices in the caller's batch). With ``batch``
        (the caller's batch number), the chunk is cancellable: ``cancelled_already`` are its
        programs cancelled before it was handed out, and ``cancel`` adds others while it runs."""
        local_stop = None
        if stop_when is not None:

            def local_stop(program: int, test: int, result: ExecutionResult) -> bool:
                return stop_when(indices[program], test, result)

        local_cancelled = None
        if batch is not None:
            with self._cancelled_lock:  # an earlier batch's cancellations are over
                self._cancelled = {key for key in self._cancelled if key[0] >= batch}
            self.cancel(batch, cancelled_already)

            def local_cancelled(program: int) -> bool:
                return (batch, indices[program]) in self._cancelled

        return self._pool.run_batch(programs, stop_when=local_stop, cancelled=local_cancelled)

    def cancel(self, batch: int, indices: Sequence[int]) -> None:
        """The caller no longer wants these programs of its batch ``batch`` (run in ``_CANCEL_GROUP``)."""
        with self._cancelled_lock:
            self._cancelled.update((batch, index) for index in indices)

    def close(self) -> None:
        self._pool.close()


class RayExecutionPool:
    """``ExecutionPool``'s batch API spread over the nodes of a Ray cluster.

    Args:
        num_actors: how many engine actors; ``None`` places one on every alive node with CPUs,
            each sized to that node's CPUs. With a number, actors are spread over the nodes
            (``SPREAD``) and each uses ``workers_per_actor`` workers.
        workers_per_actor: worker processes of each actor's pool; ``None`` means the node's CPUs
            (one actor per node) or the CPUs the actor's process may use (``num_actors`` given).
        limits / isolation / strict / **pool_options: passed to each actor's pool (``isolation``
            only to the process backend; ``image`` only to the Docker backend).
        backend: ``"process"`` (each actor owns an ``ExecutionPool``) or ``"docker"`` (each actor
            owns a ``DockerExecutionPool`` talking to its node's Docker engine).
        actor_options: Ray options of each actor, over ``{"num_cpus": 1}`` (the actor reserves one
            CPU for itself; its workers use the node's cores outside Ray's accounting). The pool
            replaces dead actors itself, so Ray's ``max_restarts`` is always 0.
        chunks_per_actor: a batch is cut into this many chunks per actor; more chunks balance
            uneven nodes better, fewer cost fewer Ray calls.

    ``run_batch(..., stop_when=...)`` works, but the predicate is pickled (cloudpickle) and asked
    inside the actor that runs the program, not in the caller: it must not rely on mutating the
    caller's state. ``progress(done, total)`` and ``on_done(program_index, results)`` are called in
    the caller as chunks finish. ``cancelled`` is asked in the caller, every ``CANCEL_POLL_S``
    seconds, about the programs of the chunks in flight, and as a chunk is handed out; the
    programs it cancels are passed to their actor (``EngineActor.cancel``), whose pool stops them
    as the process backend does.

    Ray must be initialised (``ray.init``) before a pool is created; nodes need this package
    installed (as NeMo RL's containers have it).
    """

    # ``stop_when`` is asked in the actors (see ``ExecutionBackend``).
    asks_stop_when_here = False

    def __init__(
        self,
        num_actors: int | None = None,
        workers_per_actor: int | None = None,
        limits: Limits | None = None,
        isolation: str = sandbox.FULL,
        strict: bool = False,
        actor_options: dict[str, Any] | None = None,
        chunks_per_actor: int = _CHUNKS_PER_ACTOR,
        backend: str = "process",
        **pool_options: Any,
    ) -> None:
        import ray

        if not ray.is_initialized():
            raise RuntimeError("RayExecutionPool needs a Ray cluster: call ray.init() first")
        if num_actors is not None and num_actors < 1:
            raise ValueError(f"num_actors must be at least 1, got {num_actors}")
        if backend not in _BACKENDS:
            raise ValueError(f"backend must be one of {_BACKENDS}, got {backend!r}")
        if chunks_per_actor < 1:
            raise ValueError(f"chunks_per_actor must be at least 1, got {chunks_per_actor}")
        self._ray = ray
        self.limits = limits or Limits()
        self.chunks_per_actor = chunks_per_actor
        self.backend = backend
        self._pool_options = {"limits": self.limits, "strict": strict, **pool_options}
        if backend == "process":
            self._pool_options["isolation"] = isolation
        self._remote = ray.remote(concurrency_groups={_CANCEL_GROUP: 1})(EngineActor)  # type: ignore[call-overload]  # ray's overloads omit it
        self._batches = itertools.count()
        self._actor_options = {"num_cpus": 1, **(actor_options or {}), "max_restarts": 0}
        self._lock = threading.Lock()
        self._placements = self._plan(num_actors, workers_per_actor)
        self.actors: list[Any] = []
        self.last_chunk_work: list[int] = []
        self.replaced_actors = 0
        self._starting: dict[Any, int] = {}  # describe() ref of a replacement not yet placed -> slot
        try:
            self.actors = [self._start(slot) for slot in range(len(self._placements))]
            self._descriptions = self._describe_all()
        except BaseException:
            self.close()
            raise

    def _plan(self, num_actors: int | None, workers: int | None) -> list[tuple[dict[str, Any], int | None]]:
        """Per actor: its scheduling options and its worker count."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        if num_actors is not None:
            return [({"scheduling_strategy": "SPREAD"}, workers)] * num_actors
        nodes = [n for n in self._ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]
        if not nodes:
            raise RuntimeError("the Ray cluster has no alive node with CPUs")
        return [
            (
                # soft: a replacement for an actor of a lost node goes to another node
                {"scheduling_strategy": NodeAffinitySchedulingStrategy(node["NodeID"], soft=True)},
                workers or int(node["Resources"]["CPU"]),
            )
            for node in nodes
        ]

    def _start(self, slot: int) -> Any:
        options, workers = self._placements[slot]
        remote = self._remote.options(**self._actor_options, **options)
        return remote.remote(workers, self.backend, self._pool_options)

    def _describe_all(self) -> list[dict[str, Any]]:
        try:
            return self._ray.get(
                [actor.describe.remote() for actor in self.actors], timeout=_PLACEMENT_TIMEOUT_S
            )
        except self._ray.exceptions.RayActorError as exc:
            raise RuntimeError(f"an engine actor failed to start: {exc}") from exc
        except self._ray.exceptions.GetTimeoutError as exc:
            raise RuntimeError(
                f"engine actors were not placed within {_PLACEMENT_TIMEOUT_S:g} s: the cluster lacks the "
                f"resources they ask for ({self._actor_options}); lower them with actor_options"
            ) from exc

    @property
    def size(self) -> int:
        """Worker processes over all actors (programs that run at once)."""
        return sum(d["workers"] for d in self._descriptions)

    @property
    def isolation(self) -> str:
        return self._descriptions[0]["isolation"]

    @property
    def worker_pids(self) -> list[int]:
        """Worker process ids of every actor (meaningful on their own nodes only)."""
        return [pid for d in self._descriptions for pid in d["worker_pids"]]

    @property
    def actor_pids(self) -> list[int]:
        return [d["pid"] for d in self._descriptions]

    @property
    def container_ids(self) -> list[str]:
        """Worker containers of every actor, with the Docker backend (as they were at start-up)."""
        return [cid for d in self._descriptions for cid in d["container_ids"]]

    @property
    def sandbox_uids(self) -> set[int]:
        """Every uid the actors' programs may run as."""
        return {uid for d in self._descriptions for uid in d["sandbox_uids"]}

    def run(self, program: Program) -> list[ExecutionResult]:
        """Run one program on each of its inputs."""
        return self.run_batch([program])[0]

    def run_batch(
        self,
        programs: Sequence[Program | PlannedProgram],
        progress: ProgressCallback | None = None,
        stop_when: StopPredicate | None = None,
        on_done: DoneCallback | None = None,
        cancelled: CancelCheck | None = None,
    ) -> list[list[ExecutionResult]]:
        """Run every program on each of its inputs, spread over the actors by work.

        Returns one list per program, one ``ExecutionResult`` per input, in input order. Inputs of
        a chunk whose actor died twice get ``worker_lost``. Planned programs are built first, here:
        chunks travel to the actors whole.
        """
        with self._lock:
            if not self.actors:
                raise RuntimeError("this RayExecutionPool is closed")
            return self._dispatch([built(p) for p in programs], progress, stop_when, on_done, cancelled)

    def _dispatch(
        self,
        programs: list[Program],
        progress: ProgressCallback | None,
        stop_when: StopPredicate | None,
        on_done: DoneCallback | None,
        cancelled: CancelCheck | None,
    ) -> list[list[ExecutionResult]]:
        ray = self._ray
        weights = [work_of(p.input_count) for p in programs]
        chunks = split_by_work(weights, len(self.actors) * self.chunks_per_actor)
        self.last_chunk_work = [sum(weights[i] for i in chunk) for chunk in chunks]
        pending = deque(range(len(chunks)))
        attempts = [0] * len(chunks)
        results: list[list[ExecutionResult] | None] = [None] * len(programs)
        in_flight: dict[Any, tuple[int, int, Any]] = {}  # ref -> (chunk, slot, actor)
        # stored once, not pickled into every chunk's call: a verifier's predicate holds the batch's tests
        stop_ref = ray.put(stop_when) if stop_when is not None else None
        batch = next(self._batches) if cancelled is not None else None
        cancel_sent: set[int] = set()
        next_check = time.monotonic() + CANCEL_POLL_S
        done = 0

        def finish(chunk: int, values: list[list[ExecutionResult]]) -> None:
            nonlocal done
            for index, value in zip(chunks[chunk], values, strict=True):
                results[index] = value
                if on_done is not None:
                    on_done(index, value)
            done += len(chunks[chunk])
            if progress is not None:
                progress(done, len(programs))

        while pending or in_flight:
            starting = set(self._starting.values())
            for slot, actor in enumerate(self.actors):
                if slot in starting:
                    continue
                busy = sum(1 for _, s, _ in in_flight.values() if s == slot)
                for _ in range(_IN_FLIGHT - busy):
                    if not pending:
                        break
                    chunk = pending.popleft()
                    work = [programs[i] for i in chunks[chunk]]
                    skip = [i for i in chunks[chunk] if cancelled(i)] if cancelled is not None else []
                    cancel_sent.update(skip)
                    ref = actor.run.remote(work, chunks[chunk], stop_ref, batch, skip)
                    in_flight[ref] = (chunk, slot, actor)
            if not in_flight:
                # every actor is a replacement still waiting for a node: give up rather than hang
                ready, _ = ray.wait(list(self._starting), num_returns=1, timeout=_PLACEMENT_TIMEOUT_S)
                if not ready:
                    raise RuntimeError(
                        f"no engine actor left: none of the replacements was placed within "
                        f"{_PLACEMENT_TIMEOUT_S:g} s"
                    )
            else:
                wait_s = max(0.0, next_check - time.monotonic()) if cancelled is not None else None
                ready, _ = ray.wait([*in_flight, *self._starting], num_returns=1, timeout=wait_s)
            if cancelled is not None and time.monotonic() >= next_check:
                for chunk, _, actor in in_flight.values():
                    newly = [i for i in chunks[chunk] if i not in cancel_sent and cancelled(i)]
                    if newly:
                        cancel_sent.update(newly)
                        actor.cancel.options(concurrency_group=_CANCEL_GROUP).remote(batch, newly)
                next_check = time.monotonic() + CANCEL_POLL_S
            for ref in ready:
                if ref in self._starting:
                    slot = self._starting.pop(ref)
                    self._descriptions[slot] = ray.get(ref)
                    continue
                chunk, slot, actor = in_flight.pop(ref)
                try:
                    finish(chunk, ray.get(ref))
                except ray.exceptions.RayActorError as exc:
                    self._replace(slot, actor, exc)
                    attempts[chunk] += 1
                    if attempts[chunk] < _MAX_ATTEMPTS:
                        pending.appendleft(chunk)
                    else:
                        lost = ExecutionResult(Verdict.WORKER_LOST, error=f"engine actor lost twice: {exc}")
                        finish(chunk, [[lost] * programs[i].input_count for i in chunks[chunk]])
        return [r for r in results if r is not None]

    def _replace(self, slot: int, dead: Any, why: Exception) -> None:
        """Start a fresh actor in ``slot`` unless an earlier failure of the same actor already did.

        Does not wait for it to be placed: it gets chunks once its ``describe()`` answers.
        """
        if self.actors[slot] is not dead:
            return
        logger.warning(
            "engine actor %d lost (%s); replacing it and re-running its work", slot, type(why).__name__
        )
        self.actors[slot] = self._start(slot)
        self._starting[self.actors[slot].describe.remote()] = slot
        self.replaced_actors += 1

    def close(self) -> None:
        """Stop every actor and its workers; the pool cannot be used afterwards."""
        actors, self.actors = self.actors, []
        starting = set(self._starting.values())
        self._starting.clear()
        if not actors:
            return
        # a replacement never placed would not answer close() and only make this wait out the timeout
        placed = [actor for slot, actor in enumerate(actors) if slot not in starting]
        try:
            self._ray.get([actor.close.remote() for actor in placed], timeout=30)
        except Exception:
            logger.debug("some engine actors did not close cleanly", exc_info=True)
        for actor in actors:
            self._ray.kill(actor)

    def __enter__(self) -> RayExecutionPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
