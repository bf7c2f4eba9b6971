"""Each isolation claim, tested by a hostile program against the real sandbox."""

import os
import socket

import pytest

from nemo_code_rl import ExecutionPool, Program, Verdict

from .conftest import processes_with_uids


def stdout_of(pool, source, stdin=""):
    result = pool.run(Program(source, [stdin]))[0]
    assert result.verdict is Verdict.OK, result
    return result.stdout


def test_isolation_report(pool):
    report = pool.isolation_report
    assert pool.isolation == "full"
    assert {"mount", "network", "pid"} <= set(report["namespaces"])
    assert "numpy" in report["preloaded"]


def test_no_network_even_to_loopback(pool):
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


def test_filesystem_is_read_only_outside_the_temp_dir(pool, tmp_path):
    target = tmp_path / "escape.txt"
    source = (
        "import os\n"
        f"for path in ['/etc/escape', '/usr/escape', {str(target)!r}, '/dev/shm/ok', 'ok.txt']:\n"
        "    try:\n        open(path, 'w').write('x')\n        print(path, 'written')\n"
        "    except OSError as exc:\n        print(path, 'denied')"
    )
    lines = stdout_of(pool, source).splitlines()
    assert lines[:3] == ["/etc/escape denied", "/usr/escape denied", f"{target} denied"]
    assert lines[3:] == ["/dev/shm/ok written", "ok.txt written"]
    assert not target.exists()


def test_remounting_writable_is_refused(pool):
    source = (
        "import ctypes, subprocess\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "MS_REMOUNT, MS_BIND = 32, 4096\n"
        "print(libc.mount(None, b'/', None, MS_REMOUNT, None), ctypes.get_errno())\n"
        "print(libc.mount(None, b'/usr', None, MS_REMOUNT | MS_BIND, None), ctypes.get_errno())\n"
        "print(libc.umount2(b'/root', 2), ctypes.get_errno())\n"
        "try:\n    open('/usr/after-remount', 'w')\nexcept OSError:\n    print('still read-only')"
    )
    assert stdout_of(pool, source).splitlines() == ["-1 1", "-1 1", "-1 1", "still read-only"]


def test_unprivileged_without_capabilities(pool):
    source = (
        "import os\nstatus = dict(line.split(':', 1) for line in open('/proc/self/status'))\n"
        "print(os.getuid(), os.geteuid(), os.getpid() != 1, os.getppid())\n"
        "for key in ('CapEff', 'CapPrm', 'CapBnd', 'CapAmb', 'NoNewPrivs'):\n    print(key, status[key].strip())"
    )
    lines = stdout_of(pool, source).splitlines()
    uid, euid, not_init, parent = lines[0].split()
    assert int(uid) in pool.sandbox_uids and uid == euid
    assert not_init == "True" and parent == "1"
    assert lines[1:] == [f"{key} 0000000000000000" for key in ("CapEff", "CapPrm", "CapBnd", "CapAmb")] + [
        "NoNewPrivs 1"
    ]


def test_secrets_of_the_parent_are_invisible(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_secret_value_123")
    monkeypatch.setenv("WANDB_API_KEY", "wandb_secret_value_456")
    source = (
        "import glob, os\nprint(sorted(k for k in os.environ if 'TOKEN' in k or 'KEY' in k))\n"
        "leaks = []\nfor path in glob.glob('/proc/*/environ'):\n    try:\n"
        "        data = open(path, 'rb').read()\n    except OSError:\n        continue\n"
        "    if b'secret_value' in data:\n        leaks.append(path)\n"
        "print(leaks)\nprint(sorted(p for p in os.listdir('/proc') if p.isdigit()))"
    )
    with ExecutionPool(workers=1) as fresh:
        lines = stdout_of(fresh, source).splitlines()
    assert lines[0] == "[]" and lines[1] == "[]"
    assert len(eval(lines[2])) <= 3, "the private /proc shows only the sandbox's own processes"


def test_host_process_environ_is_unreachable(pool):
    source = f"try:\n    open('/proc/{os.getpid()}/environ', 'rb').read()\n    print('read')\nexcept OSError as exc:\n    print('hidden', exc.errno)"
    assert stdout_of(pool, source).startswith("hidden")


def test_home_directories_are_hidden(pool):
    assert (
        stdout_of(pool, "import os\nprint(os.listdir('/home'), os.path.exists('/root/.bash_history'))")
        == "[] False\n"
    )


def test_executions_cannot_see_each_others_files(pool):
    writer = (
        "open('private.txt', 'w').write('secret')\nimport os\nprint(os.getcwd(), sorted(os.listdir('.')))"
    )
    reader = (
        "import os, glob\nprint(sorted(os.listdir('.')), glob.glob('/tmp/**/private.txt', recursive=True))"
    )
    results = pool.run_batch([Program(writer, [""]), Program(reader, [""]), Program(reader, [""])])
    assert results[0][0].stdout == "/tmp ['private.txt']\n"
    assert results[1][0].stdout == results[2][0].stdout == "[] []\n"


def test_fork_bomb_and_daemons_leave_nothing_behind(pool):
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


def test_killing_the_parent_or_everything_does_not_break_the_batch(pool):
    hostile = [
        "import os, signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept OSError as exc:\n    print('denied', exc.errno)",
        "import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass\nprint('still here')",
        "import os, signal\nfor pid in range(1, 400):\n    try:\n        os.kill(pid, signal.SIGTERM)\n    except OSError:\n        pass\nprint('swept')",
    ]
    programs = [Program(src, ["", ""]) for src in hostile] + [
        Program("print(int(input()) + 1)", [str(i) for i in range(5)])
    ]
    results = pool.run_batch(programs)
    assert results[0][0].stdout == "denied 1\n"
    assert results[-1] == pool.run(programs[-1]) or [r.stdout for r in results[-1]] == [
        f"{i + 1}\n" for i in range(5)
    ]
    assert [r.stdout for r in results[-1]] == [f"{i + 1}\n" for i in range(5)]
    assert all(len(r) == 2 for r in results[:3])
