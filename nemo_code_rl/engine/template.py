"""The template: the one process every program is forked from, kept free of any job's data.

A child shares, copy-on-write, every byte of the process it was forked from, freed heap included,
and a program can read its own memory (``/proc/self/maps`` and ``ctypes``). So programs are never
forked from the supervisor, which reads jobs, private test code and earlier programs' output.
They are forked from this template, started by the worker right after it set up isolation and
before it read any job: the template imports the preloaded modules, then only ever receives
small spawn requests (indexes, limits, rlimits) and the descriptors a child needs. A program's
source, inputs and outputs reach the child only through those descriptors, never through memory
the template held. The invariant: **no byte of any job ever enters this process.**

The template is also the parent and reaper of every program. After a program, on ``end``, it
kills everything the program left (it is the init of the worker's PID namespace, or a child
subreaper in a container) and reaps until none is left, so the next program starts in an empty
namespace. A program cannot signal it: the kernel protects a namespace's init from signals sent
inside it, and in a container it runs as another uid.

Protocol on two ``SOCK_SEQPACKET`` pairs with the supervisor (both trusted; a program holds no
end): ``S {spec}`` with the child's descriptors -> ``P`` carrying a pidfd of the child, then,
unasked, ``R {status, cpu_s, rss}`` once the program and everything it left are gone (the
supervisor ends a program through the pidfd; the template only waits for it), then ``K`` once
the child's private folders are fresh and the IPC objects it made are gone, or ``F {reason}`` as
the template's last word. The template cleans after every child unasked: a request to clean
would wake it once more per program. ``P`` comes on the second pair, which the supervisor reads
only when it needs the pidfd: a fast program has ended before that, and waiting for ``P`` would
also wake the supervisor once more per program (see ``supervisor._QUIET_CHAIN_S``). Spawn
requests and reports are ``marshal``-encoded: both ends are trusted, and it is the cheapest
encoding for the template, whose every page written between two forks is a page fault.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import json
import marshal
import os
import resource
import signal
import socket
import sys
import types
from collections.abc import Sequence

from nemo_code_rl.engine import cgroups, languages, runner, sandbox, syscalls

# fork(2) itself, holding the GIL as ``os.fork`` does. The template is single-threaded and holds no
# lock when it forks, so CPython's after-fork work in the child (re-initialising locks another
# thread might hold, then the ``os.register_at_fork`` hooks of imported modules) is moot, and it
# costs every program ~70 page copies (threading's hook alone writes ~130 pages, part of which the
# child would write later anyway). The one hook a program can tell apart, ``random``'s reseed, the
# child runs itself (``_after_fork``).
_FORK = ctypes.PyDLL(None, use_errno=True).fork
_MESSAGE_MAX = 4096
_FD_BYTES = 4
_MAX_FDS = 8
SPAWN_FDS = ("control", "stdout", "stderr", "stdin", "payload")  # then the cgroup.procs files, if any


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


def write_payload(code: types.CodeType, source: str, inputs: Sequence[bytes] | None) -> int:
    """A memfd holding what one child runs: the compiled program, its source, its public inputs."""
    fd = os.memfd_create("program", os.MFD_CLOEXEC)
    data = marshal.dumps((code, source, None if inputs is None else list(inputs)))
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    return fd


def _read_payload(fd: int) -> tuple:
    size = os.fstat(fd).st_size
    data = os.pread(fd, size, 0)
    os.close(fd)
    return marshal.loads(data)


def receive(sock: socket.socket) -> tuple[bytes, list[int]]:
    """One message and the descriptors that came with it (``b""`` once the peer has gone)."""
    message, ancillary, _, _ = sock.recvmsg(_MESSAGE_MAX, socket.CMSG_SPACE(_MAX_FDS * _FD_BYTES))
    fds = [
        int.from_bytes(data[i : i + _FD_BYTES], sys.byteorder)
        for level, kind, data in ancillary
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS
        for i in range(0, len(data) - len(data) % _FD_BYTES, _FD_BYTES)
    ]
    return message, fds


def send(sock: socket.socket, message: bytes, fds: Sequence[int] = ()) -> None:
    if fds:
        payload = b"".join(fd.to_bytes(_FD_BYTES, sys.byteorder) for fd in fds)
        sock.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, payload)])
    else:
        sock.send(message)


def _preload(modules: list[str]) -> tuple[list[str], list[str]]:
    loaded, missing = [], []
    for name in modules:
        try:
            importlib.import_module(name)
            loaded.append(name)
        except Exception:  # noqa: BLE001 - an optional module that fails to import is only reported
            missing.append(name)
    return loaded, missing


def _fork() -> int:
    """Fork a child of this single-threaded process; 0 in the child (see ``_FORK``)."""
    pid = _FORK()
    if pid < 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
    if pid == 0:
        _after_fork()
    return pid


def _after_fork() -> None:
    """What of CPython's after-fork hooks a program can observe: each one's own random sequence."""
    preloaded = sys.modules.get("random")
    if preloaded is not None:
        preloaded.seed()


def _child(spec: dict, fds: dict, config: sandbox.SandboxConfig, workdir: str) -> None:
    """In the forked child: take its descriptors, isolate, become unprivileged, run the program."""
    control = socket.socket(fileno=fds["control"])
    try:
        os.setsid()
        if config.level == sandbox.NONE:  # elsewhere the template's namespace or container bounds it
            syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL)
        cgroups.join(fds["cgroup"])
        syscalls.prctl(syscalls.PR_SET_DUMPABLE, 1)  # the template is not; its memory holds nothing of a job
        adj = os.open("/proc/self/oom_score_adj", os.O_WRONLY)  # the kernel's first choice, inherited
        os.write(adj, b"1000")
        os.close(adj)
        os.dup2(fds["stdin"], 0)
        os.lseek(0, 0, os.SEEK_SET)
        os.dup2(fds["stdout"], 1)
        os.dup2(fds["stderr"], 2)
        payload = fds["payload"]
        keep = sorted((control.fileno(), payload))
        os.closerange(3, keep[0])
        os.closerange(keep[0] + 1, keep[1])
        os.closerange(keep[1] + 1, 1 << 16)
        os.chdir(workdir)
        if workdir != sandbox.WORKDIR:  # level ``none``: a folder of its own per program
            os.environ.update(program_env(workdir))
        for kind, values in spec["rlimits"]:
            resource.setrlimit(kind, tuple(values))
        sandbox.drop_privileges(config)
        if "exec" in spec:
            _exec(spec["exec"], payload, control, spec["start"])
        code, source, inputs = _read_payload(payload)
        runner.run_program(code, source, inputs, spec["start"], spec["stop"], spec["cpu_limit_s"], control)
    except BaseException as exc:  # noqa: BLE001 - report set-up failures, never fall back into the template
        try:
            control.send(f"X {spec['start']} {json.dumps(str(exc)[:300])}".encode())
        finally:
            os._exit(70)
    os._exit(0)


def _exec(how: dict, payload: int, control: socket.socket, start: int) -> None:
    """Become a compiled program (``payload`` is its sealed binary) or the compiler (``payload`` is
    the in-memory file it writes the binary to, as ``languages.BINARY_FD``); never returns.

    The control socket closes on exec: the supervisor reads how the process ended from outside.
    An exec that fails (no such compiler) is reported on it as a set-up failure.
    """
    if how["mode"] == "compile" and control.fileno() == languages.BINARY_FD:
        control = control.dup()  # the binary's descriptor replaces the original below
    os.set_inheritable(control.fileno(), False)
    try:
        if how["mode"] == "compile":
            os.dup2(payload, languages.BINARY_FD)
            if payload != languages.BINARY_FD:
                os.close(payload)
            os.execvpe(how["argv"][0], how["argv"], os.environ)
        os.set_inheritable(payload, False)
        os.execve(payload, how["argv"], os.environ)
    except OSError as exc:
        reason = json.dumps(f"cannot run {how['argv'][0]}: {exc}"[:300])
        control.send(f"X {start} {reason}".encode())
        os._exit(70)


def _end(child: int, config: sandbox.SandboxConfig) -> dict:
    """Reap the program, kill whatever it left, and reap that too."""
    _, status, usage = os.wait4(child, 0)
    if _left_anything():
        _kill_leftovers(child, config)
    return {"status": status, "cpu_s": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss * 1024}


def _kill_leftovers(child: int, config: sandbox.SandboxConfig) -> None:
    if config.level in sandbox.SUPERVISED:
        try:  # noqa: SIM105 - the template imports as little as it can
            os.kill(-1, signal.SIGKILL)  # all but this process and the namespace's init
        except ProcessLookupError:
            pass
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
    else:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child, signal.SIGKILL)
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break


def _left_anything() -> bool:
    """Whether a process the program started may still be there. The template is the init or a
    subreaper of everything a program starts, so once the program itself is reaped, a template
    with no child has nothing left to kill. The common case then costs one ``waitpid`` instead of
    a ``kill(-1)``, which walks every process of the host under its global task-list lock (and
    every ``fork`` and exit on the host waits for that lock)."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    return True


