"""The Docker backend against a real Docker engine: results, isolation, lost containers, clear errors.

The isolation claims the process backend shares are probes in ``tests/isolation_probes.py``.
"""

import io
import os
import tarfile
import threading
import time

import pytest

from nemo_code_rl import Program, Verdict
from nemo_code_rl.engine.docker_pool import DockerExecutionPool, DockerUnavailable

from .. import isolation_probes as probes
from ..cancellation import check_cancelled_programs
from ..isolation_probes import stdout_of
from .conftest import IMAGE, TEST_LIMITS


def test_results_in_order_from_warm_containers(docker_pool):
    before = list(docker_pool.container_ids)
    programs = [Program("print(int(input()) * 2)", [str(i), str(i + 1)]) for i in range(30)]
    results = docker_pool.run_batch(programs)
    assert [[r.stdout for r in result] for result in results] == [
        [f"{2 * i}\n", f"{2 * i + 2}\n"] for i in range(30)
    ]
    assert docker_pool.run(Program("import numpy\nprint(numpy.arange(4).sum())"))[0].stdout == "6\n"
    assert docker_pool.container_ids == before, "containers are reused, never started per execution"


def test_cancelled_programs_stop_mid_input_or_never_start(docker_pool):
    containers = docker_pool.container_ids
    check_cancelled_programs(docker_pool)
    assert docker_pool.container_ids == containers  # the cancelled program's container was kept


def test_container_settings(docker_pool, client):
    attrs = client.api.inspect_container(docker_pool.container_ids[0])
    host = attrs["HostConfig"]
    assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and "no-new-privileges" in host["SecurityOpt"]
    assert host["PidsLimit"] > 0 and host["Memory"] > 0 and "/tmp" in host["Tmpfs"]
    assert docker_pool.isolation == "container"


def test_unprivileged_without_capabilities(docker_pool):
    probes.assert_unprivileged_without_capabilities(docker_pool)


def test_no_network_even_to_loopback(docker_pool):
    """Docker-only extra: ``--network none`` leaves just ``lo`` (the process backend sees the host's sysfs)."""
    probes.assert_no_network_even_to_loopback(docker_pool)
    assert stdout_of(docker_pool, "import os\nprint(sorted(os.listdir('/sys/class/net')))") == "['lo']\n"


def test_filesystem_is_read_only_outside_the_temp_dir(docker_pool):
    probes.assert_filesystem_is_read_only_outside_the_temp_dir(
        docker_pool, host_path="/opt/nemo-code-rl/nemo_code_rl/escape"
    )


def test_executions_cannot_see_each_others_files(docker_pool):
    probes.assert_executions_cannot_see_each_others_files(docker_pool)


def test_datasets_planted_on_the_host_cannot_be_found(docker_pool):
    with probes.public_folders() as folders:
        probes.assert_planted_datasets_cannot_be_found(docker_pool, folders)


def test_host_unix_sockets_and_fifos_are_unreachable(docker_pool):
    with probes.public_folders() as folders:
        probes.assert_host_sockets_and_fifos_are_unreachable(docker_pool, folders)


def test_secrets_of_the_parent_are_invisible(client, monkeypatch):
    probes.assert_secrets_of_the_parent_are_invisible(
        lambda: DockerExecutionPool(workers=1, limits=TEST_LIMITS, image=IMAGE, client=client), monkeypatch
    )


def test_fork_bomb_and_daemons_leave_nothing_behind(docker_pool):
    probes.assert_fork_bomb_and_daemons_leave_nothing_behind(docker_pool)


def test_killing_the_parent_or_everything_does_not_break_the_batch(docker_pool):
    probes.assert_killing_the_parent_or_everything_does_not_break_the_batch(docker_pool)


def test_killing_containers_mid_batch_still_returns_every_result(client):
    with DockerExecutionPool(workers=2, limits=TEST_LIMITS, image=IMAGE, client=client) as pool:
        victims = list(pool.container_ids)
        programs = [
            Program("import time\ntime.sleep(0.2)\nprint(int(input()) + 1)", [str(i)]) for i in range(16)
        ]

        def kill_both() -> None:
            time.sleep(0.8)
            for container in victims:
                client.containers.get(container).kill()

        killer = threading.Thread(target=kill_both)
        killer.start()
        results = pool.run_batch(programs)
        killer.join()
        assert [r[0].stdout for r in results] == [f"{i + 1}\n" for i in range(16)]
        assert not set(victims) & set(pool.container_ids)
        owned = set(victims) | set(pool.container_ids)
    assert not owned & {c.id for c in client.containers.list(all=True, filters={"label": "nemo-code-rl"})}


def test_unreachable_engine_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(DockerUnavailable, match=r"unreachable.*dockerd"):
        DockerExecutionPool(workers=1)


