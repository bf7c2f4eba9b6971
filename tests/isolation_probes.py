"""Isolation probes every backend must pass: each runs one hostile program and checks what it saw.

Both the process backend (``tests/engine``) and the Docker backend (``tests/engine_docker``) make
these claims, so each probe lives here once and the backends' test files call it with their pool;
what only one backend promises stays in that backend's tests.
"""

import errno
import json
import os
import shutil
import socket
import tempfile
import textwrap
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import pytest

from nemo_code_rl import Program, Verdict

from .engine.conftest import processes_with_uids


def stdout_of(pool, source: str, stdin: str = "") -> str:
    """Run ``source`` once; a probe whose program did not finish cleanly has proved nothing."""
    result = pool.run(Program(source, [stdin]))[0]
    assert result.verdict is Verdict.OK, result
    return result.stdout


def assert_no_network_even_to_loopback(pool) -> None:
    """A listener on the host's loopback is the nearest target; reaching it would mean a network."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        source = (
            "import socket\ns = socket.socket()\ntry:\n"
            f"    s.connect(('127.0.0.1', {port}))\n    print('connected')\n"
            "except OSError as exc:\n    print('refused', exc.errno)"
        )
        assert stdout_of(pool, source).startswith("refused")
        with pytest.raises(TimeoutError):
            listener.accept()


def assert_filesystem_is_read_only_outside_the_temp_dir(pool, host_path: str) -> None:
    """Only the execution's own temp dir (its cwd, ``/tmp``) and ``/dev/shm`` take writes.

    ``host_path`` is a file under a folder the backend exposes read-only from the host (which one
    differs per backend), so that denial is not just a missing directory.
    """
    denied = ["/etc/escape", "/usr/escape", host_path]
    written = ["/dev/shm/ok", "ok.txt"]
    source = (
        "import os\n"
        f"for path in {denied + written!r}:\n"
        "    try:\n        open(path, 'w').write('x')\n        print(path, 'written')\n"
        "    except OSError as exc:\n        print(path, 'denied')\nprint(os.getcwd())"
    )
    assert stdout_of(pool, source).splitlines() == (
        [f"{path} denied" for path in denied] + [f"{path} written" for path in written] + ["/tmp"]
    )


def assert_executions_cannot_see_each_others_files(pool) -> None:
    """Files one execution writes (cwd or anywhere under ``/tmp``, ``/dev/shm``) die with it."""
    writer = (
        "open('private.txt', 'w').write('secret')\nimport os\nprint(os.getcwd(), sorted(os.listdir('.')))"
    )
    reader = (
        "import os, glob\nprint(sorted(os.listdir('.')), glob.glob('/tmp/**/private.txt', recursive=True),"
        " glob.glob('/dev/shm/*'))"
    )
    results = pool.run_batch([Program(writer, [""]), Program(reader, [""]), Program(reader, [""])])
    assert results[0][0].stdout == "/tmp ['private.txt']\n"
    assert results[1][0].stdout == results[2][0].stdout == "[] [] []\n"


def assert_secrets_of_the_parent_are_invisible(
    open_pool: Callable[[], AbstractContextManager], monkeypatch
) -> None:
    """Tokens in the parent's environment reach neither the program's environment nor any /proc file.

    ``open_pool`` starts a fresh pool, after the secrets are set, so its workers could inherit them.
    """
    monkeypatch.setenv("HF_TOKEN", "hf_secret_value_123")
    monkeypatch.setenv("WANDB_API_KEY", "wandb_secret_value_456")
    source = (
        "import glob, os\nprint(sorted(k for k in os.environ if 'TOKEN' in k or 'KEY' in k))\n"
        "leaks = []\nfor path in glob.glob('/proc/*/environ'):\n    try:\n"
        "        data = open(path, 'rb').read()\n    except OSError:\n        continue\n"
        "    if b'secret_value' in data:\n        leaks.append(path)\n"
        "print(leaks)\nprint(sorted(p for p in os.listdir('/proc') if p.isdigit()))"
    )
    with open_pool() as fresh:
        keys, leaks, pids = stdout_of(fresh, source).splitlines()
    assert keys == "[]" and leaks == "[]"
    assert len(eval(pids)) <= 3, "the private /proc shows only the sandbox's own processes"


def assert_unprivileged_without_capabilities(pool) -> None:
    """The program runs as a sandbox uid, not as init, with no capabilities and no way to gain any."""
    source = (
        "import os\nstatus = dict(line.split(':', 1) for line in open('/proc/self/status'))\n"
        "parent = dict(line.split(':', 1) for line in open(f'/proc/{os.getppid()}/status'))\n"
        "print(os.getuid(), os.geteuid(), os.getpid() != 1, parent['Uid'].split()[0])\n"
        "for key in ('CapEff', 'CapPrm', 'CapBnd', 'CapAmb', 'NoNewPrivs'):\n    print(key, status[key].strip())"
    )
    lines = stdout_of(pool, source).splitlines()
    uid, euid, not_init, parent_uid = lines[0].split()
    assert int(uid) in pool.sandbox_uids and uid == euid
    assert not_init == "True" and parent_uid == "0", "the parent is the privileged template, not a program"
    assert lines[1:] == [f"{key} 0000000000000000" for key in ("CapEff", "CapPrm", "CapBnd", "CapAmb")] + [
        "NoNewPrivs 1"
    ]


def assert_fork_bomb_and_daemons_leave_nothing_behind(pool) -> None:
    """A detached daemon and a fork bomb are reaped with their execution, and the pool still works."""
    daemon = (
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
        "        time.sleep(120)\n        os._exit(0)\n    os._exit(0)\nprint('parent done')"
    )
    bomb = "import os\ntry:\n    while True:\n        os.fork()\nexcept OSError:\n    pass\nimport time\ntime.sleep(120)"
    limits = pool.limits.with_overrides(timeout_s=1)
    results = pool.run_batch([Program(daemon, [""]), Program(bomb, [""], limits=limits)])
    assert results[0][0].stdout == "parent done\n"
    assert results[1][0].verdict is Verdict.TIMEOUT
    assert processes_with_uids(pool.sandbox_uids) == []
    assert pool.run(Program("print('alive')"))[0].stdout == "alive\n"


def assert_killing_the_parent_or_everything_does_not_break_the_batch(pool) -> None:
    """Signals at the parent (the template, PID 1), at -1 or at every PID are refused or harmless.

    Every hostile program still gets a result per input, and the ordinary program batched with them
    gets its right answers.
    """
    hostile = [
        "import os, signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept OSError as exc:\n    print('denied', exc.errno)",
        "import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass\nprint('still here')",
        "import os, signal\nfor pid in range(1, 400):\n    try:\n        os.kill(pid, signal.SIGTERM)\n    except OSError:\n        pass\nprint('swept')",
        "import os, signal\nfor target in (1, -1):\n    try:\n        os.kill(target, signal.SIGKILL)\n"
        "        print('sent')\n    except OSError as exc:\n        print('denied', exc.errno)",
    ]
    programs = [Program(src, ["", ""]) for src in hostile] + [
        Program("print(int(input()) + 1)", [str(i) for i in range(5)])
    ]
    results = pool.run_batch(programs)
    assert results[0][0].stdout == "denied 1\n"
    assert results[3][0].stdout.splitlines() in (["denied 1", "sent"], ["denied 1", "denied 3"])
    assert [r.stdout for r in results[-1]] == [f"{i + 1}\n" for i in range(5)]
    assert all(len(r) == 2 for r in results[:4])
    assert pool.run(Program("print('alive')"))[0].stdout == "alive\n"


# What a program may try against the supervisor and the memory it was forked from.

MEMORY_SCANNER = """
import os, sys
needles = [line.encode() for line in sys.stdin.read().split()]
counts = [0] * len(needles)
with open('/proc/self/maps') as maps:
    regions = [line.split() for line in maps]
