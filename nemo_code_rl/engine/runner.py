"""What the forked child does: run one compiled program on a range of inputs.

Each input runs as a fresh module registered as ``sys.modules["__main__"]`` (so pickling by
reference works: ``multiprocessing.Pool`` under ``if __name__ == "__main__":``), with fd 0
re-pointed at an in-memory file holding the input (so ``input()``, ``sys.stdin.buffer.read()``,
``open(0).read()`` and ``os.read(0, n)`` all work), and fds 1 and 2 re-pointed at two new
pipes whose read ends go to the supervisor over the control socket before the input starts
(riding on the previous input's report; the supervisor made the first input's pipes itself).
Output can therefore never be credited to the wrong input, and the child never waits for the
supervisor, which trusts the report sent after each input only for diagnostics: it measures
time, output and termination itself.

Every page a forked child touches is copied, so the template builds what it can once, before
forking (``prepare``), and the happy path here avoids modules it does not need.
"""

from __future__ import annotations

import atexit
import builtins
import io
import linecache
import os
import resource
import socket
import sys
import threading
import time
import traceback
import types
from collections.abc import Sequence
from types import CodeType
from typing import Any

FILENAME = "main.py"
MAX_SOURCE_CHARS = 4 * 1024 * 1024
_ERROR_CHARS = 500
_FD_BYTES = 4
_SOURCE = [""]
_PREBUILT: list[io.TextIOWrapper] = []


def prepare() -> None:
    """In the template: build the stdio objects every child starts with, and interpreter settings.

    The objects refer to fds 0, 1 and 2 by number, which each child re-points before use.
    """
    sys.set_int_max_str_digits(0)
    sys.argv = [FILENAME]
    _PREBUILT[:] = [_new_stdin(), _new_stdout(), _new_stderr()]


def _new_stdin() -> io.TextIOWrapper:
    return io.TextIOWrapper(
        io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8", errors="surrogateescape"
    )


def _new_stdout() -> io.TextIOWrapper:
    raw = io.BufferedWriter(io.FileIO(1, "w", closefd=False), 65536)
    return io.TextIOWrapper(raw, encoding="utf-8", errors="backslashreplace")


def _new_stderr() -> io.TextIOWrapper:
    return io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True
    )


def error_line(exc: BaseException) -> str:
    """The last line of the exception's traceback, as a verdict's one-line error."""
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()
    return (text[-1] if text else type(exc).__name__)[:_ERROR_CHARS]


def _print_traceback(exc: BaseException) -> None:
    """Print the traceback as the interpreter would, without the runner's own frame."""
    linecache.cache[FILENAME] = (len(_SOURCE[0]), None, _SOURCE[0].splitlines(True), FILENAME)
    tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
    try:  # noqa: SIM105 - the runner imports as little as it can
        traceback.print_exception(type(exc), exc, tb, file=sys.stderr)
    except Exception:  # noqa: BLE001 - a program may have broken sys.stderr; the verdict still stands
        pass


class _Stdio:
    """Re-points fds 0, 1 and 2 for each input, reusing what the program left intact."""

    def __init__(self, control: socket.socket, own_stdin: bool) -> None:
        self.control = control
        self.stdin_fd = os.memfd_create("stdin", 0) if own_stdin else -1
        streams = _PREBUILT if _PREBUILT else (_new_stdin(), _new_stdout(), _new_stderr())
        self.stdin: io.TextIOWrapper | None = streams[0]
        self.stdout, self.stderr = streams[1], streams[2]

    def send_pipes(self, message: bytes) -> tuple[int, int]:
        """Send ``message`` with the read ends of two new pipes; return their write ends."""
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        fds = out_r.to_bytes(_FD_BYTES, sys.byteorder) + err_r.to_bytes(_FD_BYTES, sys.byteorder)
        self.control.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        os.close(out_r)
        os.close(err_r)
        return out_w, err_w

    def point(self, data: bytes | None, pipes: tuple[int, int] | None) -> None:
        """Re-point fds 0-2 for the next input; ``data=None`` keeps the stdin already on fd 0,
        ``pipes=None`` the stdout and stderr pipes already on fds 1 and 2."""
        if data is not None:
            try:
                os.ftruncate(self.stdin_fd, 0)
            except OSError:
                self.stdin_fd = os.memfd_create("stdin", 0)
            os.pwrite(self.stdin_fd, data, 0)
            os.lseek(self.stdin_fd, 0, os.SEEK_SET)
            os.dup2(self.stdin_fd, 0)
        if pipes is not None:
            os.dup2(pipes[0], 1)
            os.dup2(pipes[1], 2)
            os.close(pipes[0])
            os.close(pipes[1])
        if self.stdin is None:
            self.stdin = _new_stdin()
        if sys.stdout is not self.stdout or self.stdout.closed:
            self.stdout = _new_stdout()
        if sys.stderr is not self.stderr or self.stderr.closed:
            self.stderr = _new_stderr()
        # The program's ``sys.__stdin__`` & co. are its own streams too (typeshed calls them final).
        sys.stdin = sys.__stdin__ = self.stdin  # type: ignore[misc]
        sys.stdout = sys.__stdout__ = self.stdout  # type: ignore[misc]
        sys.stderr = sys.__stderr__ = self.stderr  # type: ignore[misc]
        self.stdin = None


def _take_private_stdin(control: socket.socket) -> None:
    """Put the next private input, which the worker sends once the last one has ended, on fd 0."""
    _, ancillary, _, _ = control.recvmsg(1, socket.CMSG_SPACE(_FD_BYTES))
    (fd,) = (
        int.from_bytes(data[:_FD_BYTES], sys.byteorder)
        for level, kind, data in ancillary
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS
    )
    if fd != 0:  # the program may have closed fd 0, which the descriptor then took
        os.dup2(fd, 0)
        os.close(fd)
    os.lseek(0, 0, os.SEEK_SET)