_SYSV = {"msg": "msgctl", "shm": "shmctl", "sem": "semctl"}  # /proc/sysvipc file -> removing call
# How many objects of each kind the namespace holds: the arguments of the control call's ``*_INFO``
# command (``MSG_INFO``, ``SHM_INFO``, ``SEM_INFO``) before the struct it fills, and the index of
# that struct's ``int`` holding the count (``msgpool``, ``used_ids``, ``semusz``).
_COUNTS = {"msg": ((0, 12), 0), "shm": ((0, 14), 0), "sem": ((0, 0, 19), 7)}


class _IpcObjects:
    """What a program left in the worker's IPC namespace: SysV objects and POSIX message queues.

    A worker's programs share its IPC namespace in turn (a namespace of their own cost each
    program about 0.25 ms of kernel CPU to make and tear down), so what one of them made must be
    gone before the next starts, or it would carry data from one program to the next. The
    common case, nothing to remove, costs three counts (``_COUNTS``) and the size of the queues'
    folder (the message queue file system adds to it for each queue, from its size when empty):
    every page the template writes between two forks is a page fault, and reading the /proc
    tables wrote thirty.
    """

    def __init__(self, queues_fd: int) -> None:
        self.queues_fd = queues_fd  # ``sandbox.open_message_queues``, before any program has run
        self.queues_empty = os.fstat(queues_fd).st_size
        self.tables = {kind: os.open(f"/proc/sysvipc/{kind}", os.O_RDONLY | os.O_CLOEXEC) for kind in _SYSV}
        libc = ctypes.CDLL(None, use_errno=True)
        self.info = (ctypes.c_int * 32)()  # larger than each struct the counts fill
        self.counts = [(getattr(libc, _SYSV[kind]), *_COUNTS[kind]) for kind in _SYSV]

    def may_hold_any(self) -> bool:
        """Whether the namespace may hold an object a program made (True also where a count fails)."""
        info = self.info
        for call, arguments, field in self.counts:
            if call(*arguments, info) < 0 or info[field]:
                return True
        return os.fstat(self.queues_fd).st_size != self.queues_empty

    def remove(self, config: sandbox.SandboxConfig) -> None:
        """Remove what the last program left; ``OSError`` if any of it is still there.

        Only the owner may remove an object, and a container's template has no capability that
        overrides that, so a short-lived child takes the programs' identity to do it.
        """
        if not self.may_hold_any():
            return
        ids = {kind: self._sysv_ids(kind) for kind in _SYSV}
        queues = os.listdir(self.queues_fd)
        if not queues and not any(ids.values()):
            return
        pid = os.fork()
        if pid == 0:
            try:
                sandbox.drop_privileges(config)
                libc = ctypes.CDLL(None, use_errno=True)
                for kind, call in _SYSV.items():
                    for number in ids[kind]:
                        getattr(libc, call)(number, 0, None)  # IPC_RMID
                for name in queues:
                    with contextlib.suppress(OSError):  # the check below tells
                        os.unlink(name, dir_fd=self.queues_fd)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        left = [f"SysV {kind}" for kind in _SYSV if self._sysv_ids(kind)]
        left += ["POSIX message queues"] * bool(os.listdir(self.queues_fd))
        if left:
            raise OSError(f"could not remove the IPC objects a program left ({', '.join(left)})")

    def _sysv_ids(self, kind: str) -> list[int]:
        table, data = self.tables[kind], b""
        while chunk := os.pread(table, 1 << 16, len(data)):
            data += chunk
        rows = data.splitlines()[1:]  # under a header line
        return [int(row.split()[1]) for row in rows if row.strip()]


