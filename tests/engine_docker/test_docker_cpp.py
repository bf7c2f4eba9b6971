"""C++ on the Docker backend: the image's g++ compiles in the worker container, and the hostile
C++ probes get the same verdicts and containment as on the process backend."""

from __future__ import annotations

import uuid

import pytest

from nemo_code_rl import Program, Verdict
from nemo_code_rl.engine.docker_pool import DockerExecutionPool
from nemo_code_rl.engine.results import CANCELLED_ERROR

from ..cpp_probes import SLOW_SETTINGS, SLOW_TO_COMPILE, assert_cpp_contained, assert_cpp_verdicts
from .conftest import TEST_LIMITS


@pytest.fixture(scope="module")
def cpp_docker_pool(client, docker_pool):
    """The package's Docker pool, once its image is known to hold g++ (images built before C++
    support lack it: .ci/docker_setup.sh rebuilds them)."""
    if b"g++" not in client.containers.run(
        docker_pool.image, ["sh", "-c", "command -v g++"], remove=True, network_mode="none"
    ):
        pytest.skip(f"the Docker image {docker_pool.image!r} has no g++; .ci/docker_setup.sh rebuilds it")
    return docker_pool


def test_cpp_verdicts_in_containers(cpp_docker_pool):
    assert_cpp_verdicts(cpp_docker_pool)


def test_cpp_is_contained_in_containers(cpp_docker_pool):
    assert_cpp_contained(cpp_docker_pool, __file__)


def test_cpp_compile_error_in_containers(cpp_docker_pool):
    result = cpp_docker_pool.run(Program("int main() { return nope; }", language="cpp"))[0]
    assert result.verdict is Verdict.COMPILE_ERROR and "nope" in result.error


def test_a_compile_cancelled_in_a_container_is_stopped_and_not_cached(cpp_docker_pool, client):
    """The supervisor runs in the container: a program cancelled while it compiles leaves no
    compiler behind and gets ``not_run`` (cancelled); the same source then compiles again (the
    container's compiler is seen running: the cancelled compile was not cached) and runs."""
    source = f"// {uuid.uuid4().hex}\n{SLOW_TO_COMPILE}"
    program = Program(source, ["1", "2"], language="cpp", compile=SLOW_SETTINGS)
    # One worker, so that the second run meets the first one's cache.
    with DockerExecutionPool(
        workers=1, limits=TEST_LIMITS, image=cpp_docker_pool.image, client=client
    ) as pool:

        def compiling() -> bool:
            return any(
                "cc1plus" in " ".join(row)
                for container in pool.container_ids
                for row in client.api.top(container)["Processes"] or []
            )

        seen: list[bool] = []

        def cancel_once_compiling(index: int) -> bool:
            seen.append(compiling())
            return any(seen)

        (cancelled,) = pool.run_batch([program], cancelled=cancel_once_compiling)
        assert any(seen), "the compiler was never seen running"
        assert not compiling()
        assert [(r.verdict, r.error) for r in cancelled] == [(Verdict.NOT_RUN, CANCELLED_ERROR)] * 2

        seen.clear()

        def watch_only(index: int) -> bool:
            seen.append(compiling())
            return False

        (again,) = pool.run_batch([program], cancelled=watch_only)
        assert any(seen), "the source was not compiled again"
        assert [(r.verdict, r.stdout) for r in again] == [(Verdict.OK, "553\n"), (Verdict.OK, "554\n")]
