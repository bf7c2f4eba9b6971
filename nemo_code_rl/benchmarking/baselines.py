"""The process models the engine is measured against, run on the same workload in the same run.

Each runner takes ``(source, inputs)`` pairs and returns, per program, one ``(stdout, error)`` per
input, ``error`` being the exception's last traceback line (``None`` when the program finished), so
every row of the benchmark can be checked against the expected answers and not only timed:

* :func:`run_fresh_processes` (b): one new ``python3`` per test, the naive but fully isolated way.
* :func:`run_lcb_processes` (c): the LiveCodeBench harness that RL frameworks copy, as that code
  runs a program, in ``workers`` separate processes (:class:`HarnessProcesses`): per program a
  ``multiprocessing.Manager()`` and one ``Process`` which calls a
  ``reliability_guard``, wraps the program in a function under the harness's star-import
  prelude, and runs each test under ``signal.alarm``, ``faulthandler`` and five
  ``unittest.mock.patch`` es of ``open`` and ``sys.stdin`` (every test is run, for equal work).
* :func:`run_manager_processes` (c_lean): the same process model with the per-test mechanics cut
  to the minimum (plain patching of ``sys.stdin``/``sys.stdout``/``input``/``open``), to show how
  much of row c is the process model and how much its per-test overhead.
* :class:`ForkFloor` (d): warm interpreters that do nothing but ``os.fork()`` per program and run
  its tests with fd 0/1/2 re-pointed; the lower bound of any fork-server design, isolation excluded.
* :class:`SplitForkFloor` (``floor_split`` in ``benchmarks/scaling.py``): the floor with jobs kept
  out of the process programs are forked from, as the trust model demands: the lower bound of any
  design that keeps them out.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import faulthandler
import fcntl
import importlib
import io
import multiprocessing
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import IO, Any, Self
from unittest import mock

from nemo_code_rl.benchmarking.workload import outputs_match
from nemo_code_rl.engine.pool import DEFAULT_PRELOAD
from nemo_code_rl.outcomes import Verdict

Outcome = tuple[str, str | None]
Job = tuple[str, Sequence[str]]

_PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def _preload() -> None:
    """Import what the engine's workers import, so rows c and d, like the engine, never pay for
    those imports per program (a trainer that forks checkers has numpy loaded already)."""
    for name in DEFAULT_PRELOAD:
        importlib.import_module(name)


def error_line(exc: BaseException) -> str:
    """The line a traceback ends with, which is what every row reports as the program's error."""
    lines = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()
    return lines[-1] if lines else type(exc).__name__


def _system_exit_error(exc: SystemExit) -> str | None:
    return None if exc.code in (None, 0) else f"exit status {exc.code}"


def _exec_under_alarm(code: Any, timeout_s: float) -> str | None:
    """Run one test in this process under a SIGALRM timer; the error line, or None when it finished."""
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        exec(code, {"__name__": "__main__", "__builtins__": builtins})
    except SystemExit as exc:
        return _system_exit_error(exc)
    except BaseException as exc:  # noqa: BLE001 - whatever the program raises is its result
        return error_line(exc)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return None


# --- (b) a fresh interpreter per test -------------------------------------------------------------


def _fresh_process_test(source: str, data: str, timeout_s: float) -> Outcome:
    try:
        done = subprocess.run(
            [sys.executable, "-c", source], input=data.encode(), capture_output=True, timeout=timeout_s
        )
    except subprocess.TimeoutExpired as exc:
        return (exc.stdout or b"").decode(errors="replace"), "timeout"
    stdout = done.stdout.decode(errors="replace")
    if done.returncode == 0:
        return stdout, None
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    return stdout, lines[-1] if lines else f"exit status {done.returncode}"