def serve(
    sock: socket.socket, pids: socket.socket, config: sandbox.SandboxConfig, preload: list[str]
) -> None:
    """The template's life: prepare once, then fork one child per spawn request until the
    supervisor goes; ``pids`` carries each child's pidfd."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL)
    try:
        sandbox.prepare_init(config)
        ipc = _IpcObjects(sandbox.open_message_queues(config)) if config.level in sandbox.SUPERVISED else None
    except OSError as exc:
        refused = f"the host refused the init's /proc or its message queues: {exc}"
        send(sock, json.dumps({"error": refused}).encode())
        return
    if os.getpid() != 1:
        syscalls.prctl(syscalls.PR_SET_CHILD_SUBREAPER, 1)
    syscalls.prctl(syscalls.PR_SET_DUMPABLE, 0)
    loaded, missing = _preload(preload)
    runner.prepare()
    os.environ.clear()  # set once here, as every child inherits it: a child writing it costs page copies
    os.environ.update(program_env(sandbox.WORKDIR))
    # From here on, the collector leaves the preloaded objects alone: a full collection would write
    # the header of each of them, i.e. a page fault (a copy, while a child shares the page) on
    # every page of the preloaded modules, in the template or in a program.
    gc.freeze()
    send(sock, json.dumps({"preloaded": loaded, "not_importable": missing}).encode())
    workdir, path = sandbox.Workdir(config), None
    while True:
        message, fds = receive(sock)
        if not message:
            return
        kind, _, rest = message.partition(b" ")
        if kind == b"S":
            spec = marshal.loads(rest)
            if path is None:
                path = workdir.open(spec["file_bytes"])
            named: dict = dict(zip(SPAWN_FDS, fds, strict=False))
            named["cgroup"] = fds[len(SPAWN_FDS) :]
            child = _fork()
            if child == 0:
                sock.close()
                _child(spec, named, config, path)
            for fd in fds:
                os.close(fd)
            pidfd = os.pidfd_open(child)
            send(pids, b"P", [pidfd])
            os.close(pidfd)
            send(sock, b"R " + marshal.dumps(_end(child, config)))
            try:
                workdir.close(path)
                if ipc is not None:
                    ipc.remove(config)
            except OSError as exc:  # the program's results stand; this worker is done
                send(sock, b"F " + str(exc).encode()[:1000])
                return
            path = None
            send(sock, b"K")


class TemplateHandle:
    """The supervisor's end of the template's sockets: requests and reports (``sock``: it turns
    readable once a child has ended and everything it left is gone), and the children's pidfds."""

    def __init__(self, sock: socket.socket, pids: socket.socket, pid: int) -> None:
        self.sock, self.pids, self.pid = sock, pids, pid
        self._cleaning = False  # a child was forked, and the answer of the clean after it is not read yet

    def ready(self) -> dict:
        """Wait for the template's start-up report (what it preloaded)."""
        message, _ = receive(self.sock)
        if not message:
            raise RuntimeError("the template process died during start-up")
        report = json.loads(message)
        if "error" in report:
            raise RuntimeError(report["error"])
        return report

    def spawn(self, spec: dict, fds: Sequence[int]) -> None:
        """Ask for a child holding ``fds`` (``SPAWN_FDS`` order, then ``cgroup.procs`` files);
        ``pidfd`` then gives its pidfd."""
        if not self.cleaned():
            raise RuntimeError("the template process could not clean up after the last program")
        send(self.sock, b"S " + marshal.dumps(spec), fds)
        self._cleaning = True

    def pidfd(self) -> int:
        """A pidfd of the child the last ``spawn`` asked for, once it is forked."""
        message, received = receive(self.pids)
        if message != b"P" or len(received) != 1:
            raise RuntimeError("the template process did not fork the program")
        return received[0]

    def cleaned(self) -> bool:
        """Whether the clean after the last child worked: its private /tmp and /dev/shm are
        fresh (see ``sandbox.Workdir``) and the IPC objects it made are gone (True when no child
        was forked since the last call). The template cleans once it has sent ``end``'s report,
        while the supervisor sends the program's results; this reads the answer before the next
        child. False: the template has ended, and the worker must be replaced."""
        if not self._cleaning:
            return True
        self._cleaning = False
        try:
            message, _ = receive(self.sock)
        except OSError as exc:
            message = f"F {exc}".encode()
        if message != b"K":  # the pool's log shows why this worker is replaced
            sys.stderr.write(f"execution worker: {message[2:].decode(errors='replace') or 'template gone'}\n")
        return message == b"K"

    def end(self) -> dict:
        """After the child exited (or was killed): its status, CPU time and peak memory, which the
        template sends once nothing it left runs."""
        message, _ = receive(self.sock)
        if not message.startswith(b"R "):
            raise RuntimeError("the template process did not reap the program")
        return marshal.loads(message[2:])


def start(config: sandbox.SandboxConfig, preload: list[str]) -> TemplateHandle:
    """Fork the template from this process, before it has read any job; it never returns."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pids_ours, pids_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        ours.close()
        pids_ours.close()
        code = 1
        try:
            keep = sorted((theirs.fileno(), pids_theirs.fileno()))
            os.closerange(3, keep[0])
            os.closerange(keep[0] + 1, keep[1])
            os.closerange(keep[1] + 1, 1 << 16)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)  # the pool's pipes belong to the supervisor alone
            os.close(null)
            serve(theirs, pids_theirs, config, preload)
            code = 0
        finally:
            os._exit(code)
    theirs.close()
    pids_theirs.close()
    return TemplateHandle(ours, pids_ours, pid)
