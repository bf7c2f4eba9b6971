"""The supervisor: the worker process that reads jobs, and times, reads and judges their programs.

It holds everything of a job (sources, inputs, private test code, expected outputs, output), and
judges each input's output as it ends where the job came with a judge (a family's, named by the
job: see ``worker_judge``), so the pool's process only routes verdicts. No program is ever
forked from it: it asks the worker's template (see ``template``), which has never held job data,
to fork each child, handing over the child's descriptors. It supervises the child from outside
through a pidfd: wall-clock deadlines, output caps and termination are measured here, never
trusted from the child. Every message a child sends is parsed defensively: anything malformed is
the program's violation, charged to it, and never stops the supervisor.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import math
import os
import re
import select
import signal
import socket
import sys
import termios
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nemo_code_rl.engine import cgroups, compiling, runner, sandbox, template, wire
from nemo_code_rl.engine.languages import CompileSettings
from nemo_code_rl.engine.limits import Limits
from nemo_code_rl.engine.results import (
    CANCELLED_ERROR,
    Verdict,
    WorkerJudge,
    judge_module,
    result_from_fields,
)

_READ_CHUNK = 1 << 16
_CONTROL_MESSAGE_MAX = 4096
_FD_BYTES = 4
_FDS_SPACE = socket.CMSG_SPACE(2 * _FD_BYTES)
_EXIT_GRACE_S = 2.0
_DISCARD_BEFORE_KILL = 16 * 1024 * 1024  # output discarded (and counted) before an endless writer is stopped
# An input's pipes are not watched during its first milliseconds: a short test ends (and is
# drained) before it could fill a pipe, which saves the supervisor one wake-up per input.
_QUIET_START_S = 0.002
# Where the pool has no CPU to spare (``pool.quiet_chains``), nor is the child's control socket
# during a chain's first milliseconds, when no input waits for an answer: a fast program runs all
# its inputs and exits meanwhile, and the supervisor wakes once, at its end, to read every
# input's report. Woken at each input's end instead, it took the CPU from a program each time
# (10 short tests: its CPU per program fell by 14-19% at 16 workers on 16 cores). The cost,
# bounded by this window: the time limit of an input that starts inside it counts from when
# the supervisor reads its start, and output past a pipe's 64 KiB waits to be read. With CPUs
# to spare, the reports are read as they come, in parallel with the program.
_QUIET_CHAIN_S = 0.005
# What a child may send, ASCII digits only: an input's end, ``E <index> <report>``, the report
# being ``runner.report``'s ``<status> <exit code> <cpu s> <rss bytes> <wall s> <error>``; or a
# set-up failure, ``X <index> <reason>``.
_NUMBER = rb"([0-9.e+-]{1,40})"
_END = re.compile(
    rb"E ([0-9]{1,9}) ([a-z]{1,16}) (-?[0-9]{1,18}) " + _NUMBER + rb" ([0-9]{1,18}) " + _NUMBER + rb" (.*)",
    re.DOTALL,
)
_SET_UP_FAILED = re.compile(rb"X ([0-9]{1,9}) (.*)", re.DOTALL)


@dataclass(slots=True)
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


def _timed_out(result: dict | None) -> bool:
    return result is not None and result["verdict"] == Verdict.TIMEOUT.value


class _Chain:
    """One forked child running inputs ``[start, stop)`` of a program.

    The first input's stdout and stderr pipes are made here before the fork, so the child starts
    without a message. It ends each input with ``E i {report}``, which carries the read ends of
    the next input's pipes (the last report carries none). Any other message, or one out of
    order, is a violation that ends the chain, and the inputs it leaves get ``not_run``. A
    private input reaches the child only when it starts: the worker answers each ``E i`` with
    ``S``, carrying input ``i + 1``'s memfd.
    """

    def __init__(self, job: dict, start: int, stop: int, link: _PoolLink, judge: WorkerJudge | None) -> None:
        self.job, self.start, self.stop, self.link, self.judge = job, start, stop, link, judge
        self.limits: Limits = job["limits"]
        self.results: dict[int, dict] = {}
        self.index = start
        self.violation = False
        self.streams: dict[int, _Stream] = {}
        self.started = 0.0
        self.cpu_reported = 0.0
        self.cancelled = False
        self.control: socket.socket | None = None
        self.oom_kills = 0
        self.allowed_s = self.limits.timeout_s  # wall seconds the current input may take so far

    def run(self) -> int:
        """Run until the child ends; return the index of the first input with no result."""
        rlimits = sandbox.rlimits(self.limits, int(self.limits.cpu_limit_s * (self.stop - self.start)) + 1)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe()
        self.streams = self._new_streams(out_r, err_r)
        private = self.job.get("stdin_fds")
        stdin = private[self.start] if private is not None else self.link.devnull
        spec = {
            "start": self.start,
            "stop": self.stop,
            "cpu_limit_s": self.limits.cpu_limit_s,
            "rlimits": rlimits,
            "file_bytes": self.limits.file_bytes,
        }
        if "exec" in self.job:  # a compiled program, or the compiler: the child execs it
            spec["exec"] = self.job["exec"]
        cgroup = self.link.cgroup
        procs: list[int] = []
        if cgroup is not None:
            cgroup.set_limits(self.limits.memory_bytes, self.limits.processes)
            procs = cgroup.open_procs()
            self.oom_kills = cgroup.oom_kills()
        try:
            self.link.template.spawn(
                spec, [theirs.fileno(), out_w, err_w, stdin, self.job["payload"], *procs]
            )
        finally:
            for fd in procs:
                os.close(fd)
        self.started = time.monotonic()
        theirs.close()
        os.close(out_w)
        os.close(err_w)
        try:
            self._supervise(ours)
        finally:
            ours.close()
            self._close_streams()
        return self.index

    def _supervise(self, control: socket.socket) -> None:
        control.setblocking(False)
        self.control = control
        killed_for: Verdict | None = None
        control_open = True
        watch_link = self.job["stream"] or self.job["cancellable"]
        # A cancellation may have come with the job, or during an earlier chain of it.
        self.cancelled = watch_link and self.link.cancelled(self.job["id"])
        answers = "stdin_fds" in self.job and self.stop - self.start > 1  # as ``_on_message`` sends them
        if self.link.quiet_chains and not (answers or self.cancelled):
            self._wait_quietly(watch_link)
        pidfd = self.link.template.pidfd()
        try:
            while not self.cancelled:
                done = self.index >= self.stop
                if self.violation:
                    self._kill(pidfd)
                    break
                now = time.monotonic()
                remaining = self.started + (_EXIT_GRACE_S if done else self.allowed_s) - now
                if remaining <= 0 and not done and self._waited_for_cpu(pidfd):
                    continue
                if remaining <= 0:
                    killed_for = None if done else Verdict.TIMEOUT
                    self._kill(pidfd)
                    break
                quiet_for = 0.0 if done else self.started + _QUIET_START_S - now
                watch: list[int | socket.socket] = [pidfd]
                if control_open:
                    watch.append(control)
                if watch_link:
                    watch.append(self.link.fd)
                if quiet_for <= 0:
                    watch.extend(fd for fd, s in self.streams.items() if s.open)
                else:
                    remaining = min(remaining, quiet_for)
                ready, _, _ = select.select(watch, [], [], max(0.0, remaining))
                if self.link.fd in ready and self.link.cancelled(self.job["id"]):
                    self.cancelled = True
                    self._kill(pidfd)
                    break
                for fd in self.streams:
                    if fd in ready:
                        _read_into(fd, self.streams[fd])
                if not done and any(
                    s.dropped > max(4 * s.cap, _DISCARD_BEFORE_KILL) for s in self.streams.values()
                ):
                    killed_for = Verdict.OUTPUT_LIMIT
                    self._kill(pidfd)
                    break
                if control in ready or pidfd in ready:
                    control_open = self._read_control(control)
                if pidfd in ready:
                    break
        finally:
            self._kill(pidfd)  # a no-op once it has exited; the template then sweeps its leftovers
            os.close(pidfd)
        end = self.link.template.end()
        self._read_control(control)
        for fd, stream in self.streams.items():
            _drain(fd, stream)
        if self.violation:
            not_run = _result(
                Verdict.NOT_RUN, error="not run: the program broke the sandbox's control channel"
            )
            for index in range(self.index, self.stop):
                self.results.setdefault(index, not_run)
        if self.violation or self.cancelled:
            self.index = self.stop
        elif self.index < self.stop:
            self._record_end(end, killed_for)

    def _wait_quietly(self, watch_link: bool) -> None:
        """Wait for the end of the chain (the template's report), within ``_QUIET_CHAIN_S`` and
        the first input's limit, reading nothing of the child meanwhile; a cancellation ends it too."""
        wait = min(_QUIET_CHAIN_S, self.started + self.allowed_s - time.monotonic())
        if wait > 0:
            watch = [self.link.template.sock.fileno(), *([self.link.fd] if watch_link else [])]
            select.select(watch, [], [], wait)

    def _waited_for_cpu(self, pidfd: int) -> bool:
        """With ``Limits.wall_backstop_s``, the limit counts the program's CPU time: when the wall
        clock reaches it but the program has had less CPU than that (it waited for a busy
        machine), it gets the difference, up to the backstop of wall-clock time. True when the
        input was given more time."""
        backstop = self.limits.wall_backstop_s
        if backstop is None:
            return False
        elapsed = time.monotonic() - self.started
        used = _cpu_seconds(pidfd)
        if used is None or elapsed >= backstop:
            return False
        spent = used - self.cpu_reported  # the child's CPU so far, less what its earlier inputs took
        if spent >= self.limits.timeout_s - _CPU_TICK_S:
            return False
        self.allowed_s = min(backstop, elapsed + max(self.limits.timeout_s - spent, _CPU_TICK_S))
        return True

    def _read_control(self, control: socket.socket) -> bool:
        """Handle every message waiting on the control socket; False once the child closed it."""
        while not self.violation:
            try:
                message, ancillary, _, _ = control.recvmsg(_CONTROL_MESSAGE_MAX, _FDS_SPACE)
            except (BlockingIOError, InterruptedError):
                return True
            except OSError:
                return False
            fds = [
                int.from_bytes(data[i : i + _FD_BYTES], sys.byteorder)
                for level, kind, data in ancillary
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS
                for i in range(0, len(data) - len(data) % _FD_BYTES, _FD_BYTES)
            ]
            if not message and not fds:
                return False
            self._on_message(message, fds)
        return True

    def _on_message(self, message: bytes, fds: list[int]) -> None:
        """Handle one message from the child; anything malformed is the program's violation."""
        report = _report(message)
        expects_pipes = self.index + 1 < self.stop
        if (
            report is not None
            and report["index"] == self.index
            and self.streams
            and len(fds) == 2 * expects_pipes
        ):
            self._on_end(report)
            self.streams = self._new_streams(*fds) if fds else {}
            if expects_pipes and "stdin_fds" in self.job:
                self._send_private_stdin(self.job["stdin_fds"][self.index])
            return
        for fd in fds:
            os.close(fd)
        failed = _SET_UP_FAILED.fullmatch(message)
        if failed and int(failed[1]) == self.index:
            reason = failed[2].decode("utf-8", errors="replace")[:300]
            self._store(Verdict.RUNTIME_ERROR, error=f"sandbox set-up failed: {reason}")
        else:
            self._store(Verdict.SANDBOX_VIOLATION, error="program wrote to the sandbox control channel")
        self.violation = True

    def _send_private_stdin(self, fd: int) -> None:
        """Hand the child the next private input, now that it has ended the previous one."""
        fds = fd.to_bytes(_FD_BYTES, sys.byteorder)
        assert self.control is not None, "a child is running, so its control channel is open"
        try:
            self.control.sendmsg([b"S"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        except OSError:
            self.violation = True  # the child closed its end: it cannot go on

    def _on_end(self, payload: dict) -> None:
        for fd, stream in self.streams.items():
            _drain(fd, stream)
        verdicts = {"ok": Verdict.OK, "memory": Verdict.MEMORY_LIMIT}
        verdict = verdicts.get(payload["status"], Verdict.RUNTIME_ERROR)
        error = payload["error"][:500]
        if self._stdout_dropped():
            verdict, error = Verdict.OUTPUT_LIMIT, "output limit exceeded"
        elif self._out_of_memory():
            verdict, error = Verdict.MEMORY_LIMIT, self._memory_error()
        cpu = max(payload["cpu"], 0.0)
        self._store(
            verdict,
            wall_s=min(max(payload["wall"], 0.0), time.monotonic() - self.started),
            exit_code=payload["exit_code"],
            error=error,
            cpu_s=cpu,
            peak_memory_bytes=max(payload["rss"], 0),
        )
        self.index += 1
        self.started, self.cpu_reported = time.monotonic(), self.cpu_reported + cpu
        self.allowed_s = self.limits.timeout_s

    def _new_streams(self, out_r: int, err_r: int) -> dict[int, _Stream]:
        """An input's stdout and stderr, in that order (``_stdout_dropped`` relies on it)."""
        return {out_r: _Stream(self.limits.output_bytes), err_r: _Stream(self.limits.stderr_bytes)}

    def _stdout_dropped(self) -> bool:
        return next(iter(self.streams.values())).dropped > 0 if self.streams else False

    def _out_of_memory(self) -> bool:
        """Did the kernel kill one of the program's processes for lack of memory during this input?"""
        if self.link.cgroup is None:
            return False
        seen, self.oom_kills = self.oom_kills, self.link.cgroup.oom_kills()
        return self.oom_kills > seen

    def _aborted_for_memory(self) -> bool:
        """A compiled program aborted by an allocation the address-space limit refused (C++'s
        uncaught ``std::bad_alloc``): the C++ twin of Python's ``MemoryError``."""
        streams = list(self.streams.values())
        return self.job.get("exec") is not None and len(streams) == 2 and b"std::bad_alloc" in streams[1].data

    def _memory_error(self) -> str:
        limit = self.limits.memory_bytes / (1 << 20)
        return f"memory limit of {limit:g} MiB exceeded by the program's processes together"

    def _store(self, verdict: Verdict, **fields) -> None:
        (stdout, out_drop), (stderr, err_drop) = (
            (s.take() for s in self.streams.values()) if self.streams else (("", 0), ("", 0))
        )
        self._close_streams()
        fields.setdefault("wall_s", time.monotonic() - self.started)
        result = _result(
            verdict, stdout=stdout, stderr=stderr, stdout_dropped=out_drop, stderr_dropped=err_drop, **fields
        )
        self.results[self.index] = result if self.judge is None else self.judge.judged(self.index, result)
        if self.job["stream"]:
            partial = result_from_fields(self.results[self.index])
            self.link.send({"id": self.job["id"], "partial": self.index, "result": partial})

    def _close_streams(self) -> None:
        for fd in self.streams:
            os.close(fd)
        self.streams = {}

    def _record_end(self, end: dict, killed_for: Verdict | None) -> None:
        """The child ended during input ``self.index``: classify how, from outside."""
        status = end["status"]
        common = {"cpu_s": max(0.0, end["cpu_s"] - self.cpu_reported), "peak_memory_bytes": end["rss"]}
        if killed_for is Verdict.TIMEOUT:
            limit = f"wall-clock limit of {self.limits.timeout_s:g} s exceeded"
            if self.limits.wall_backstop_s is not None:
                limit = (
                    f"time limit of {self.limits.timeout_s:g} s of CPU exceeded "
                    f"(or its wall-clock backstop of {self.limits.wall_backstop_s:g} s)"
                )
            self._store(Verdict.TIMEOUT, error=limit, signal="SIGKILL", **common)
        elif killed_for is Verdict.OUTPUT_LIMIT:
            self._store(Verdict.OUTPUT_LIMIT, error="output limit exceeded", signal="SIGKILL", **common)
        elif self._out_of_memory():
            self._store(Verdict.MEMORY_LIMIT, error=self._memory_error(), signal="SIGKILL", **common)
        elif os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            name = (
                signal.Signals(number).name
                if number in signal.Signals._value2member_map_
                else f"signal {number}"
            )
            if number == signal.SIGXCPU:
                limit = f"CPU time limit of {self.limits.cpu_limit_s:g} s exceeded"
                self._store(Verdict.TIMEOUT, error=limit, signal=name, **common)
            elif number == signal.SIGABRT and self._aborted_for_memory():
                self._store(Verdict.MEMORY_LIMIT, error=self._memory_error(), signal=name, **common)
            else:
                self._store(Verdict.SIGNAL, error=f"killed by {name}", signal=name, **common)
        else:
            code = os.WEXITSTATUS(status)
            verdict, error = (Verdict.OK, "") if code == 0 else (Verdict.RUNTIME_ERROR, f"exit status {code}")
            if self._stdout_dropped():
                verdict, error = Verdict.OUTPUT_LIMIT, "output limit exceeded"
            self._store(verdict, exit_code=code, error=error, **common)
        self.index += 1

    @staticmethod
    def _kill(pidfd: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)


_CPU_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")
_HOST_PROC: list[int] = []


def open_host_proc() -> None:
    """Keep a descriptor of this process's /proc before the sandbox replaces the view of it: the
    PID-namespace init mounts a proc of its own, where this process (outside that namespace)
    cannot read its own ``fdinfo``. Without it, time limits stay wall-clock ones."""
    try:
        _HOST_PROC[:] = [os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]
    except OSError:
        _HOST_PROC.clear()


def _cpu_seconds(pidfd: int) -> float | None:
    """CPU seconds the process behind ``pidfd`` and its reaped children have used, from /proc;
    ``None`` where /proc does not show it (the limit then stays a wall-clock one)."""
    if not _HOST_PROC:
        return None
    try:
        with open(f"self/fdinfo/{pidfd}", opener=_at_proc) as info:
            pid = next(int(line.split()[1]) for line in info if line.startswith("Pid:"))
        if pid <= 0:
            return None
        with open(f"{pid}/stat", opener=_at_proc) as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    return sum(int(value) for value in fields[11:15]) * _CPU_TICK_S


def _at_proc(path: str, flags: int) -> int:
    return os.open(path, flags, dir_fd=_HOST_PROC[0])


def _read_into(fd: int, stream: _Stream, size: int = _READ_CHUNK) -> None:
    """Read up to ``size`` bytes from a pipe that is readable."""
    chunk = os.read(fd, size)
    if chunk:
        stream.add(chunk)
    else:
        stream.open = False


def _drain(fd: int, stream: _Stream) -> None:
    """Read what is in the pipe now, in one read, without waiting for writers that may still hold
    it: what a program's leftover thread writes later is not the input's, and cannot keep the
    supervisor reading."""
    if stream.open:
        available = int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), sys.byteorder)
        if available:
            _read_into(fd, stream, available)


def _report(message: bytes) -> dict | None:
    """A child's end-of-input message as a report with every field of the right type, or None.

    It comes from the program's process, so it is hostile input: anything but the fixed format
    (``_END``: ASCII digits, bounded lengths) or a non-finite or malformed number makes it
    invalid, never an exception. A fixed format rather than JSON: this runs once per input.
    """
    parsed = _END.fullmatch(message) if len(message) <= _CONTROL_MESSAGE_MAX else None
    if parsed is None:
        return None
    try:
        cpu, wall = float(parsed[4]), float(parsed[6])
    except ValueError:
        return None
    if not (math.isfinite(cpu) and math.isfinite(wall)):
        return None
    return {
        "index": int(parsed[1]),
        "status": parsed[2].decode(),
        "exit_code": int(parsed[3]),
        "error": parsed[7].decode("utf-8", errors="replace"),
        "cpu": cpu,
        "rss": int(parsed[5]),
        "wall": wall,
    }


class _PoolLink:
    """The supervisor's links: the pool's pipes (jobs and cancellations in, results out) and the template."""

    def __init__(
        self,
        template_handle: template.TemplateHandle,
        cgroup: cgroups.CgroupHandle | None,
        binaries: int | None,
        quiet_chains: bool,
    ) -> None:
        self.fd = 0
        self.template = template_handle
        self.cgroup = cgroup
        self.quiet_chains = quiet_chains
        self.devnull = os.open(os.devnull, os.O_RDONLY)
        self.binaries = compiling.BinaryCache(binaries)  # compiled programs, shared with the pool's workers
        self._reader = wire.FrameReader()
        self._frames: list[dict] = []
        self._cancelled: set[int] = set()

    def next_job(self) -> dict | None:
        """Block for the next job; ``None`` when the pool has closed the pipe."""
        while True:
            while self._frames:
                frame = self._frames.pop(0)
                if "cancel" not in frame:
                    self._cancelled.clear()
                    # what follows the job in this read can only be its own cancellation
                    self._cancelled.update(f["cancel"] for f in self._frames if "cancel" in f)
                    self._frames = [f for f in self._frames if "cancel" not in f]
                    return frame
            chunk = os.read(self.fd, wire.READ_BYTES)
            if not chunk:
                return None
            self._frames.extend(self._reader.feed(chunk))

    def cancelled(self, job_id: int) -> bool:
        """Read what the pool sent while a job runs; True once it cancelled ``job_id``."""
        if select.select([self.fd], [], [], 0)[0]:
            chunk = os.read(self.fd, wire.READ_BYTES)
            if not chunk:
                return True
            self._frames.extend(self._reader.feed(chunk))
            self._cancelled.update(f["cancel"] for f in self._frames if "cancel" in f)
            self._frames = [f for f in self._frames if "cancel" not in f]
        return job_id in self._cancelled

    @staticmethod
    def send(frame: dict) -> None:
        wire.write_frame(1, frame)


def _memfd(data: bytes) -> int:
    fd = os.memfd_create("stdin", os.MFD_CLOEXEC)
    os.write(fd, data)
    return fd


def execute(job: dict, link: _PoolLink) -> list[dict]:
    """Run one program on all its inputs; one result dict per input, in order.

    The program is compiled here, once; a program that does not compile is never forked. The
    compiled code, the source and the public inputs go into one memfd that each child reads;
    private inputs each go into a memfd of their own, which the child receives only when that
    input starts (``_Chain``), so no child can read an input ahead of time. With a judge, each
    result is judged as its input ends (before it is streamed), and the results the supervisor
    fills in itself (a syntax error, inputs not run) at the end.
    """
    judge = worker_judge(job["judge"]) if job.get("judge") is not None else None
    results = _execute(job, link, judge)
    if judge is None:
        return results
    return [r if "judgement" in r else judge.judged(i, r) for i, r in enumerate(results)]


def worker_judge(spec: Mapping[str, Any]) -> WorkerJudge:
    """The judge a job names (``judge_module``): the engine knows no family, and a family that
    judges in the workers brings its own (the unit-test family's is ``unit_tests.harness.judging``).
    """
    judge: WorkerJudge = importlib.import_module(judge_module(spec)).Judge(spec)
    return judge


def _execute(job: dict, link: _PoolLink, judge: WorkerJudge | None) -> list[dict]:
    if job.get("private"):
        job["stdin_fds"] = [_memfd(data) for data in job.pop("inputs")]
    count = len(job["stdin_fds"]) if "stdin_fds" in job else len(job["inputs"])
    results: dict[int, dict] = {}
    try:
        if job.get("language", "python") != "python":
            failed = _prepare_compiled(job, link)
            if failed is not None:
                return [failed] * count
        else:
            try:
                code = runner.compile_source(job["source"])
            except BaseException as exc:  # noqa: BLE001 - SyntaxError, ValueError (NUL bytes), RecursionError, ...
                return [_result(Verdict.SYNTAX_ERROR, exit_code=1, error=runner.error_line(exc))] * count
            job["payload"] = template.write_payload(code, job["source"], job.get("inputs"))
        index = 0
        while index < count:
            chain = _Chain(job, index, index + 1 if job["strict"] else count, link, judge)
            index = chain.run()
            results.update(chain.results)
            if chain.cancelled:
                not_run = _result(Verdict.NOT_RUN, error=CANCELLED_ERROR)
                return [results.get(i, not_run) for i in range(count)]
            if job["limits"].stop_after_timeout and _timed_out(results.get(index - 1)):
                not_run = _result(Verdict.NOT_RUN, error="not run: an earlier input timed out")
                return [results.get(i, not_run) for i in range(count)]
    finally:
        for fd in [*job.get("stdin_fds", ()), job.get("payload", -1)]:
            if fd >= 0:
                os.close(fd)
    return [results[i] for i in range(count)]


def _prepare_compiled(job: dict, link: _PoolLink) -> dict | None:
    """Make ``job`` run a compiled binary: one fresh process per input, each input on stdin from
    a memfd of its own. Returns the result every input gets when the source does not compile, or
    when the program was cancelled while it compiled: a cancelled compile is never cached, so the
    same source compiles normally next time."""
    settings: CompileSettings = job["compile"]
    key = compiling.cache_key(job["source"], settings)
    built = link.binaries.get(key)
    if built is None:
        built = _compile(job, settings, link)
        if built is None:
            return _result(Verdict.NOT_RUN, error=CANCELLED_ERROR)
        link.binaries.put(key, built)
    if isinstance(built, dict):
        return built
    job["payload"] = os.dup(built)
    job["exec"] = {"mode": "run", "argv": ["./main"]}
    job["strict"] = True
    if "stdin_fds" not in job:
        job["stdin_fds"] = [_memfd(data) for data in job.pop("inputs")]
    return None


def _compile(job: dict, settings: CompileSettings, link: _PoolLink) -> int | dict | None:
    """Compile ``job``'s source in a sandboxed child, under the compiler's own limits.

    Returns the sealed memfd holding the binary (no file system holds it, so no program can
    reach it), or the ``compile_error`` result with the compiler's first lines, or ``None`` when
    the program was cancelled during the compile (its compiler is then killed, like a program).
    """
    if len(job["source"]) > runner.MAX_SOURCE_CHARS:
        return _result(Verdict.COMPILE_ERROR, exit_code=1, error="program too large to compile")
    binary = os.memfd_create("binary", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    source = _memfd(job["source"].encode("utf-8", errors="surrogateescape"))
    compile_job = {
        "id": job["id"],
        "limits": settings.limits(),
        "stdin_fds": [source],
        "payload": binary,
        "exec": {"mode": "compile", "argv": settings.command()},
        "stream": False,
        "cancellable": job["cancellable"],
        "strict": True,
    }
    try:
        chain = _Chain(compile_job, 0, 1, link, None)
        chain.run()
    finally:
        os.close(source)
    if chain.cancelled:
        os.close(binary)
        return None
    result = chain.results[0]
    if result["verdict"] == Verdict.OK.value and os.fstat(binary).st_size > 0:
        compiling.seal(binary)
        return binary
    os.close(binary)
    return compiling.compile_error(result, settings)


def serve(
    config: sandbox.SandboxConfig,
    template_handle: template.TemplateHandle,
    cgroup: cgroups.CgroupHandle | None,
    handshake: dict,
    binaries: int | None,
    quiet_chains: bool,
) -> None:
    """Answer jobs from the pool on fds 0/1 until the pool closes the pipe (or the template dies);
    ``binaries``: a descriptor of the pool's binaries folder (see ``compiling``); ``quiet_chains``:
    read a fast program's reports at its end (``_QUIET_CHAIN_S``)."""
    link = _PoolLink(template_handle, cgroup, binaries, quiet_chains)
    try:
        link.send(handshake)
    except BrokenPipeError:  # the pool closed while this worker started (it does not wait for all)
        return
    while True:
        job = link.next_job()
        if job is None:
            return
        link.send({"id": job["id"], "results": [result_from_fields(r) for r in execute(job, link)]})
        if not link.template.cleaned():  # the results stand; the pool replaces this worker
            return