def run_fresh_processes(jobs: Sequence[Job], workers: int, timeout_s: float = 10.0) -> list[list[Outcome]]:
    """Baseline (b): ``workers`` threads, each launching one ``python3 -c`` per test in turn."""
    tests = [(p, t, source, data) for p, (source, inputs) in enumerate(jobs) for t, data in enumerate(inputs)]
    results: list[list[Outcome]] = [[("", None)] * len(inputs) for _, inputs in jobs]
    with ThreadPoolExecutor(max_workers=workers) as executor:
        outcomes = executor.map(lambda test: _fresh_process_test(test[2], test[3], timeout_s), tests)
        for (p, t, _, _), outcome in zip(tests, outcomes, strict=True):
            results[p][t] = outcome
    return results


# --- (c) the APPS / LiveCodeBench harness ---------------------------------------------------------


def _on_alarm(signum: int, frame: object) -> None:
    raise TimeoutError("test timed out")


_ALARM_ERROR = "TimeoutError: test timed out"


def _exec_patched(code: object, data: str, timeout_s: float) -> Outcome:
    """One test the way those harnesses run it: everything patched inside one long-lived process.

    They hand ``sys.stdin`` a ``StringIO``; this uses a text wrapper over bytes instead so the
    ``sys.stdin.buffer`` programs get correct answers and the rows stay comparable.
    """
    encoded = data.encode()
    stdin = io.TextIOWrapper(io.BytesIO(encoded), encoding="utf-8")
    stdout = io.StringIO()
    real_open, real_input, real_stdin, real_stdout = builtins.open, builtins.input, sys.stdin, sys.stdout

    def fake_input(prompt: object = "") -> str:
        line = stdin.readline()
        if not line:
            raise EOFError("EOF when reading a line")
        return line.rstrip("\n")

    def fake_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if file == 0:
            return io.TextIOWrapper(io.BytesIO(encoded), encoding="utf-8")
        return real_open(file, *args, **kwargs)

    # what such harnesses do: the program's input() and open(0) read the test's input
    builtins.input, builtins.open, sys.stdin, sys.stdout = fake_input, fake_open, stdin, stdout
    try:
        error = _exec_under_alarm(code, timeout_s)
    finally:
        builtins.input, builtins.open, sys.stdin, sys.stdout = real_input, real_open, real_stdin, real_stdout
    return stdout.getvalue(), error


def _manager_child(source: str, inputs: list[str], timeout_s: float, result: list) -> None:
    signal.signal(signal.SIGALRM, _on_alarm)
    try:
        code = compile(source, "<program>", "exec")
    except SyntaxError as exc:
        result.append([("", error_line(exc))] * len(inputs))
        return
    result.append([_exec_patched(code, data, timeout_s) for data in inputs])


def _program_in_manager(
    child, source: str, inputs: Sequence[str], timeout_s: float, extra: tuple = ()
) -> list[Outcome]:
    """The process model of those harnesses: a Manager for the result, one Process for the program."""
    context = multiprocessing.get_context("fork")
    with context.Manager() as manager:
        result = manager.list()
        process = context.Process(target=child, args=(source, list(inputs), timeout_s, result, *extra))
        process.start()
        process.join(timeout=(timeout_s + 1) * len(inputs) + 5)  # LiveCodeBench's global timeout
        if process.is_alive():
            process.kill()
            process.join()
        outcomes = list(result[0]) if len(result) else [("", "worker process died")] * len(inputs)
    return outcomes


def run_manager_processes(jobs: Sequence[Job], workers: int, timeout_s: float = 10.0) -> list[list[Outcome]]:
    """Baseline (c_lean): ``workers`` processes, each checking one program at a time with its own Manager."""
    with HarnessProcesses("c_lean", workers) as harness:
        return harness.run(jobs, timeout_s)


# --- (c) the LiveCodeBench harness as it runs a program ------------------------------------------

_LCB_PRELUDE_MODULES = (
    "string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random",
    "statistics", "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing",
)  # fmt: skip
_LCB_PRELUDE = (
    "".join(f"from {name} import *\n" for name in _LCB_PRELUDE_MODULES)
    + "".join(f"import {name}\n" for name in _LCB_PRELUDE_MODULES if name not in ("builtins", "typing"))
    + "sys.setrecursionlimit(50000)\n"
)