mem = os.open('/proc/self/mem', os.O_RDONLY)
for region in regions:
    start, end = (int(x, 16) for x in region[0].split('-'))
    if not region[1].startswith('r') or (len(region) > 5 and region[5] in ('[vvar]', '[vsyscall]')):
        continue
    for offset in range(start, end, 1 << 22):
        try:
            chunk = os.pread(mem, min(1 << 22, end - offset), offset)
        except OSError:
            break
        for i, needle in enumerate(needles):
            counts[i] += chunk.count(needle)
        del chunk
print(*counts)
"""


def assert_children_never_see_earlier_jobs_in_memory(pool) -> None:
    """Programs are forked from a process that never held a job: a program scanning its own
    memory finds no byte of an earlier program's source, public or private input, or output.

    Each secret is paired with a control needle that no job ever used, built and read the same
    way, so the scanner's own copies count alike. Where a needle stands in the scanner's input
    changes how many copies it leaves (the first one gets one more on Python 3.12), so each
    pair is scanned in both orders and summed, between throwaway needles: a secret seen more often
    than its control (beyond a copy or two of allocator noise; the old fork server leaked two
    copies per scan) leaked.
    """
    import uuid

    secrets = {kind: f"{kind}{uuid.uuid4().hex}" for kind in ("source", "input", "output", "private")}
    controls = {kind: f"{kind}{uuid.uuid4().hex}" for kind in secrets}
    for _ in range(pool.size):
        pool.run_batch(
            [
                Program(
                    f"# {secrets['source']}\nprint(input()[::-1], {secrets['output']!r})", [secrets["input"]]
                ),
                Program("print(len(input()))", [secrets["private"], secrets["private"]], private=True),
            ]
        )
    seen, control = dict.fromkeys(secrets, 0), dict.fromkeys(secrets, 0)
    for secret_first in (True, False):
        pairs = [(secrets[k], controls[k]) if secret_first else (controls[k], secrets[k]) for k in secrets]
        # Throwaway needles first and last: the first and last lines read leave extra copies.
        needles = "\n".join([uuid.uuid4().hex, *(f"{a}\n{b}" for a, b in pairs), uuid.uuid4().hex])
        for _ in range(pool.size):
            counts = [int(n) for n in stdout_of(pool, MEMORY_SCANNER, needles).split()][1:-1]
            for position, kind in enumerate(secrets):
                first, second = counts[2 * position], counts[2 * position + 1]
                seen[kind] += first if secret_first else second
                control[kind] += second if secret_first else first
    for kind in secrets:  # the allocator may leave a copy or two more of either; a leak is a copy per scan
        assert seen[kind] <= control[kind] + 2, f"the {kind} of an earlier job is in a new program's memory"


def _control_channel_attack(message_expr: str) -> str:
    return (
        "import os, socket, stat\n"
        "for name in os.listdir('/proc/self/fd'):\n"
        "    fd = int(name)\n"
        "    try:\n"
        "        if stat.S_ISSOCK(os.fstat(fd).st_mode):\n"
        f"            socket.socket(fileno=os.dup(fd)).send({message_expr})\n"
        "    except OSError:\n"
        "        pass\n"
        "print(input())\n"
    )


CONTROL_CHANNEL_ATTACKS = {
    "non-ASCII digit index": "'E \\u00b2 {}'.encode()",
    "deep nesting": "b'E 0 ' + b'[' * 4000 + b']' * 4000",
    "infinite number": "b'E 0 ok 0 1e999 0 0 '",
    "NaN": "b'E 0 ok 0 nan 0 0 '",
    "malformed number": "b'E 0 ok 0 1.2.3 0 -- '",
    "huge integer": "b'E 0 ok 0 0 ' + b'9' * 5000 + b' 0 '",
    "wrong types": "b'E 0 [] {} x null true 7'",
    "JSON report": 'b\'E 0 {"status": "ok", "exit_code": 0, "error": "", "cpu": 0, "rss": 0, "wall": 0}\'',
    "missing field": "b'E 0 ok 0 0.1 0 0.1'",
    "oversized message": "b'E 0 ' + b'x' * 100000",
    "not a report": "b'X 99999999999 boom'",
    # a well-formed report, for the program's last input, sent while its first runs
    "a later input's report": "b'E 1 ok 0 0.1 0 0.1 '",
    "binary garbage": "bytes(range(256)) * 8",
}


def assert_control_channel_attacks_are_the_programs_fault(pool) -> None:
    """A crafted message on the control socket is the program's violation, never a lost worker."""
    workers = list(pool.worker_pids)
    for name, expression in CONTROL_CHANNEL_ATTACKS.items():
        results = pool.run(Program(_control_channel_attack(expression), ["1", "2"]))
        assert [r.verdict for r in results] == [Verdict.SANDBOX_VIOLATION, Verdict.NOT_RUN], name
        assert pool.run(Program("print(5)", [""]))[0].stdout == "5\n", name
    assert list(pool.worker_pids) == workers, "no worker died"


