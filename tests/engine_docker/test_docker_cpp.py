"""C++ on the Docker backend: the image's g++ compiles in the worker container, and the hostile
C++ probes get the same verdicts and containment as on the process backend."""

from __future__ import annotations

import pytest

from nemo_code_rl import Program, Verdict

from ..cpp_probes import assert_cpp_contained, assert_cpp_verdicts


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