def _lcb_wrapped(source: str) -> str:
    """The program as that harness runs it: a trailing ``if __name__ == '__main__':`` unwrapped,
    imports hoisted, everything else moved into ``wrapped_function()``, under its prelude."""
    tree = ast.parse(source)
    body = list(tree.body)
    if (
        body
        and isinstance(body[-1], ast.If)
        and ast.unparse(body[-1].test).strip() == "__name__ == '__main__'"
    ):
        body = body[:-1] + body[-1].body
    imports = [node for node in body if isinstance(node, (ast.Import, ast.ImportFrom))]
    rest = [node for node in body if not isinstance(node, (ast.Import, ast.ImportFrom))] or [ast.Pass()]
    arguments = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    function = ast.FunctionDef(
        name="wrapped_function", args=arguments, body=rest, decorator_list=[], lineno=1
    )
    return (
        _LCB_PRELUDE
        + ast.unparse(ast.Module(body=list(imports), type_ignores=[]))
        + "\n"
        + ast.unparse(ast.fix_missing_locations(function))
    )


_GUARDED_OS_FUNCTIONS = (
    "kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty",
    "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown",
    "chroot", "lchown", "getcwd", "chdir",
)  # fmt: skip


def _lcb_guard() -> None:
    """What such harnesses disable before running a program (a guard, not a sandbox)."""
    for name in _GUARDED_OS_FUNCTIONS:
        if hasattr(os, name):
            setattr(os, name, None)
    subprocess.Popen = None  # type: ignore[misc, assignment]


def _lcb_test(function: Callable[[], object], data: str, timeout_s: float) -> Outcome:
    lines = iter(data.split("\n"))
    stdin = io.TextIOWrapper(io.BytesIO(data.encode()), encoding="utf-8")
    stdout, real_stdout = io.StringIO(), sys.stdout
    error = None
    signal.alarm(max(1, int(timeout_s)))
    faulthandler.enable()
    sys.stdout = stdout
    try:
        with (
            mock.patch("builtins.open", mock.mock_open(read_data=data)),
            mock.patch("sys.stdin", stdin),
            mock.patch("sys.stdin.readline", lambda *args: next(lines) + "\n"),
            mock.patch("sys.stdin.readlines", lambda *args: data.split("\n")),
            mock.patch("sys.stdin.read", lambda *args: data),
        ):
            function()
    except SystemExit as exc:
        error = _system_exit_error(exc)
    except BaseException as exc:  # noqa: BLE001 - whatever the program raises is its result
        error = error_line(exc)
    finally:
        sys.stdout = real_stdout
        signal.alarm(0)
        faulthandler.disable()
    return stdout.getvalue(), error


def _lcb_child(source: str, inputs: list[str], timeout_s: float, result: list) -> None:
    signal.signal(signal.SIGALRM, _on_alarm)
    _lcb_guard()
    try:
        module = ModuleType("tmp_sol", "")
        exec(compile(_lcb_wrapped(source), "<program>", "exec"), module.__dict__)
        function = module.wrapped_function
    except BaseException as exc:  # noqa: BLE001 - a program that does not load fails every test
        result.append([("", error_line(exc))] * len(inputs))
        return
    result.append([_lcb_test(function, data, timeout_s) for data in inputs])


def run_lcb_processes(jobs: Sequence[Job], workers: int, timeout_s: float = 10.0) -> list[list[Outcome]]:
    """Baseline (c): ``workers`` processes, each checking one program at a time the LiveCodeBench way."""
    with HarnessProcesses("c", workers) as harness:
        return harness.run(jobs, timeout_s)


