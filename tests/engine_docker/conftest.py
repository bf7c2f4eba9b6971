import os

import pytest

from nemo_code_rl import Limits

docker = pytest.importorskip("docker", reason="the Docker backend needs the 'docker' Python SDK")

from nemo_code_rl.engine.docker_pool import DEFAULT_IMAGE, DockerExecutionPool  # noqa: E402

IMAGE = os.environ.get("NEMO_CODE_RL_DOCKER_IMAGE", DEFAULT_IMAGE)
TEST_LIMITS = Limits(
    timeout_s=3, memory_bytes=512 * 1024**2, output_bytes=64 * 1024, file_bytes=4 * 1024**2, processes=24
)


@pytest.fixture(scope="package")
def client():
    """The local Docker engine and the test image, or a skip that says which one is missing."""
    try:
        engine = docker.from_env()
        engine.ping()
    except docker.errors.DockerException as exc:
        pytest.skip(f"no Docker daemon reachable ({exc}); CI starts one with .ci/docker_setup.sh")
    try:
        engine.images.get(IMAGE)
    except docker.errors.ImageNotFound:
        pytest.skip(f"Docker image {IMAGE!r} not built; .ci/docker_setup.sh builds it")
    return engine


@pytest.fixture(scope="package")
def docker_pool(client):
    with DockerExecutionPool(workers=2, limits=TEST_LIMITS, image=IMAGE, client=client) as pool:
        yield pool
