"""Each isolation claim, tested by a hostile program against the real sandbox.

The claims the Docker backend shares are probes in ``tests/isolation_probes.py``; the rest are
what only the process backend's namespaces promise.
"""

import os

from nemo_code_rl import ExecutionPool

from .. import isolation_probes as probes
from ..isolation_probes import stdout_of


def test_isolation_report(pool):
    report = pool.isolation_report
    assert pool.isolation == "full"
    assert {"mount", "network", "pid"} <= set(report["namespaces"])
    assert "numpy" in report["preloaded"]


def test_no_network_even_to_loopback(pool):
    probes.assert_no_network_even_to_loopback(pool)


def test_filesystem_is_read_only_outside_the_temp_dir(pool, tmp_path):
    target = tmp_path / "escape.txt"
    probes.assert_filesystem_is_read_only_outside_the_temp_dir(pool, host_path=str(target))
    assert not target.exists()


def test_remounting_writable_is_refused(pool):
    source = (
        "import ctypes, subprocess\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "MS_REMOUNT, MS_BIND = 32, 4096\n"
        "print(libc.mount(None, b'/', None, MS_REMOUNT, None), ctypes.get_errno())\n"
        "print(libc.mount(None, b'/usr', None, MS_REMOUNT | MS_BIND, None), ctypes.get_errno())\n"
        "print(libc.umount2(b'/usr', 2), ctypes.get_errno())\n"
        "try:\n    open('/usr/after-remount', 'w')\nexcept OSError:\n    print('still read-only')"
    )
    assert stdout_of(pool, source).splitlines() == ["-1 1", "-1 1", "-1 1", "still read-only"]


def test_unprivileged_without_capabilities(pool):
    probes.assert_unprivileged_without_capabilities(pool)


def test_secrets_of_the_parent_are_invisible(monkeypatch):
    probes.assert_secrets_of_the_parent_are_invisible(lambda: ExecutionPool(workers=1), monkeypatch)


def test_host_process_environ_is_unreachable(pool):
    source = f"try:\n    open('/proc/{os.getpid()}/environ', 'rb').read()\n    print('read')\nexcept OSError as exc:\n    print('hidden', exc.errno)"
    assert stdout_of(pool, source).startswith("hidden")


def test_home_directories_are_absent(pool):
    assert (
        stdout_of(pool, "import os\nprint(os.path.exists('/home'), os.path.exists('/root/.bash_history'))")
        == "False False\n"
    )


def test_executions_cannot_see_each_others_files(pool):
    probes.assert_executions_cannot_see_each_others_files(pool)


def test_fork_bomb_and_daemons_leave_nothing_behind(pool):
    probes.assert_fork_bomb_and_daemons_leave_nothing_behind(pool)


def test_killing_the_parent_or_everything_does_not_break_the_batch(pool):
    probes.assert_killing_the_parent_or_everything_does_not_break_the_batch(pool)
