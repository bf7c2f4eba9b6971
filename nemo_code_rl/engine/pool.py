"""A pool of warm, isolated workers that runs batches of programs.

The pool spreads programs over its workers (longest first, so one program with many tests does
not finish last), replaces a worker that dies, retries its program once and then reports
``worker_lost``. Every call returns exactly one result per input, in input order, whatever the
programs do.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from typing import Generic, Protocol, TypeVar

from nemo_code_rl.engine import cgroups, sandbox, wire
from nemo_code_rl.engine.collector_pause import collect_if_due, collector_paused_while_routing
from nemo_code_rl.engine.limits import Limits
from nemo_code_rl.engine.program import PlannedProgram, Program, built
from nemo_code_rl.engine.results import CANCELLED_ERROR, ExecutionResult, Verdict
from nemo_code_rl.engine.sandbox import IsolationUnavailable, SandboxConfig

logger = logging.getLogger(__name__)

DEFAULT_PRELOAD = (
    "array", "bisect", "cmath", "collections", "copy", "dataclasses", "datetime", "decimal",
    "fractions", "functools", "heapq", "io", "itertools", "json", "math", "operator", "queue",
    "random", "re", "statistics", "string", "sys", "threading", "time", "typing", "numpy",
)  # fmt: skip
_PASSED_ENV = ("LD_LIBRARY_PATH",)
_CGROUP_NUMBERS = itertools.count()
_JOB_GRACE_S = 15.0
_START_TIMEOUT_S = 60.0  # the longest a worker may take to start
# How often a batch asks its caller's ``cancelled`` about the programs it runs: a cancelled
# program stops within about this long (plus the supervisor's reaction).
CANCEL_POLL_S = 0.2
_BOOT = (
    "import sys; sys.path.insert(0, {root!r}); "
    "from nemo_code_rl.engine.worker import main; raise SystemExit(main())"
)

ProgressCallback = Callable[[int, int], None]
StopPredicate = Callable[[int, int, ExecutionResult], bool]
DoneCallback = Callable[[int, list[ExecutionResult]], None]
CancelCheck = Callable[[int], bool]
# The result of each input that a cancellation left unrun.
CANCELLED = ExecutionResult(Verdict.NOT_RUN, error=CANCELLED_ERROR)


class WorkerHandle(Protocol):
    """What a ``WorkerPool`` needs of one warm worker, wherever it runs (a process, a container).

    A worker speaks the engine's frame protocol (``wire``): its first frame is its start-up report
    (``ok``, ``level``, ...); then it answers each job's frame with its results.
    """

    index: int
    report: dict | None

    @property
    def out_fd(self) -> int: ...

    @property
    def pid(self) -> int: ...

    def exit_status(self) -> int | None: ...

    def startup_failure(self) -> str: ...

    def wait(self, timeout_s: float) -> bool: ...

    def read_frames(self) -> list | None: ...

    def send(self, frame: bytes) -> bool:
        """Write one encoded frame (``wire.encode``); False when the worker's input is closed."""
        ...

    def cancel(self, job: int) -> None: ...

    def kill(self) -> None: ...

    def close_pipes(self) -> None: ...


W = TypeVar("W", bound=WorkerHandle)