def _judging_child(
    source: str, inputs: list[str], timeout_s: float, result: list, expected: list[str], early_exit: bool
) -> None:
    """Row c_lean's child judging as it goes (as LiveCodeBench does, in the program's process),
    so it can stop at the first failing test; one verdict per test."""
    signal.signal(signal.SIGALRM, _on_alarm)
    try:
        code = compile(source, "<program>", "exec")
    except SyntaxError:
        result.append([Verdict.SYNTAX_ERROR.value] * len(inputs))
        return
    verdicts: list[str] = []
    for data, want in zip(inputs, expected, strict=True):
        if early_exit and verdicts and verdicts[-1] != Verdict.PASSED:
            verdicts.append(Verdict.NOT_RUN.value)
            continue
        stdout, error = _exec_patched(code, data, timeout_s)
        if error is None:
            verdicts.append(
                Verdict.PASSED.value if outputs_match(stdout, want) else Verdict.WRONG_ANSWER.value
            )
        elif error == _ALARM_ERROR:
            verdicts.append(Verdict.TIMEOUT.value)
        else:
            verdicts.append(Verdict.RUNTIME_ERROR.value)
    result.append(verdicts)


_CHILDREN = {"c": _lcb_child, "c_lean": _manager_child, "judge": _judging_child}


# --- (d) the bare fork floor ----------------------------------------------------------------------


def _read_frame(stream: IO[bytes] | None) -> bytes | None:
    assert stream is not None, "a pipe of a process started with PIPE"
    header = stream.read(4)
    if len(header) < 4:
        return None
    (size,) = struct.unpack("!I", header)
    return stream.read(size)


def _write_frame(stream: IO[bytes] | None, payload: bytes) -> None:
    assert stream is not None, "a pipe of a process started with PIPE"
    stream.write(struct.pack("!I", len(payload)) + payload)
    stream.flush()


def _memfd(name: str) -> int:
    """An in-memory file above fd 2: programs may close their stdio, which frees 0-2 for reuse."""
    fd = os.memfd_create(name)
    if fd > 2:
        return fd
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 3)
    os.close(fd)
    return high


def _fork_child_test(code: object, data: bytes, timeout_s: float) -> Outcome:
    stdin_fd, out_fd, err_fd = _memfd("stdin"), _memfd("stdout"), _memfd("stderr")
    os.write(stdin_fd, data)
    os.lseek(stdin_fd, 0, os.SEEK_SET)
    for fd, target in ((stdin_fd, 0), (out_fd, 1), (err_fd, 2)):
        os.dup2(fd, target)
    os.close(stdin_fd)
    os.close(err_fd)
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8")
    error = _exec_under_alarm(code, timeout_s)
    try:
        sys.stdout.flush()
    except Exception as exc:  # noqa: BLE001 - the program may have closed its stdout
        error = error or error_line(exc)
    stdout = os.pread(out_fd, os.fstat(out_fd).st_size, 0).decode(errors="replace")
    os.close(out_fd)
    return stdout, error


def _fork_child(source: str, inputs: list[bytes], timeout_s: float) -> list[Outcome]:
    signal.signal(signal.SIGALRM, _on_alarm)
    try:
        code = compile(source, "<program>", "exec")
    except SyntaxError as exc:
        return [("", error_line(exc))] * len(inputs)
    return [_fork_child_test(code, data, timeout_s) for data in inputs]


def _fork_program(source: str, inputs: list[bytes], timeout_s: float, protocol_fds: tuple[int, int]) -> bytes:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(read_fd)
            for fd in protocol_fds:
                os.close(fd)
            payload = pickle.dumps(_fork_child(source, inputs, timeout_s))
            with open(write_fd, "wb") as pipe:
                pipe.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    with open(read_fd, "rb") as pipe:
        payload = pipe.read()
    os.waitpid(pid, 0)
    return payload or pickle.dumps(_died(len(inputs)))


def _died(count: int) -> list[Outcome]:
    """What each test of a forked child that wrote no outcomes gets."""
    return [("", "forked child died")] * count