def _finish_interpreter_duties() -> None:
    """What a real interpreter does at exit: wait for non-daemon threads, run atexit hooks, flush."""
    if len(threading._active) > 1 or threading._limbo:  # type: ignore[attr-defined]  # CPython's own test
        main = threading.main_thread()
        for thread in threading.enumerate():
            if thread is not main and not thread.daemon:
                thread.join()
    if atexit._ncallbacks():
        atexit._run_exitfuncs()
        atexit._clear()
    streams: tuple[Any, ...] = (sys.stdout, sys.stderr)
    if sys.__stdout__ is not sys.stdout or sys.__stderr__ is not sys.stderr:
        streams += (sys.__stdout__, sys.__stderr__)
    for stream in streams:
        try:  # noqa: SIM105 - the runner imports as little as it can
            stream.flush()
        except Exception:  # noqa: BLE001 - output the program broke is simply lost, as in CPython
            pass


def _exit_status(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:  # noqa: SIM105 - the runner imports as little as it can
        print(code, file=sys.stderr)  # noqa: T201 - what the interpreter does with a non-int exit code
    except Exception:  # noqa: BLE001
        pass
    return 1


def _usage() -> tuple[float, int]:
    """CPU seconds so far (the program's children included) and the resident high-water mark."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime, own.ru_maxrss * 1024


def _fresh_main() -> dict:
    """A new ``__main__`` module for one input; its namespace is the program's globals."""
    module = types.ModuleType("__main__")
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = module
    return module.__dict__


def _run_one(
    code, cpu_before: float, cpu_limit_s: float, cpu_hard: int, recursion_limit: int, owner: int
) -> tuple[str, float]:
    """Run one input; return its report (``report``) and the CPU clock at its end.

    A process the program forked that leaves the program's code (``sys.exit`` in the child, or
    falling off its end) exits here as a real interpreter would, and never runs the runner's loop.
    """
    began = time.perf_counter()
    soft = int(cpu_before + cpu_limit_s) + 1
    resource.setrlimit(
        resource.RLIMIT_CPU, (soft if cpu_hard == resource.RLIM_INFINITY else min(soft, cpu_hard), cpu_hard)
    )
    status, exit_code, error = "ok", 0, ""
    try:
        exec(code, _fresh_main())
    except SystemExit as exc:
        exit_code = _exit_status(exc)
        if exit_code != 0:
            status, error = "error", f"exit status {exit_code}"
    except MemoryError as exc:
        status, exit_code, error = "memory", 1, error_line(exc)
        _print_traceback(exc)
    except BaseException as exc:  # noqa: BLE001 - anything the program raises is its verdict
        status, exit_code, error = "error", 1, error_line(exc)
        _print_traceback(exc)
    try:
        _finish_interpreter_duties()
    except SystemExit as exc:
        exit_code = _exit_status(exc)
    except BaseException as exc:  # noqa: BLE001
        if status == "ok":
            status, exit_code, error = "error", 1, error_line(exc)
    if os.getpid() != owner:
        os._exit(exit_code)
    sys.setrecursionlimit(recursion_limit)
    threading.stack_size(0)
    wall = time.perf_counter() - began
    cpu_after, rss = _usage()
    return report(status, exit_code, cpu_after - cpu_before, rss, wall, error), cpu_after


def report(status: str, exit_code: int, cpu_s: float, rss: int, wall_s: float, error: str) -> str:
    """An input's end-of-input report, as the supervisor parses it (``supervisor._report``):
    ``<status> <exit code> <cpu s> <rss bytes> <wall s> <error>``, the error last and free text."""
    return f"{status} {exit_code} {cpu_s!r} {rss} {wall_s!r} {error}"


def compile_source(source: str) -> CodeType:
    """Compile a program (in the supervisor, once per program: compiling runs none of its code).

    Raises ``SyntaxError`` (also for sources over ``MAX_SOURCE_CHARS``) and the ``ValueError``,
    ``RecursionError`` or ``MemoryError`` the compiler may raise on hostile input.
    """
    if len(source) > MAX_SOURCE_CHARS:
        raise SyntaxError(f"program too large: {len(source)} characters (at most {MAX_SOURCE_CHARS})")
    return compile(source, FILENAME, "exec", dont_inherit=True)


def run_program(
    code: CodeType,
    source: str,
    inputs: Sequence[bytes] | None,
    start: int,
    stop: int,
    cpu_limit_s: float,
    control: socket.socket,
) -> None:
    """Run the compiled program on ``inputs[start:stop]``, reporting on ``control``.

    ``inputs=None`` means private inputs: fd 0 already holds the first, and each next one arrives
    on ``control``, as a descriptor, only once the previous input has ended.
    ``control`` is a ``SOCK_SEQPACKET`` socket: one message per report.
    """
    _SOURCE[0] = source
    recursion_limit = sys.getrecursionlimit()
    cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    stdio = _Stdio(control, own_stdin=inputs is not None)
    owner = os.getpid()
    pipes = None  # the first input's pipes are on fds 1 and 2 already
    cpu, _ = _usage()
    for index in range(start, stop):
        stdio.point(None if inputs is None else inputs[index], pipes)
        payload, cpu = _run_one(code, cpu, cpu_limit_s, cpu_hard, recursion_limit, owner)
        message = f"E {index} {payload}".encode("utf-8", errors="backslashreplace")  # lone surrogates
        if index + 1 < stop:
            pipes = stdio.send_pipes(message)
            if inputs is None:
                _take_private_stdin(control)
        else:
            control.send(message)
