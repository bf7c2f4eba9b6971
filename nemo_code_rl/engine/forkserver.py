"""The fork server: the init process of a worker's PID namespace.

It reads jobs from the pool, forks one child per program (one per input in strict mode), and
supervises it from outside: wall-clock deadlines, output caps and termination are measured here,
never trusted from the child. After each child it kills every other process in the namespace
(as PID 1 it can), so nothing a program starts outlives its execution.
"""

from __future__ import annotations

import fcntl
import json
import os
import resource
import select
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field

from nemo_code_rl.engine import runner, sandbox, syscalls, wire
from nemo_code_rl.engine.limits import Limits
from nemo_code_rl.engine.results import Verdict

_READ_CHUNK = 1 << 16
_CONTROL_LINE_MAX = 4096
_EXIT_GRACE_S = 2.0


def program_env(workdir: str) -> dict[str, str]:
    """The whole environment a program sees: nothing of the trainer's (no tokens, no keys)."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": workdir,
        "TMPDIR": workdir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


@dataclass
class _Stream:
    cap: int
    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    open: bool = True

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    def take(self) -> tuple[str, int]:
        text, dropped = self.data.decode("utf-8", errors="replace"), self.dropped
        self.data, self.dropped = bytearray(), 0
        return text, dropped


def _result(verdict: Verdict, **fields) -> dict:
    return {"verdict": verdict.value, **fields}


class _Chain:
    """One forked child running inputs ``[start, stop)`` of a program."""

    def __init__(self, job: dict, start: int, stop: int, config: sandbox.SandboxConfig, workdir: str) -> None:
        self.job, self.start, self.stop, self.config, self.workdir = job, start, stop, config, workdir
        self.limits: Limits = job["limits"]
        self.results: dict[int, dict] = {}
        self.syntax_error: str | None = None
        self.index = start
        self.violation = False
        self.started = 0.0
        self.cpu_reported = 0.0

    def run(self) -> int:
        """Run until the child ends; return the index of the first input with no result."""
        ctl_r, ctl_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        ack_r, self.ack_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            self._child(ctl_w, out_w, err_w, ack_r)
        for fd in (ctl_w, out_w, err_w, ack_r):
            os.close(fd)
        try:
            self._supervise(pid, ctl_r, out_r, err_r)
        finally:
            for fd in (ctl_r, out_r, err_r, self.ack_w):
                os.close(fd)
        return self.index

    def _child(self, ctl_w: int, out_w: int, err_w: int, ack_r: int) -> None:
        try:
            os.setsid()
            syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL)
            ctl, out, err, ack = (fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for fd in (ctl_w, out_w, err_w, ack_r))
            for source, target in ((ctl, runner.CONTROL_FD), (out, runner.STDOUT_KEEP_FD), (err, runner.STDERR_KEEP_FD),
                                   (ack, runner.ACK_FD), (out, 1), (err, 2)):
                os.dup2(source, target)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            os.closerange(runner.ACK_FD + 1, 1 << 16)
            os.chdir(self.workdir)
            budget = self.limits.cpu_limit_s * (self.stop - self.start) + 1
            sandbox.apply_rlimits(self.limits, budget)
            sandbox.drop_privileges(self.config)
            os.environ.clear()
            os.environ.update(program_env(self.workdir))
            runner.run_program(self.job["source"], self.job["inputs"], self.start, self.stop, self.limits.cpu_limit_s)
        except BaseException as exc:  # noqa: BLE001 - report set-up failures, never fall back into the server
            try:
                os.write(runner.CONTROL_FD, f"X {self.index} {json.dumps(str(exc)[:300])}\n".encode())
            finally:
                os._exit(70)
        os._exit(0)

    def _supervise(self, pid: int, ctl_r: int, out_r: int, err_r: int) -> None:
        pidfd = os.pidfd_open(pid)
        streams = {out_r: _Stream(self.limits.output_bytes), err_r: _Stream(self.limits.output_bytes)}
        for fd in (ctl_r, out_r, err_r):
            os.set_blocking(fd, False)
        control, control_open = bytearray(), True
        self.started, self.cpu_reported = time.monotonic(), 0.0
        killed_for: Verdict | None = None
        try:
            while True:
                done = self.index >= self.stop or self.syntax_error is not None or self.violation
                remaining = self.started + (_EXIT_GRACE_S if done else self.limits.timeout_s) - time.monotonic()
                if self.violation or remaining <= 0:
                    killed_for = None if done else Verdict.TIMEOUT
                    self._kill(pid)
                    break
                watch = [pidfd] + [fd for fd, s in streams.items() if s.open] + [ctl_r] * control_open
                ready, _, _ = select.select(watch, [], [], remaining)
                for fd in (out_r, err_r):
                    if fd in ready:
                        _read_into(fd, streams[fd])
                if not done and any(s.dropped > s.cap for s in streams.values()):
                    killed_for = Verdict.OUTPUT_LIMIT
                    self._kill(pid)
                    break
                if ctl_r in ready:
                    chunk = _read_available(ctl_r)
                    control_open = chunk is None or bool(chunk)
                    control += chunk or b""
                exited = pidfd in ready
                if exited:
                    control += _read_available(ctl_r) or b""
                for line in _lines(control):
                    self._on_report(line, streams)
                    if self.violation:
                        break
                if exited:
                    break
        finally:
            os.close(pidfd)
        _, status, usage = os.wait4(pid, 0)
        self._sweep()
        for fd, stream in streams.items():
            while _read_into(fd, stream):
                pass
        if self.index < self.stop and self.syntax_error is None and not self.violation:
            self._record_end(status, usage, killed_for, streams)
        if self.violation:
            self.index = self.stop

    def _on_report(self, line: bytes, streams: dict) -> None:
        """Handle one report line from the child; a malformed or out-of-order line ends the chain."""
        kind, _, rest = line.decode("utf-8", errors="replace").partition(" ")
        number, _, payload_text = rest.partition(" ")
        try:
            payload, index = json.loads(payload_text), int(number)
        except ValueError:
            payload, index = None, -1
        if kind == "S" and index == self.index and isinstance(payload, dict):
            self.syntax_error = str(payload.get("error", "SyntaxError"))[:500]
            return
        if kind == "X" and index == self.index:
            self._store(Verdict.RUNTIME_ERROR, streams, error=f"sandbox set-up failed: {payload}")
            self.violation = True
            return
        if kind != "E" or index != self.index or not isinstance(payload, dict):
            self._store(Verdict.RUNTIME_ERROR, streams, error="program wrote to the sandbox control channel")
            self.violation = True
            return
        for fd, stream in streams.items():
            while _read_into(fd, stream):
                pass
        verdict = {"ok": Verdict.OK, "memory": Verdict.MEMORY_LIMIT}.get(payload.get("status"), Verdict.RUNTIME_ERROR)
        error = str(payload.get("error", ""))[:500]
        if any(s.dropped for s in streams.values()):
            verdict, error = Verdict.OUTPUT_LIMIT, "output limit exceeded"
        cpu = _number(payload.get("cpu"))
        self._store(
            verdict,
            streams,
            exit_code=int(_number(payload.get("exit_code"))),
            error=error,
            cpu_s=cpu,
            peak_memory_bytes=int(_number(payload.get("rss"))),
        )
        self.index += 1
        self.started, self.cpu_reported = time.monotonic(), self.cpu_reported + cpu
        if self.index < self.stop:
            try:
                os.write(self.ack_w, b"+")
            except BrokenPipeError:
                pass

    def _store(self, verdict: Verdict, streams: dict, **fields) -> None:
        (stdout, out_drop), (stderr, err_drop) = (s.take() for s in streams.values())
        self.results[self.index] = _result(
            verdict,
            stdout=stdout,
            stderr=stderr,
            stdout_dropped=out_drop,
            stderr_dropped=err_drop,
            wall_s=time.monotonic() - self.started,
            **fields,
        )

    def _record_end(self, status: int, usage, killed_for: Verdict | None, streams: dict) -> None:
        cpu = max(0.0, usage.ru_utime + usage.ru_stime - self.cpu_reported)
        common = {"cpu_s": cpu, "peak_memory_bytes": usage.ru_maxrss * 1024}
        if killed_for is Verdict.TIMEOUT:
            self._store(Verdict.TIMEOUT, streams, error=f"wall-clock limit of {self.limits.timeout_s:g} s exceeded", signal="SIGKILL", **common)
        elif killed_for is Verdict.OUTPUT_LIMIT:
            self._store(Verdict.OUTPUT_LIMIT, streams, error="output limit exceeded", signal="SIGKILL", **common)
        elif os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else f"signal {number}"
            if number == signal.SIGXCPU:
                self._store(Verdict.TIMEOUT, streams, error=f"CPU time limit of {self.limits.cpu_limit_s:g} s exceeded", signal=name, **common)
            else:
                self._store(Verdict.SIGNAL, streams, error=f"killed by {name}", signal=name, **common)
        else:
            code = os.WEXITSTATUS(status)
            verdict = Verdict.OK if code == 0 else Verdict.RUNTIME_ERROR
            error = "" if code == 0 else f"exit status {code}"
            if any(s.dropped for s in streams.values()):
                verdict, error = Verdict.OUTPUT_LIMIT, "output limit exceeded"
            self._store(verdict, streams, exit_code=code, error=error, **common)
        self.index += 1

    def _kill(self, pid: int) -> None:
        for target in (-pid, pid):
            try:
                os.kill(target, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _sweep(self) -> None:
        """Kill and reap everything the program left behind."""
        if self.config.level == sandbox.FULL:
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
        while True:
            try:
                pid, _ = os.waitpid(-1, 0 if self.config.level == sandbox.FULL else os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break


def _read_available(fd: int) -> bytes | None:
    """What can be read now: ``None`` when nothing is ready, ``b""`` at end of file."""
    data = bytearray()
    while True:
        try:
            chunk = os.read(fd, _READ_CHUNK)
        except BlockingIOError:
            return bytes(data) if data else None
        if not chunk:
            return bytes(data)
        data += chunk


def _read_into(fd: int, stream: _Stream) -> bool:
    """Read one chunk into ``stream``; False when nothing more is ready now."""
    if not stream.open:
        return False
    try:
        chunk = os.read(fd, _READ_CHUNK)
    except BlockingIOError:
        return False
    if not chunk:
        stream.open = False
        return False
    stream.add(chunk)
    return True


def _lines(control: bytearray) -> list[bytes]:
    lines = []
    while b"\n" in control:
        line, _, rest = bytes(control).partition(b"\n")
        control[:] = rest
        lines.append(line)
    if len(control) > _CONTROL_LINE_MAX:
        control.clear()
        lines.append(b"? oversized control line")
    return lines


def _number(value) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def execute(job: dict, config: sandbox.SandboxConfig) -> list[dict]:
    """Run one program on all its inputs; one result dict per input, in order."""
    limits: Limits = job["limits"]
    count = len(job["inputs"])
    results: dict[int, dict] = {}
    index = 0
    while index < count:
        stop = index + 1 if job["strict"] else count
        workdir = _open_workdir(config, limits)
        try:
            while index < stop:
                chain = _Chain(job, index, stop, config, workdir)
                index = chain.run()
                results.update(chain.results)
                if chain.syntax_error is not None:
                    for rest in range(len(results), count):
                        results[rest] = _result(Verdict.SYNTAX_ERROR, exit_code=1, error=chain.syntax_error)
                    return [results[i] for i in range(count)]
        finally:
            _close_workdir(config, workdir)
    return [results[i] for i in range(count)]


def _open_workdir(config: sandbox.SandboxConfig, limits: Limits) -> str:
    if config.level == sandbox.FULL:
        sandbox.mount_workdir(config, limits)
        return sandbox.WORKDIR
    return tempfile.mkdtemp(prefix="nemo-code-rl-")


def _close_workdir(config: sandbox.SandboxConfig, workdir: str) -> None:
    if config.level == sandbox.FULL:
        sandbox.unmount_workdir(config)
    else:
        shutil.rmtree(workdir, ignore_errors=True)


def serve(config: sandbox.SandboxConfig, handshake: dict) -> None:
    """Answer jobs from the pool on fds 0/1 until the pool closes the pipe."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    wire.write_frame(1, handshake)
    while True:
        job = wire.read_frame(0)
        if job is None:
            return
        wire.write_frame(1, {"id": job["id"], "results": execute(job, config)})