def _split_forker(sock: socket.socket) -> None:
    """The job-free half of a split floor worker: forks one child per request, each child reading
    its program from the memfd it is handed and writing its outcomes to the pipe it is handed."""
    _preload()
    while True:
        request, fds, _, _ = socket.recv_fds(sock, 16, 2)
        if not request:
            return
        payload_fd, results_fd = fds
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                sock.close()
                source, inputs, timeout_s = pickle.loads(
                    os.pread(payload_fd, os.fstat(payload_fd).st_size, 0)
                )
                os.close(payload_fd)
                with open(results_fd, "wb") as pipe:
                    pipe.write(pickle.dumps(_fork_child(source, inputs, timeout_s)))
                status = 0
            finally:
                os._exit(status)
        os.close(payload_fd)
        os.close(results_fd)
        os.waitpid(pid, 0)
        sock.send(b"R")


def split_floor_main() -> None:
    """Entry point of one split floor worker: it forks its job-free forker before reading any job,
    then hands each program to it through a memfd and reads the outcomes back from a pipe."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    forker = os.fork()
    if forker == 0:
        status = 1
        try:
            ours.close()
            keep = theirs.fileno()
            os.closerange(3, keep)
            os.closerange(keep + 1, 1 << 16)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)  # the worker's pipes to the benchmark are its alone
            os.close(null)
            _split_forker(theirs)
            status = 0
        finally:
            os._exit(status)
    theirs.close()

    def handle(request: tuple[str, list[bytes], float], protocol_fds: tuple[int, int]) -> object:
        payload_fd = os.memfd_create("program", os.MFD_CLOEXEC)
        os.write(payload_fd, pickle.dumps(request))
        read_fd, write_fd = os.pipe()
        socket.send_fds(ours, [b"S"], [payload_fd, write_fd])
        os.close(payload_fd)
        os.close(write_fd)
        with open(read_fd, "rb") as pipe:
            payload = pipe.read()
        if ours.recv(16) != b"R":
            raise RuntimeError("the split floor's forker is gone")
        return pickle.loads(payload) if payload else _died(len(request[1]))

    _serve(handle)


def _serve(handle: Callable[[Any, tuple[int, int]], object]) -> None:
    """The loop of one served process: requests arrive as length-prefixed pickles on stdin and
    replies leave the same way on stdout; both are moved off fds 0/1 first so nothing a program
    does to its stdio can corrupt the protocol. Each entry point preloads in the process its
    programs are forked from (the split floor's worker forks none)."""
    requests = open(os.dup(0), "rb")  # noqa: SIM115 - the server's pipes live as long as it serves
    replies = open(os.dup(1), "wb")  # noqa: SIM115 - the server's pipes live as long as it serves
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    _write_frame(replies, b"ready")
    while (frame := _read_frame(requests)) is not None:
        _write_frame(
            replies, pickle.dumps(handle(pickle.loads(frame), (requests.fileno(), replies.fileno())))
        )


def forker_main() -> None:
    """Entry point of one floor worker: a single-threaded loop forking one child per program."""

    def handle(request: tuple[str, list[bytes], float], protocol_fds: tuple[int, int]) -> object:
        source, inputs, timeout_s = request
        return pickle.loads(_fork_program(source, inputs, timeout_s, protocol_fds))

    _preload()
    _serve(handle)


def harness_main(kind: str) -> None:
    """Entry point of one harness process (rows c and c_lean): one program at a time, its way."""
    child = _CHILDREN[kind]

    def handle(request: tuple, protocol_fds: tuple[int, int]) -> object:
        source, inputs, timeout_s, *extra = request
        return _program_in_manager(child, source, inputs, timeout_s, tuple(extra))

    _preload()
    _serve(handle)


class _ServedProcesses:
    """``workers`` fresh ``python3`` processes running ``entry`` (a call in this module), started
    before timing as the engine's pool is, each fed over a pipe by one thread here. They are never
    forks of this possibly multi-threaded process; leaving the ``with`` block closes their stdin
    and reaps them."""

    def __init__(self, workers: int, entry: str) -> None:
        self.workers = workers
        self._entry = entry
        self._processes: list[subprocess.Popen] = []

    def __enter__(self) -> Self:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_PACKAGE_ROOT), env.get("PYTHONPATH")]))
        command = [
            sys.executable,
            "-c",
            f"from nemo_code_rl.benchmarking import baselines; baselines.{self._entry}",
        ]
        try:
            for _ in range(self.workers):
                process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
                self._processes.append(process)
            for process in self._processes:
                if _read_frame(process.stdout) != b"ready":
                    raise RuntimeError(
                        f"{type(self).__name__} process {process.pid} failed to start (exit {process.wait()})"
                    )
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for process in self._processes:
            with contextlib.suppress(BrokenPipeError):
                if process.stdin is not None:
                    process.stdin.close()
        for process in self._processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        self._processes.clear()

    def _map(self, requests: Sequence[object]) -> list:
        """Each request's reply, in order; every process takes the next request when it is free."""
        if not self._processes:
            raise RuntimeError(
                f"{type(self).__name__}.run needs the processes started: use it as a context manager"
            )
        results: list = [None] * len(requests)
        next_request = iter(range(len(requests)))
        lock = threading.Lock()

        def feed(process: subprocess.Popen) -> None:
            while True:
                with lock:
                    index = next(next_request, None)
                if index is None:
                    return
                _write_frame(process.stdin, pickle.dumps(requests[index]))
                reply = _read_frame(process.stdout)
                if reply is None:
                    raise RuntimeError(f"{type(self).__name__} process {process.pid} exited mid-run")
                results[index] = pickle.loads(reply)

        with ThreadPoolExecutor(max_workers=len(self._processes)) as executor:
            for future in [executor.submit(feed, process) for process in self._processes]:
                future.result()
        return results


