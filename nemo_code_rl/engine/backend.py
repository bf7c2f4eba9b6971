"""One interface over the execution backends, and the one factory that builds them from config.

The backends run the same batches and return the same results; they differ in where programs run:

* ``process``: ``ExecutionPool``, warm worker processes on this host, isolated by the kernel;
* ``docker``: ``DockerExecutionPool``, warm workers in long-lived, locked-down containers;
* ``ray``: ``RayExecutionPool``, one local pool in each Ray actor, over a cluster's nodes.

Everything that judges code (the verifiers, the NeMo RL environments, the TRL rewards, the Gym
server, ``nemo-code-rl score``) takes a ``backend`` section (``BackendConfig``) and builds its
backend with ``make_backend``. Ownership has one rule: whoever calls ``make_backend`` owns the
backend and closes it; a backend handed to a verifier or a reward (``pool=``) is borrowed and
never closed by the borrower.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any, Literal, Protocol

from nemo_code_rl.config_keys import ConfigError, ConfigSection, config_section
from nemo_code_rl.engine import sandbox
from nemo_code_rl.engine.pool import (
    DEFAULT_PRELOAD,
    CancelCheck,
    DoneCallback,
    ExecutionPool,
    ProgressCallback,
    StopPredicate,
)
from nemo_code_rl.engine.program import PlannedProgram, Program
from nemo_code_rl.engine.results import ExecutionResult

BackendKind = Literal["process", "docker", "ray"]


class ExecutionBackend(Protocol):
    """What every backend offers the code that judges: batches in, one result per input out."""

    # Whether ``run_batch`` asks ``stop_when`` in the calling process as each result arrives, so
    # a caller can watch results stream (``score`` writing rows as programs finish); otherwise it
    # is pickled and asked where the programs run, and the caller sees results when the batch is
    # over. (``cancelled`` is asked in the calling process by every backend.)
    asks_stop_when_here: bool

    @property
    def size(self) -> int:
        """Programs that run at once (worker processes or containers, over every node)."""
        ...

    @property
    def isolation(self) -> str:
        """The isolation level the workers obtained (``full``, ``namespaces``, ``none``, ``container``)."""
        ...

    def run(self, program: Program) -> list[ExecutionResult]: ...

    def run_batch(
        self,
        programs: Sequence[Program | PlannedProgram],
        progress: ProgressCallback | None = None,
        stop_when: StopPredicate | None = None,
        on_done: DoneCallback | None = None,
        cancelled: CancelCheck | None = None,
    ) -> list[list[ExecutionResult]]:
        """One list of results per program, one result per input, in input order (``WorkerPool.run_batch``).

        A ``PlannedProgram`` is built in the calling process: as its turn comes, or while the
        workers run, on a worker-process or Docker pool; before the batch starts, on Ray.

        ``on_done(program_index, results)`` gets each program's results as it finishes (as each
        chunk comes back, with ``ray``).

        ``cancelled(program_index)``, asked in the calling process as a program is about to start
        and every ``CANCEL_POLL_S`` seconds while it runs, says the caller no longer wants it (its
        client has gone): a waiting one never starts, a running one is stopped mid-input, and the
        inputs it leaves unrun get ``not_run``. It is separate from ``stop_when``, which decides
        as each input ends.

        With the ``ray`` backend, ``stop_when`` is pickled and asked in the actors: it must not
        hold the backend or rely on mutating the caller's state.
        """
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Any: ...

    def __exit__(self, *exc_info: object) -> None: ...


@config_section
class RayOptions(ConfigSection):
    """The ``ray`` backend's options.

    Args:
        address: the cluster to connect to when this process is not connected to one yet (a
            NeMo RL actor always is: then leave it unset). Unset: ``$RAY_ADDRESS``, else a new
            local cluster, which lasts as long as this process.
        num_actors: engine actors, spread over the nodes; unset: one per node with CPUs, sized
            to its CPUs (``workers`` then sets each actor's workers).
        actor_options: Ray options of each actor, over the pool's ``{"num_cpus": 1}``.
    """

    WHERE = "backend.ray"

    address: str | None = None
    num_actors: int | None = None
    actor_options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.num_actors is not None and self.num_actors < 1:
            raise ConfigError(f"num_actors must be at least 1 or null, got {self.num_actors}")


@config_section
class BackendConfig(ConfigSection):
    """Where judged programs run: the ``backend`` section (``kind`` and that kind's options).

    The worker count and the isolation level stay where they were set before backends existed
    (``workers`` / ``isolation`` beside this section) and apply to every kind: ``workers`` is
    the worker processes or containers of the pool (of each actor, with ``ray``); ``isolation``
    is the sandbox level of worker processes (``process``, and each Ray actor's pool), while
    Docker's containers always run at level ``container``.

    Args:
        kind: ``process`` (default), ``docker`` or ``ray``.
        image: ``docker`` only: the image of the worker containers; unset:
            ``$NEMO_CODE_RL_DOCKER_IMAGE``, else ``nemo-code-rl-test:latest``.
        ray: ``ray`` only: ``RayOptions``.

    >>> BackendConfig.from_dict({"kind": "docker", "image": "python:3.12"}).image
    'python:3.12'
    """

    WHERE = "backend"

    kind: BackendKind = "process"
    image: str | None = None
    ray: RayOptions = field(default_factory=RayOptions)

    def __post_init__(self) -> None:
        if self.image is not None and self.kind != "docker":
            raise ConfigError(f"image is an option of kind 'docker', not of kind {self.kind!r}")
        if self.image == "":
            raise ConfigError("image must name an image, got ''")
        if self.ray != RayOptions() and self.kind != "ray":
            raise ConfigError(f"ray is an option of kind 'ray', not of kind {self.kind!r}")


def backend_config(
    value: BackendConfig | Mapping[str, Any] | str | None, where: str = "backend"
) -> BackendConfig:
    """``value`` as a ``BackendConfig``: one already, its dict form, a kind's name, or ``None`` (default).

    >>> backend_config("ray").kind
    'ray'
    >>> backend_config({"kind": "docker", "imag": "x"}, "env.code.backend")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    nemo_code_rl.config_keys.ConfigError: unknown key 'imag' in env.code.backend; did you mean 'image'? ...
    """
    return BackendConfig.from_dict({"kind": value} if isinstance(value, str) else value, where)


def make_backend(
    config: BackendConfig | Mapping[str, Any] | str | None = None,
    *,
    workers: int | None = None,
    isolation: str = sandbox.FULL,
    preload: Sequence[str] = DEFAULT_PRELOAD,
) -> ExecutionBackend:
    """Start the backend ``config`` describes; the caller owns it (close it, or use ``with``).

    Args:
        config: a ``BackendConfig``, its dict form, a kind's name, or ``None`` (``process``).
        workers: workers of the pool (of each actor, with ``ray``); ``None``: the CPUs available.
        isolation: the sandbox level of worker processes (not Docker's: see ``BackendConfig``).
        preload: modules each worker imports once, so programs get them for free.
    """
    config = backend_config(config)
    if config.kind == "docker":
        from nemo_code_rl.engine.docker_pool import DockerExecutionPool

        return DockerExecutionPool(workers=workers, preload=preload, image=config.image)
    if config.kind == "ray":
        return _ray_backend(config.ray, workers, isolation, preload)
    return ExecutionPool(workers=workers, isolation=isolation, preload=preload)


def _ray_backend(
    options: RayOptions, workers: int | None, isolation: str, preload: Sequence[str]
) -> ExecutionBackend:
    import ray

    from nemo_code_rl.engine.ray_pool import RayExecutionPool

    if not ray.is_initialized():
        ray.init(address=options.address, include_dashboard=False)
    elif options.address is not None:
        raise ConfigError(
            f"ray.address is {options.address!r}, but this process is already connected to a Ray "
            "cluster: leave ray.address unset to use that one"
        )
    return RayExecutionPool(
        num_actors=options.num_actors,
        workers_per_actor=workers,
        isolation=isolation,
        actor_options=options.actor_options,
        preload=list(preload),
    )