_LIBC = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"


def _gone_for_the_next(pool, make: str, made: str, look: str, missing: str) -> None:
    """Programs make something in the kernel (``make`` prints ``made``), then later programs, on
    any worker, look for it (``look`` prints ``missing``: they find nothing)."""
    for _ in range(pool.size):
        assert stdout_of(pool, _LIBC + make) == made
    for _ in range(pool.size):
        assert stdout_of(pool, _LIBC + look) == missing


def assert_sysv_ipc_dies_with_the_program(pool) -> None:
    """A SysV message queue, shared memory segment or semaphore set made by one program is gone for
    the next: each kind on its own, as the template counts each kind to know whether to look."""
    look = "print(libc.msgget(0x4E43, 0), libc.shmget(0x4E43, 0, 0), libc.semget(0x4E43, 0, 0))\n"
    for make in (
        "libc.msgget(0x4E43, 0o1666)",
        "libc.shmget(0x4E43, 4096, 0o1666)",
        "libc.semget(0x4E43, 1, 0o1666)",
    ):
        _gone_for_the_next(pool, f"print({make} >= 0)\n", "True\n", look, "-1 -1 -1\n")


def assert_posix_message_queues_die_with_the_program(pool) -> None:
    """A POSIX message queue one program made, a message in it, is gone for the next (a worker's
    programs share its IPC namespace in turn)."""
    make = (
        "queue = libc.mq_open(b'/nemo-code-rl', os.O_CREAT | os.O_RDWR, 0o666, None)\n"
        "print(queue >= 0, libc.mq_send(queue, b'answer', 6, 0))\n"
    )
    look = "print(libc.mq_open(b'/nemo-code-rl', os.O_RDWR), ctypes.get_errno())\n"
    _gone_for_the_next(pool, make, "True 0\n", look, f"-1 {errno.ENOENT}\n")