class ForkFloor(_ServedProcesses):
    """Baseline (d): ``workers`` warm forkers doing a bare ``os.fork()`` per program."""

    _ENTRY = "forker_main()"

    def __init__(self, workers: int) -> None:
        super().__init__(workers, self._ENTRY)

    def run(self, jobs: Sequence[Job], timeout_s: float = 10.0) -> list[list[Outcome]]:
        return self._map([(source, [data.encode() for data in inputs], timeout_s) for source, inputs in jobs])


class SplitForkFloor(ForkFloor):
    """The floor split the way the trust model asks, and nothing more (``scaling.py``'s ``floor_split``).

    Each worker holds the jobs but never forks a program; a forker it started before reading any
    job (so no job's bytes are in the memory a program inherits) forks each child, which reads its
    program from a memfd and writes its outcomes to a pipe, both handed over with ``SCM_RIGHTS``.
    No isolation, no limits, no supervision from outside, no judging: the least any design pays
    that keeps jobs out of the process programs are forked from, so the engine's cost over the
    floor can be split into what that separation costs and what the engine adds to it.
    """

    _ENTRY = "split_floor_main()"


class HarnessProcesses(_ServedProcesses):
    """Rows c and c_lean: ``workers`` separate harness processes, each checking one program at a
    time its own way (a Manager and a Process per program).

    This is how those harnesses scale in practice (one process per core); threads of one process
    would share its GIL and its fork lock and stop scaling long before the cores run out,
    flattering whatever is compared with them.
    """

    def __init__(self, kind: str, workers: int) -> None:
        if kind not in _CHILDREN:
            raise ValueError(f"unknown harness {kind!r}; known: {sorted(_CHILDREN)}")
        super().__init__(workers, f"harness_main({kind!r})")

    def run(self, jobs: Sequence[Job], timeout_s: float = 10.0) -> list[list[Outcome]]:
        return self._map([(source, list(inputs), timeout_s) for source, inputs in jobs])

    def judge(
        self, jobs: Sequence[Job], expected: Sequence[Sequence[str]], timeout_s: float, early_exit: bool
    ) -> list[list[str]]:
        """For kind ``judge``: each program's verdict per test (``Verdict`` values), judged in the
        program's process, stopping at its first failing test when ``early_exit``."""
        return self._map(
            [
                (source, list(inputs), timeout_s, list(want), early_exit)
                for (source, inputs), want in zip(jobs, expected, strict=True)
            ]
        )