class _Worker:
    """The pool's handle on one worker process and the job it is running."""

    def __init__(self, index: int, settings: dict, cgroup: cgroups.ProgramCgroup | None = None) -> None:
        self.cgroup = cgroup
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": "/",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        env.update({k: os.environ[k] for k in _PASSED_ENV if k in os.environ})
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self.index = index
        self.process = subprocess.Popen(
            [sys.executable, "-s", "-E", "-c", _BOOT.format(root=root), json.dumps(settings)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd="/",
            start_new_session=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None  # both PIPE
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        self.reader = wire.FrameReader()
        self.report: dict | None = None

    @property
    def out_fd(self) -> int:
        return self.stdout.fileno()

    @property
    def pid(self) -> int:
        return self.process.pid

    def exit_status(self) -> int | None:
        return self.process.poll()

    def startup_failure(self) -> str:
        return f"execution worker {self.index} exited during start-up (see its stderr)"

    def wait(self, timeout_s: float) -> bool:
        """Wait for the worker to exit on its own; False if it is still running."""
        try:
            self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            return False
        self.release()
        return True

    def read_frames(self) -> list | None:
        """Frames now available, or ``None`` when the worker has gone."""
        try:
            chunk = os.read(self.out_fd, wire.READ_BYTES)
        except OSError:
            return None
        return self.reader.feed(chunk) if chunk else None

    def send(self, frame: bytes) -> bool:
        try:
            wire.write_bytes(self.stdin.fileno(), frame)
        except OSError:
            return False
        return True

    def cancel(self, job: int) -> None:
        """Ask the worker to stop ``job``; harmless if it has already finished."""
        with contextlib.suppress(OSError):
            wire.write_frame(self.stdin.fileno(), {"cancel": job})

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.close_pipes()
        self.process.wait()
        self.release()

    def release(self) -> None:
        """Remove the worker's program cgroup, once the worker has exited."""
        if self.cgroup is not None:
            self.cgroup.remove()

    def close_pipes(self) -> None:
        for pipe in (self.stdin, self.stdout):
            with contextlib.suppress(OSError):
                pipe.close()


def _await_handshakes(workers: Sequence[WorkerHandle], timeout_s: float, enough: int | None = None) -> None:
    """Wait until ``enough`` of ``workers`` (default: all) have sent their start-up report, and
    check each report that came."""
    deadline = time.monotonic() + timeout_s
    waiting = {w.out_fd: w for w in workers if w.report is None}
    wanted = len(waiting) if enough is None else enough - (len(workers) - len(waiting))
    while waiting and wanted > 0:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise RuntimeError(f"execution workers did not start within {timeout_s:g} s")
        ready, _, _ = select.select(list(waiting), [], [], remaining)
        for fd in ready:
            worker = waiting[fd]
            frames = worker.read_frames()
            if frames is None:
                raise RuntimeError(worker.startup_failure())
            if frames:
                worker.report = frames[0]
                _check_report(worker.report)
                del waiting[fd]
                wanted -= 1


def _check_report(report: dict) -> None:
    """Refuse a worker whose start-up report says it could not isolate its programs."""
    if report.get("ok"):
        return
    if report.get("level") == sandbox.CONTAINER:  # no namespaces to enable: the error says it all
        raise IsolationUnavailable(report.get("error"))
    raise IsolationUnavailable(
        f"{report.get('error')}. Run on a host that allows namespaces (as root, or with "
        "unprivileged user namespaces enabled), or lower the isolation explicitly with "
        "isolation='none' (rlimits and process groups only; untrusted code can then read and "
        "write what this user can)."
    )


def _shutdown(workers: list[W]) -> None:
    for worker in workers:
        worker.close_pipes()
    deadline = time.monotonic() + 5
    for worker in workers:
        if not worker.wait(max(0.0, deadline - time.monotonic())):
            worker.kill()
    workers.clear()


class WorkerPool(Generic[W]):
    """Warm workers made by ``spawn``, and the batch dispatch over them.

    Where a worker runs is the spawner's business (``ExecutionPool``: a local process;
    ``DockerExecutionPool``: a container): the pool only needs each worker to be a
    ``WorkerHandle``. It starts the workers, spreads batches over them, and replaces a worker
    that dies with ``spawn(its index)``.

    The pool is ready once one worker has sent its start-up report; the others join the batches
    as their reports come (each report checked as it comes; 60 s after the pool's start at the
    latest). A worker's start is mostly its template's preloads (numpy's import: 0.05-0.34 s on
    the 16-core GPU host, with the machine and the minute); there, a batch given to a fresh pool
    of 16 workers began 0.17-0.23 s sooner than when the pool waited for all of them.

    Args:
        spawn: starts worker ``index`` (also to replace a lost one).
        workers: number of workers; ``None``: the CPUs this process may use.
        limits / strict: the defaults of programs that set none.
        level: the isolation level asked for, reported until a worker has started.
        uid_base: the uid of worker 0's programs (worker ``i`` runs them as ``uid_base + i``).
    """

    # ``stop_when`` is asked in this process, as each result arrives (see ``ExecutionBackend``).
    asks_stop_when_here = True

    def __init__(
        self,
        spawn: Callable[[int], W],
        workers: int | None,
        limits: Limits | None,
        strict: bool,
        level: str,
        uid_base: int,
    ) -> None:
        count = worker_count(workers)
        self.limits = limits or Limits()
        self.strict = strict
        self._spawn = spawn
        self._level = level
        self._uid_base = uid_base
        self._lock = threading.Lock()
        self._workers: list[W] = []
        self._finalizer = weakref.finalize(self, _shutdown, self._workers)
        self._start_deadline = time.monotonic() + _START_TIMEOUT_S
        try:
            self._workers.extend(spawn(i) for i in range(count))
            _await_handshakes(self._workers, _START_TIMEOUT_S, enough=1)
        except BaseException:
            self.close()
            raise

    @property
    def isolation(self) -> str:
        """The isolation level the workers obtained."""
        return self._first_report().get("level", self._level)

    @property
    def isolation_report(self) -> dict:
        """What the first worker to start reported: level, identity, namespaces, preloads."""
        return {k: v for k, v in self._first_report().items() if k != "ok"}

    def _first_report(self) -> dict:
        return next((w.report for w in self._workers if w.report is not None), {})

    @property
    def size(self) -> int:
        return len(self._workers)

    @property
    def sandbox_uids(self) -> range:
        """The uids programs run as when the workers run as root (one per worker)."""
        return range(self._uid_base, self._uid_base + self.size)

    @property
    def handles(self) -> list[W]:
        """The workers now in service (a lost one is replaced by a new handle)."""
        return list(self._workers)

    @property
    def worker_pids(self) -> list[int]:
        """Process ids of the worker processes (for monitoring; killing one is survivable)."""
        return [w.pid for w in self._workers]

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
        """Run every program on each of its inputs, spread over the workers.

        Returns one list per program, one ``ExecutionResult`` per input, in input order. A
        ``PlannedProgram`` is built here as its turn comes, or while this process waits for the
        workers (in hand-out order). ``progress(done, total)`` is called as programs finish, and
        ``on_done(program_index, results)`` with each program's results as it finishes. An
        exception from a callback or a plan ends the batch: the workers still running one of its
        programs are replaced, and the exception reaches the caller. ``stop_when(program_index,
        input_index, result)`` is asked, in this process, as each input finishes; when it answers
        True the program is stopped and its remaining inputs get ``not_run``. It is how a caller
        exits early on a wrong answer; with ``Program.judge``, the result it is asked about is
        already judged in the worker. Without ``stop_when``, a program's results travel in one
        message when it ends; with it, one message per input.

        ``cancelled(program_index)`` says the caller no longer wants a program (its client has
        gone): it is asked, in this process, about each program as it is about to start, and
        about the running ones every ``CANCEL_POLL_S`` seconds. A running program it answers
        True for is stopped mid-input, one waiting is never started; the inputs either leaves
        unrun get ``not_run`` (``CANCELLED``). Without it, no such polling is done.
        """
        with self._lock:
            if not self._workers:
                raise RuntimeError(f"this {type(self).__name__} is closed")
            dispatch = _Dispatch(self, list(programs), progress, stop_when, on_done, cancelled)
            with collector_paused_while_routing():  # no collection stops the hand-outs
                try:
                    return dispatch.run()
                except BaseException:
                    dispatch.abandon()
                    raise

    def _job(self, program: Program, index: int, stream: bool, cancellable: bool) -> bytes:
        return wire.encode(
            {
                "id": index,
                "source": program.source,
                "inputs": program.encoded_inputs(),
                "limits": program.limits or self.limits,
                "strict": self.strict if program.strict is None else program.strict,
                "private": program.private,
                "stream": stream,
                "cancellable": cancellable,
                "judge": program.judge,
                "language": program.language.value,
                "compile": program.compile_settings,
            }
        )

    def _budget(self, program: Program) -> float:
        """Seconds the worker may take to answer ``program`` once it has started it."""
        limits = program.limits or self.limits
        return _JOB_GRACE_S + max(1, program.input_count) * (limits.wall_limit_s + 3)

    def close(self) -> None:
        """Stop every worker; the pool cannot be used afterwards."""
        self._finalizer()

    def __enter__(self) -> WorkerPool[W]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class ExecutionPool(WorkerPool[_Worker]):
    """Warm fork-server workers that run untrusted Python programs in isolation.

    Args:
        workers: number of worker processes (programs run in parallel); default: the CPUs
            this process may use.
        limits: default per-input limits (see ``Limits``).
        isolation: ``"full"`` (namespaces, unprivileged identity, read-only filesystem, and a
            cgroup per worker bounding the memory and processes of each program's processes
            together; refuses to start where the host does not permit it), ``"namespaces"``
            (the same without the cgroup, for hosts where this process cannot create one: each
            process is still bounded by ``RLIMIT_AS``) or ``"none"`` (rlimits only).
        strict: fork a fresh child for every input instead of one per program.
        preload: modules imported once in each worker, so programs get them for free.
        exposed_paths: host folders or files programs may read besides the minimal root (the
            Python installation, this package, the system's libraries), bound read-only at
            the same path.
        sandbox_uid: first uid of the range used for programs when running as root.

    Example:
        >>> with ExecutionPool(workers=1) as pool:                       # doctest: +SKIP
        ...     [r.stdout for r in pool.run(Program("print(input()[::-1])", ["abc"]))]
        ['cba\\n']
    """

    def __init__(
        self,
        workers: int | None = None,
        limits: Limits | None = None,
        isolation: str = sandbox.FULL,
        strict: bool = False,
        preload: Sequence[str] = DEFAULT_PRELOAD,
        exposed_paths: Sequence[str] = (),
        sandbox_uid: int | None = None,
    ) -> None:
        if isolation not in sandbox.LEVELS:
            raise ValueError(f"isolation must be one of {sandbox.USER_LEVELS}, got {isolation!r}")
        uid_base = sandbox_uid_base(sandbox_uid)
        # Compiled programs shared by the workers, outside every program's root (see
        # ``compiling``); not at level none, where programs see the host's files.
        self.binaries = (
            tempfile.mkdtemp(prefix="nemo-code-rl-binaries-") if isolation in sandbox.NAMESPACED else None
        )
        self._binaries_finalizer = weakref.finalize(self, _remove_folder, self.binaries)
        count = worker_count(workers)
        spawner = _ProcessSpawner(
            isolation, preload, exposed_paths, uid_base, self.binaries, quiet_chains(count)
        )
        super().__init__(spawner, count, limits, strict, isolation, uid_base)

    def close(self) -> None:
        super().close()
        self._binaries_finalizer()


def worker_count(workers: int | None) -> int:
    """A pool's number of workers: ``workers``, or by default the CPUs this process may use."""
    count = workers if workers is not None else len(os.sched_getaffinity(0))
    if count < 1:
        raise ValueError(f"workers must be at least 1, got {count}")
    return count


def quiet_chains(count: int) -> bool:
    """Whether the supervisors of a pool of ``count`` workers read what a fast program reports
    once, at its end (``supervisor._QUIET_CHAIN_S``): where the pool has a CPU for each worker
    or fewer, none is spare to read it while the program runs, and each wake-up takes the CPU
    from a program. With CPUs to spare, reading as the program runs costs no program any time."""
    return count >= len(os.sched_getaffinity(0))


def _remove_folder(path: str | None) -> None:
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)  # gone already is fine: nothing else uses it


def sandbox_uid_base(sandbox_uid: int | None) -> int:
    """The first uid of a pool's programs: ``sandbox_uid``, or a range chosen by this process's id."""
    return sandbox_uid if sandbox_uid is not None else 60000 + (os.getpid() * 37) % 4000


class _ProcessSpawner:
    """Starts the worker processes of an ``ExecutionPool``, each with its uid and, at ``full``, its cgroup."""

    def __init__(
        self,
        isolation: str,
        preload: Sequence[str],
        exposed_paths: Sequence[str],
        uid_base: int,
        binaries: str | None,
        quiet: bool,
    ) -> None:
        self.binaries = binaries
        self.quiet = quiet
        self.isolation = isolation
        self.preload = list(preload)
        self.exposed = tuple(exposed_paths)
        self.uid_base = uid_base

    def __call__(self, index: int) -> _Worker:
        config = SandboxConfig(level=self.isolation, uid=self.uid_base + index, exposed_paths=self.exposed)
        cgroup = None
        if self.isolation == sandbox.FULL:
            try:
                cgroup = cgroups.ProgramCgroup.create(
                    f"{cgroups.PREFIX}{os.getpid()}-{next(_CGROUP_NUMBERS)}"
                )
            except cgroups.CgroupsUnavailable as exc:
                raise IsolationUnavailable(
                    f"{exc}. Run as root or in a cgroup delegated to this user, or lower the isolation "
                    "explicitly with isolation='namespaces' (no limit on the sum of a program's "
                    "processes: each one still has its own memory limit)."
                ) from exc
        settings = {
            "sandbox": config.to_json_dict(),
            "preload": self.preload,
            "cgroup": cgroup.to_json_dict() if cgroup else None,
            "binaries": self.binaries,
            "quiet_chains": self.quiet,
        }
        return _Worker(index, settings, cgroup)


class _Dispatch:
    """One batch spread over a pool's workers: which worker runs which program, and its deadline.

    Programs are handed out longest first, one at a time to each idle worker. (Queueing a second
    program behind a running one was tried: on the 16-core host it gained nothing measurable, and
    a program queued behind an endless loop waited for its whole time limit while other workers
    were idle.) A worker that dies or misses its program's deadline is replaced, and that program
    is retried once, then gets ``worker_lost``. With a ``cancelled`` check, the poll's wait is
    capped at ``CANCEL_POLL_S`` so the check is asked on time even while every worker is busy.
    Planned programs are built as they are handed out, and ahead of that, in hand-out order,
    whenever every busy worker is still running (``_build_ahead``).
    """

    def __init__(
        self,
        pool: WorkerPool,
        programs: list[Program | PlannedProgram],
        progress: ProgressCallback | None,
        stop_when: StopPredicate | None,
        on_done: DoneCallback | None,
        cancelled: CancelCheck | None,
    ) -> None:
        self.pool, self.programs = pool, programs
        self.progress, self.stop_when, self.on_done = progress, stop_when, on_done
        self.cancelled = cancelled
        self.cancel_sent: set[int] = set()
        self.next_check = 0.0
        self.results: list[list[ExecutionResult] | None] = [None] * len(programs)
        self.pending = deque(sorted(range(len(programs)), key=lambda i: -programs[i].input_count))
        self.planned = deque(
            i for i in self.pending if isinstance(programs[i], PlannedProgram) and programs[i].input_count
        )
        self.attempts = [0] * len(programs)
        self.done = 0
        self.running: dict[WorkerHandle, int] = {}
        self.deadlines: dict[WorkerHandle, float] = {}
        self.by_fd: dict[int, WorkerHandle] = {}
        # workers whose start-up report has not come yet (the pool returns once one has started)
        self.starting = {w for w in pool._workers if w.report is None}
        self.poller = select.poll()
        for worker in pool._workers:
            self._watch(worker)

    def run(self) -> list[list[ExecutionResult]]:
        for job in [i for i, p in enumerate(self.programs) if p.input_count == 0]:
            self.pending.remove(job)
            self._finish(job, [])
        while self.done < len(self.programs):
            self._hand_out()
            if not self.deadlines:
                continue
            self._build_ahead()
            wake = min(self.deadlines.values())
            if self.starting:
                wake = min(wake, self.pool._start_deadline)
            if self.cancelled is not None:
                wake = min(wake, self.next_check)
            timeout = max(0.0, wake - time.monotonic())
            # Every worker that answered gets its next program before this process does anything
            # with the answers (the caller's ``on_done``, its progress), which then runs while
            # those programs do: with many workers, this process is what they wait for.
            finished: list[tuple[int, list[ExecutionResult]]] = []
            for fd, _ in self.poller.poll(math.ceil(timeout * 1000)):
                worker = self.by_fd.get(fd)
                if worker is not None:
                    finished += self._read(worker)
            for job, results in finished:
                self._finish(job, results)
            collect_if_due()
            now = time.monotonic()
            if self.cancelled is not None and now >= self.next_check:
                self._cancel(self.cancelled)
                self.next_check = now + CANCEL_POLL_S
            for worker in [w for w, deadline in self.deadlines.items() if deadline < now]:
                self._lose(worker, "no answer before the job's deadline")
            if self.starting and now > self.pool._start_deadline:
                for worker in list(self.starting):
                    self._lose(worker, f"not started within {_START_TIMEOUT_S:g} s")
        return [r for r in self.results if r is not None]

    def _watch(self, worker: WorkerHandle) -> None:
        self.by_fd[worker.out_fd] = worker
        self.poller.register(worker.out_fd, select.POLLIN)

    def _unwatch(self, worker: WorkerHandle) -> None:
        """Stop listening to ``worker`` (before it is killed: its descriptor closes with it)."""
        del self.by_fd[worker.out_fd]
        self.poller.unregister(worker.out_fd)

    def _hand_out(self) -> None:
        for worker in list(self.pool._workers):
            if worker not in self.running and worker not in self.starting and not self._give(worker):
                return

    def _give(self, worker: WorkerHandle) -> bool:
        """Send ``worker`` the next program; False when none is left to start."""
        job = self._next_job()
        if job is None:
            return False
        program = self._program(job)
        self.running[worker] = job
        self.deadlines[worker] = time.monotonic() + self.pool._budget(program)
        stream, cancellable = self.stop_when is not None, self.cancelled is not None
        frame = self.pool._job(program, job, stream, cancellable)
        if not worker.send(frame):
            self._lose(worker, "its input pipe broke")
        return True

    def _program(self, job: int) -> Program:
        """Program ``job``, built now if it was planned and is not built yet."""
        program = self.programs[job]
        if isinstance(program, PlannedProgram):
            program = self.programs[job] = built(program)
        return program

    def _build_ahead(self) -> None:
        """Build the planned programs next in line while no worker has anything to say: the
        time this process would otherwise spend waiting in ``poll``."""
        while self.planned and not self.poller.poll(0):  # a look costs a tenth of a build
            self._program(self.planned.popleft())

    def _next_job(self) -> int | None:
        """The next program to start, if any; the cancelled ones met on the way are settled unrun."""
        while self.pending:
            job = self.pending.popleft()
            if self.cancelled is None or not self.cancelled(job):
                return job
            self._finish(job, [CANCELLED] * self.programs[job].input_count)
        return None

    def _cancel(self, cancelled: CancelCheck) -> None:
        """Stop the running programs the caller no longer wants: the worker's supervisor kills
        the program and answers with what it has. (A waiting one is settled as it comes up in
        ``_next_job``, at no cost in worker time: the check asks about running programs alone.)"""
        for worker, job in list(self.running.items()):
            if job not in self.cancel_sent and cancelled(job):
                self.cancel_sent.add(job)
                worker.cancel(job)

    def _read(self, worker: WorkerHandle) -> list[tuple[int, list[ExecutionResult]]]:
        """Take what ``worker`` sent; hand it its next program once it has finished one, and
        return the finished program with its results, for ``_finish``."""
        frames = worker.read_frames()
        if frames is None:
            self._lose(worker, f"process exited with status {worker.exit_status()}")
            return []
        if worker in self.starting and frames:  # its start-up report: it joins the batch
            self.starting.discard(worker)
            worker.report = frames.pop(0)
            try:
                _check_report(worker.report)
            except IsolationUnavailable as refused:
                self._lose(worker, str(refused))  # its replacement's report is checked as it starts
                return []
            self._give(worker)
        finished = []
        for frame in frames:
            running = self.running.get(worker)
            if running is None or frame.get("id") != running:
                continue
            if "partial" in frame:
                assert self.stop_when is not None, "workers stream partial results only when asked to"
                if self.stop_when(running, frame["partial"], frame["result"]):
                    worker.cancel(running)
                continue
            del self.running[worker], self.deadlines[worker]
            self._give(worker)
            finished.append((running, frame["results"]))
        return finished

    def _replace(self, killed: Sequence[WorkerHandle]) -> None:
        """Start a worker in the place of each of ``killed``, all at once."""
        workers = self.pool._workers
        replacements = []
        for worker in killed:
            workers[workers.index(worker)] = replacement = self.pool._spawn(worker.index)
            replacements.append(replacement)
        _await_handshakes(replacements, _START_TIMEOUT_S)
        for replacement in replacements:
            self._watch(replacement)

    def _finish(self, job: int, value: list[ExecutionResult]) -> None:
        self.results[job] = value
        self.done += 1
        if self.on_done is not None:
            self.on_done(job, value)
        if self.progress is not None:
            self.progress(self.done, len(self.programs))

    def abandon(self) -> None:
        """End the batch where an exception (from the caller's callbacks, or a plan's build)
        stopped it: the workers still running its programs are killed and replaced, so that no
        result of this batch is taken for a program of the next one."""
        stale = list(self.running)
        self.running.clear()
        self.deadlines.clear()
        for worker in stale:
            self._unwatch(worker)
            worker.kill()
        self._replace(stale)

    def _lose(self, worker: WorkerHandle, why: str) -> None:
        self.starting.discard(worker)
        running = self.running.pop(worker, None)
        self.deadlines.pop(worker, None)
        self._unwatch(worker)
        worker.kill()
        self._replace([worker])
        if running is None:
            return
        self.attempts[running] += 1
        if self.attempts[running] <= 1:
            logger.warning("execution worker %d lost (%s); retrying its program once", worker.index, why)
            self.pending.appendleft(running)
        else:
            lost = ExecutionResult(Verdict.WORKER_LOST, error=f"worker lost twice: {why}")
            self._finish(running, [lost] * self.programs[running].input_count)
