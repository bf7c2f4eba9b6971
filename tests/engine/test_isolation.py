"""Each isolation claim, tested by a hostile program against the real sandbox.

The claims the Docker backend shares are probes in ``tests/isolation_probes.py``; the rest are
what only the process backend's namespaces promise.
"""

import os

from nemo_code_rl import ExecutionPool, Program, Verdict

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


def test_children_never_see_earlier_jobs_in_memory(pool):
    probes.assert_children_never_see_earlier_jobs_in_memory(pool)


def test_control_channel_attacks_are_the_programs_fault(pool):
    probes.assert_control_channel_attacks_are_the_programs_fault(pool)


def test_sysv_ipc_dies_with_the_program(pool):
    probes.assert_sysv_ipc_dies_with_the_program(pool)


def test_posix_message_queues_die_with_the_program(pool):
    probes.assert_posix_message_queues_die_with_the_program(pool)


MEMORY_HOG_FAMILY = (
    "import os, time\n"
    "children = []\n"
    "for _ in range(4):\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        block = b'x' * (400 * 1024 * 1024)\n"
    "        time.sleep(1)\n"
    "        os._exit(0)\n"
    "    children.append(pid)\n"
    "print(sum(os.waitpid(pid, 0)[1] == 0 for pid in children))\n"
)


def test_memory_limit_bounds_the_sum_of_a_programs_processes(pool):
    """Four children of 400 MiB each under a 768 MiB limit: never 1.6 GiB on the host."""
    assert "cgroup" in pool.isolation_report
    result = pool.run(Program(MEMORY_HOG_FAMILY, [""], limits=pool.limits.with_overrides(timeout_s=30)))[0]
    assert result.verdict is Verdict.MEMORY_LIMIT, result
    assert "together" in result.error
    assert int(result.stdout or "0") < 4
    assert pool.run(Program("print(3)", [""]))[0].stdout == "3\n"


def test_process_limit_holds_for_children_too(pool):
    source = (
        "import os, time\ncount = 0\n"
        "try:\n"
        "    for _ in range(200):\n"
        "        if os.fork() == 0:\n            time.sleep(5)\n            os._exit(0)\n"
        "        count += 1\n"
        "except OSError:\n    pass\n"
        "print(count)\n"
    )
    started = int(stdout_of(pool, source))
    assert started < pool.limits.processes


def test_namespaces_level_is_asked_for_and_named():
    with ExecutionPool(workers=1, isolation="namespaces") as weaker:
        assert weaker.isolation == "namespaces"
        assert "cgroup" not in weaker.isolation_report
        assert stdout_of(weaker, "print(7)") == "7\n"
