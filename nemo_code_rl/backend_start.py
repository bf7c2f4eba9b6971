"""``score``'s backend, started in a thread so that its workers come up while the parent does the rest.

Starting a pool is most of a second for 16 workers (each worker's interpreter, imports, sandbox,
template); the parent meanwhile has its own fixed work: importing the verification stack and the
configuration system under it (pydantic), building the command line, reading the input. Begun
first, the pool's start overlaps all of that instead of the input reading only.

The command line cannot be parsed that early: its parser shows the configs' defaults, so building
it imports what the pool should overlap. ``start_early`` therefore reads only the three options
that decide the pool (``--workers``, ``--isolation``, ``--backend``) from the raw arguments and
starts the worker-process pool they name; the full parse then confirms it (``backend``): the same
options get the started pool, any other answer (an abbreviated option, a default that differs
from the guess) closes it and starts the right one. A Ray or Docker backend is never started early
(``ray.init`` wants the main thread; containers start through ``make_backend`` as before).
"""

from __future__ import annotations

import argparse
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from nemo_code_rl.engine.backend import ExecutionBackend

_EARLY_KIND = "process"  # the only kind started before the full parse: worker processes on this host


@dataclass(frozen=True)
class _Options:
    kind: str
    workers: int | None
    isolation: str


@dataclass
class EarlyStart:
    """A worker-process pool starting from the raw arguments, until ``backend`` takes or closes it."""

    options: _Options
    starting: Future[ExecutionBackend] | None

    def discard(self, wait: bool = True) -> None:
        """Close the pool (the command did not use it); ``wait=False`` closes it in its own thread
        once it has started, so that other work need not wait for its start."""
        starting, self.starting = self.starting, None
        if starting is None:
            return
        if wait:
            close_when_started(starting)
        else:
            starting.add_done_callback(close_when_started)


def start_early(argv: list[str]) -> EarlyStart | None:
    """The pool ``nemo-code-rl score`` with ``argv`` (the command's arguments, ``score`` first) would
    run on, starting now; ``None`` for another command, for ``--help``, for a Ray or Docker
    backend, or when the three options cannot be read (the full parse will say why)."""
    if argv[:1] != ["score"] or "-h" in argv or "--help" in argv:
        return None
    reader = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    for option in ("--workers", "--isolation", "--backend"):
        reader.add_argument(option)
    try:
        given, _ = reader.parse_known_args(argv[1:])
        workers = None if given.workers is None else int(given.workers)
    except (argparse.ArgumentError, ValueError):
        return None
    from nemo_code_rl.engine import sandbox

    isolation = sandbox.FULL if given.isolation is None else given.isolation
    if given.backend not in (None, _EARLY_KIND) or isolation not in sandbox.USER_LEVELS:
        return None
    if workers is not None and workers < 1:
        return None
    from nemo_code_rl.engine.pool import DEFAULT_PRELOAD, ExecutionPool

    def start() -> ExecutionBackend:  # what ``make_backend("process", ...)`` builds, without its configs
        return ExecutionPool(workers=workers, isolation=isolation, preload=DEFAULT_PRELOAD)

    return EarlyStart(_Options(_EARLY_KIND, workers, isolation), _in_thread(start))


def backend(
    early: EarlyStart | None, kind: str, workers: int | None, isolation: str
) -> Future[ExecutionBackend]:
    """The backend for the parsed options: the early one when it was started with the same options,
    else a new one (a worker-process or Docker backend starting in a thread; a Ray one started here,
    as ``ray.init`` wants the main thread), once the early one, a wrong guess, is closed."""
    if early is not None and early.options == _Options(kind, workers, isolation) and early.starting:
        starting, early.starting = early.starting, None
        return starting
    if early is not None:
        early.discard()
    from nemo_code_rl.engine.backend import make_backend

    if kind == "ray":
        started: Future[ExecutionBackend] = Future()
        started.set_result(make_backend(kind, workers=workers, isolation=isolation))
        return started
    return _in_thread(lambda: make_backend(kind, workers=workers, isolation=isolation))


def _in_thread(start: Callable[[], ExecutionBackend]) -> Future[ExecutionBackend]:
    """``start()`` running in a thread of its own; its result (or error) in the returned future."""
    starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="backend-start")
    starting = starter.submit(start)
    starter.shutdown(wait=False)
    return starting


def close_when_started(starting: Future[ExecutionBackend]) -> None:
    """Stop a backend that is no longer wanted, once started (an error starting it is moot)."""
    if starting.exception() is None:
        starting.result().close()