def test_image_without_python_is_a_clear_error(client):
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        info = tarfile.TarInfo("README")
        data = b"no python here\n"
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    name = f"nemo-code-rl-no-python:{os.getpid()}"
    before = {c.id for c in client.containers.list(all=True, filters={"label": "nemo-code-rl"})}
    client.api.import_image_from_data(
        archive.getvalue(), repository=name.split(":")[0], tag=name.split(":")[1]
    )
    try:
        with pytest.raises(DockerUnavailable, match=f"{name}.*no python3"):
            DockerExecutionPool(workers=1, image=name, client=client)
        with pytest.raises(DockerUnavailable, match="not found"):
            DockerExecutionPool(workers=1, image="nemo-code-rl-absent:none", client=client)
    finally:
        client.images.remove(name, force=True)
    assert {c.id for c in client.containers.list(all=True, filters={"label": "nemo-code-rl"})} <= before


def test_limits_and_verdicts_inside_containers(docker_pool):
    limits = docker_pool.limits.with_overrides(timeout_s=1)
    programs = [
        Program("while True: pass", limits=limits),
        Program("x = bytearray(900 * 1024 * 1024)"),
        Program("print(input()[::-1])", ["abc", "xyz"], private=True),
        Program("def broken(:\n    pass"),
        Program("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"),
    ]
    timeout, memory, private, syntax, crash = docker_pool.run_batch(programs)
    assert timeout[0].verdict is Verdict.TIMEOUT
    assert memory[0].verdict is Verdict.MEMORY_LIMIT
    assert [r.stdout for r in private] == ["cba\n", "zyx\n"]
    assert syntax[0].verdict is Verdict.SYNTAX_ERROR
    assert crash[0].verdict is Verdict.SIGNAL and crash[0].signal == "SIGSEGV"


def test_benchmark_row_of_the_docker_pool(client, monkeypatch):
    from nemo_code_rl.benchmarking.backend_rows import measure_backends

    monkeypatch.setenv("NEMO_CODE_RL_DOCKER_IMAGE", IMAGE)
    programs = [Program("print(int(input()) * 2)", [str(i)]) for i in range(10)]
    (run,) = measure_backends(programs, ["docker"], workers=2, timeout_s=3, repeats=2, emit=print)
    assert run.key == "a_docker" and "container" in run.label and len(run.times) == 2
    assert [r[0].stdout for r in run.results] == [f"{2 * i}\n" for i in range(10)]
    missing: list[str] = []
    monkeypatch.setenv("NEMO_CODE_RL_DOCKER_IMAGE", "nemo-code-rl-absent:none")
    assert (
        measure_backends(programs, ["docker"], workers=1, timeout_s=3, repeats=1, emit=missing.append) == []
    )
    assert "not found" in missing[0]


def test_container_level_refuses_to_run_outside_a_container():
    from nemo_code_rl import ExecutionPool, IsolationUnavailable

    with pytest.raises(IsolationUnavailable, match="PID 1 of a container"):
        ExecutionPool(workers=1, isolation="container")


def test_ray_pool_of_docker_engines_survives_a_killed_container(client):
    ray = pytest.importorskip("ray", reason="the Ray pool needs the 'ray' extra")
    from nemo_code_rl.engine.ray_pool import RayExecutionPool

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with RayExecutionPool(
            num_actors=2,
            workers_per_actor=1,
            limits=TEST_LIMITS,
            backend="docker",
            image=IMAGE,
            actor_options={"num_cpus": 0.25},
        ) as pool:
            assert pool.isolation == "container"
            programs = [
                Program("import time\ntime.sleep(0.1)\nprint(int(input()) * 3)", [str(i)]) for i in range(20)
            ]
            victims = pool.container_ids
            assert len(victims) == 2
            killer = threading.Timer(0.8, lambda: [client.containers.get(c).kill() for c in victims])
            killer.start()
            results = pool.run_batch(programs)
            killer.join()
            assert [r[0].stdout for r in results] == [f"{3 * i}\n" for i in range(20)]
    finally:
        ray.shutdown()


def test_children_never_see_earlier_jobs_in_memory(docker_pool):
    probes.assert_children_never_see_earlier_jobs_in_memory(docker_pool)


def test_control_channel_attacks_are_the_programs_fault(docker_pool):
    probes.assert_control_channel_attacks_are_the_programs_fault(docker_pool)


def test_sysv_ipc_dies_with_the_program(docker_pool):
    probes.assert_sysv_ipc_dies_with_the_program(docker_pool)


def test_posix_message_queues_die_with_the_program(docker_pool):
    probes.assert_posix_message_queues_die_with_the_program(docker_pool)


def test_a_deep_tree_in_tmp_is_the_programs_and_is_gone_before_the_next(docker_pool):
    """Python's tree walks recurse: a 3,000-deep tree must neither crash the worker nor survive."""
    deep = (
        "import os\nfor _ in range(3000):\n    os.mkdir('d')\n    os.chdir('d')\n"
        "open('leaf', 'w').write('x')\nprint('deep')"
    )
    look = "import os\nprint(os.listdir('/tmp'), os.listdir('/dev/shm'))"
    containers = list(docker_pool.container_ids)
    for _ in range(docker_pool.size):
        assert stdout_of(docker_pool, deep) == "deep\n"
    for _ in range(docker_pool.size):
        assert stdout_of(docker_pool, look) == "[] []\n"
    assert list(docker_pool.container_ids) == containers
