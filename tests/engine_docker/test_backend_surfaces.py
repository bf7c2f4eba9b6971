"""Every place that judges code, on the Docker backend (``backend: {kind: docker}``), against a real engine."""

from __future__ import annotations

import pytest

from nemo_code_rl.engine.docker_pool import DockerExecutionPool, DockerUnavailable
from tests import backend_surfaces

from .conftest import IMAGE


@pytest.fixture(scope="module")
def docker(client):
    """The backend section, once the Docker engine and the test image are known to be there."""
    return {"kind": "docker", "image": IMAGE}


def test_the_verifier_on_docker(docker) -> None:
    backend_surfaces.check_verifier(docker, DockerExecutionPool)


def test_the_trl_rewards_on_docker(docker) -> None:
    pytest.importorskip("trl", reason="the TRL rewards need the 'trl' extra")
    backend_surfaces.check_trl_rewards(docker, DockerExecutionPool)


def test_the_gym_server_on_docker(docker) -> None:
    backend_surfaces.check_gym_server(docker, DockerExecutionPool)


def test_score_on_docker(docker, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NEMO_CODE_RL_DOCKER_IMAGE", IMAGE)
    backend_surfaces.check_score_command("docker", tmp_path)


def test_the_environment_on_docker(docker) -> None:
    pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
    pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")
    backend_surfaces.check_environment(docker)


def test_the_environment_starts_the_image_its_section_names(client) -> None:
    pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
    pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")
    from nemo_code_rl.environments.code_environment import UnitTestEnvironment

    with pytest.raises(DockerUnavailable, match="Docker image 'nemo-code-rl-absent:0' not found"):
        UnitTestEnvironment({"workers": 1, "backend": {"kind": "docker", "image": "nemo-code-rl-absent:0"}})