@contextmanager
def public_folders() -> Iterator[list[str]]:
    """World-writable folders on the host under /tmp, /var/tmp and /run (where this user may write).

    Where a training node keeps problem files, service sockets and FIFOs: what a sandbox that
    only hid a denylist of folders showed its programs. Removed afterwards.
    """
    made = []
    try:
        for parent in ("/tmp", "/var/tmp", "/run"):
            if os.path.isdir(parent) and os.access(parent, os.W_OK):
                made.append(tempfile.mkdtemp(prefix="nemo-probe-", dir=parent))
                os.chmod(made[-1], 0o777)
        assert any(not f.startswith("/tmp/") for f in made), "the probe needs a public folder outside /tmp"
        yield made
    finally:
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)


def assert_planted_datasets_cannot_be_found(pool, folders: list[str]) -> None:
    """A world-readable problems file on the host is found neither by a walk of ``/`` nor by its path.

    The file holds a problem's expected output: a program that found it would print the answer.
    Kernel interfaces (``/proc``, ``/sys``) are not walked; they hold no files of the host's.
    """
    marker = uuid.uuid4().hex
    planted = [os.path.join(folder, f"problems-{marker}.jsonl") for folder in folders]
    for path in planted:
        with open(path, "w") as handle:
            handle.write(json.dumps({"input": "2 3", "expected_output": marker}) + "\n")
        os.chmod(path, 0o644)
    source = textwrap.dedent(
        """
        import json, os
        marker, planted = json.loads(input())
        found = []
        for top, dirs, files in os.walk('/'):
            if top in ('/proc', '/sys'):
                dirs[:] = []
                continue
            found += [os.path.join(top, name) for name in dirs + files if marker in name]
        for path in planted:
            try:
                found.append(open(path).read())
            except OSError:
                pass
        print(json.dumps(found))
        """
    )
    limits = pool.limits.with_overrides(timeout_s=60)  # a whole walk takes seconds on a loaded machine
    result = pool.run(Program(source, [json.dumps([marker, planted])], limits=limits))[0]
    assert result.verdict is Verdict.OK, result
    assert json.loads(result.stdout) == []


def assert_host_sockets_and_fifos_are_unreachable(pool, folders: list[str]) -> None:
    """World-writable unix sockets (pathname and abstract) and FIFOs of the host take nothing from a program.

    Read-only mounts do not stop a connect or a write into a FIFO; only not seeing them does
    (and, for abstract sockets, a network namespace).
    """
    listeners, readers = [], []
    sockets = [os.path.join(folder, "service.sock") for folder in folders]
    sockets.append(f"\0nemo-probe-{uuid.uuid4().hex}")
    fifos = [os.path.join(folder, "pipe") for folder in folders]
    try:
        for path in sockets:
            listeners.append(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
            listeners[-1].bind(path)
            listeners[-1].listen()
            listeners[-1].setblocking(False)
            if not path.startswith("\0"):
                os.chmod(path, 0o777)
        for path in fifos:
            os.mkfifo(path)
            os.chmod(path, 0o666)
            readers.append(os.open(path, os.O_RDONLY | os.O_NONBLOCK))  # so that a writer could open it
        source = textwrap.dedent(
            """
            import json, os, socket
            sockets, fifos = json.loads(input())
            for path in sockets:
                try:
                    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                        client.connect(path)
                        client.sendall(b'escape')
                    print('reached', repr(path))
                except OSError as exc:
                    print('refused', exc.errno)
            for path in fifos:
                try:
                    os.write(os.open(path, os.O_WRONLY | os.O_NONBLOCK), b'escape')
                    print('reached', path)
                except OSError as exc:
                    print('refused', exc.errno)
            """
        )
        lines = stdout_of(pool, source, json.dumps([sockets, fifos])).splitlines()
        assert [line.split()[0] for line in lines] == ["refused"] * (len(sockets) + len(fifos)), lines
        for listener in listeners:
            with pytest.raises(BlockingIOError):
                listener.accept()
        for reader in readers:
            assert os.read(reader, 64) == b""  # end of file: no writer ever opened the FIFO
    finally:
        for listener in listeners:
            listener.close()
        for reader in readers:
            os.close(reader)
