"""What the forked child does: run one compiled program on a range of inputs.

Each input gets fresh globals, ``__name__ == "__main__"``, fd 0 re-pointed at an in-memory file
holding the input (so ``input()``, ``sys.stdin.buffer.read()``, ``open(0).read()`` and
``os.read(0, n)`` all work), and fds 1 and 2 re-pointed at two new pipes whose read ends go to
the worker over the control socket before the input starts (riding on the previous input's
report). Output can therefore never be credited to the wrong input, and the child never waits
for the worker. The worker trusts the
report sent after each input only for diagnostics; it measures time, output and termination
itself.
"""

from __future__ import annotations

import atexit
import builtins
import io
import json
import linecache
import os
import resource
import socket
import sys
import threading
import traceback
from collections.abc import Sequence

FILENAME = "main.py"
CONTROL_FD = 3
_ERROR_CHARS = 500


def _report(kind: str, index: int, payload: dict) -> None:
    os.write(CONTROL_FD, f"{kind} {index} {json.dumps(payload)}".encode())


def _end_message(index: int, payload: dict) -> str:
    return f"E {index} {json.dumps(payload)}"


def _last_line(exc: BaseException) -> str:
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()
    return (text[-1] if text else type(exc).__name__)[:_ERROR_CHARS]


def _print_traceback(exc: BaseException) -> None:
    """Print the traceback as the interpreter would, without the runner's own frame."""
    tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
    try:
        traceback.print_exception(type(exc), exc, tb, file=sys.stderr)
    except Exception:  # noqa: BLE001 - a program may have broken sys.stderr; the verdict still stands
        pass


class _Stdio:
    """Re-points fds 0, 1 and 2 for each input, reusing what the program left intact."""

    def __init__(self, control: socket.socket, own_stdin: bool) -> None:
        self.control = control
        self.stdin_fd = os.memfd_create("stdin", 0) if own_stdin else -1
        self.stdout: io.TextIOWrapper | None = None
        self.stderr: io.TextIOWrapper | None = None

    def send_pipes(self, message: str) -> tuple[int, int]:
        """Send ``message`` with the read ends of two new pipes; return their write ends."""
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        for fd in (out_r, err_r):
            os.set_blocking(fd, False)
        socket.send_fds(self.control, [message.encode()], [out_r, err_r])
        os.close(out_r)
        os.close(err_r)
        return out_w, err_w

    def point(self, data: bytes | None, out_w: int, err_w: int) -> None:
        """Re-point fds 0-2 for the next input; ``data=None`` keeps the stdin already on fd 0."""
        if data is not None:
            try:
                os.ftruncate(self.stdin_fd, 0)
            except OSError:
                self.stdin_fd = os.memfd_create("stdin", 0)
            os.pwrite(self.stdin_fd, data, 0)
            os.lseek(self.stdin_fd, 0, os.SEEK_SET)
            os.dup2(self.stdin_fd, 0)
        for fd, target in ((out_w, 1), (err_w, 2)):
            os.dup2(fd, target)
            os.close(fd)
        sys.stdin = sys.__stdin__ = io.TextIOWrapper(
            io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8", errors="surrogateescape"
        )
        if self.stdout is None or sys.stdout is not self.stdout or self.stdout.closed:
            self.stdout = io.TextIOWrapper(
                io.BufferedWriter(io.FileIO(1, "w", closefd=False), 65536), encoding="utf-8", errors="backslashreplace"
            )
        if self.stderr is None or sys.stderr is not self.stderr or self.stderr.closed:
            self.stderr = io.TextIOWrapper(
                io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True
            )
        sys.stdout = sys.__stdout__ = self.stdout
        sys.stderr = sys.__stderr__ = self.stderr


def _finish_interpreter_duties() -> None:
    """What a real interpreter does at exit: wait for non-daemon threads, run atexit hooks, flush."""
    main = threading.main_thread()
    for thread in threading.enumerate():
        if thread is not main and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    atexit._clear()
    for stream in {id(s): s for s in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)}.values():
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - output the program broke is simply lost, as in CPython
            pass


def _exit_status(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except Exception:  # noqa: BLE001
        pass
    return 1


def _run_one(code, cpu_limit_s: float, recursion_limit: int) -> dict:
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu_before = used.ru_utime + used.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(cpu_before + cpu_limit_s) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
    status, exit_code, error = "ok", 0, ""
    program_globals = {"__name__": "__main__", "__builtins__": builtins, "__doc__": None, "__spec__": None}
    try:
        exec(code, program_globals)
    except SystemExit as exc:
        exit_code = _exit_status(exc)
        if exit_code != 0:
            status, error = "error", f"exit status {exit_code}"
    except MemoryError as exc:
        status, exit_code, error = "memory", 1, _last_line(exc)
        _print_traceback(exc)
    except BaseException as exc:  # noqa: BLE001 - anything the program raises is its verdict
        status, exit_code, error = "error", 1, _last_line(exc)
        _print_traceback(exc)
    try:
        _finish_interpreter_duties()
    except SystemExit as exc:
        exit_code = _exit_status(exc)
    except BaseException as exc:  # noqa: BLE001
        if status == "ok":
            status, exit_code, error = "error", 1, _last_line(exc)
    sys.setrecursionlimit(recursion_limit)
    threading.stack_size(0)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime - cpu_before
    return {"status": status, "exit_code": exit_code, "error": error, "cpu": cpu, "rss": usage.ru_maxrss * 1024}


def run_program(source: str, inputs: Sequence[bytes] | None, start: int, stop: int, cpu_limit_s: float) -> None:
    """Compile ``source`` once and run it on ``inputs[start:stop]``, reporting after each input.

    ``inputs=None`` means a private input: fd 0 already holds it, and ``stop == start + 1``.

    Expects the control socket (``SOCK_SEQPACKET``, one message per report) on fd 3.
    """
    linecache.cache[FILENAME] = (len(source), None, source.splitlines(True), FILENAME)
    sys.argv = [FILENAME]
    sys.set_int_max_str_digits(0)
    try:
        code = compile(source, FILENAME, "exec", dont_inherit=True)
    except BaseException as exc:  # noqa: BLE001 - SyntaxError, ValueError (NUL bytes), MemoryError, ...
        _report("S", start, {"error": _last_line(exc)})
        return
    recursion_limit = sys.getrecursionlimit()
    stdio = _Stdio(socket.socket(fileno=CONTROL_FD), own_stdin=inputs is not None)
    out_w, err_w = stdio.send_pipes(f"B {start}")
    for index in range(start, stop):
        stdio.point(None if inputs is None else inputs[index], out_w, err_w)
        report = _end_message(index, _run_one(code, cpu_limit_s, recursion_limit))
        if index + 1 < stop:
            out_w, err_w = stdio.send_pipes(report)
        else:
            os.write(CONTROL_FD, report.encode())
