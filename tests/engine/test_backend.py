"""The one backend interface: its config section, its factory, and every surface on the process backend.

The Docker and Ray backends run the same surfaces in ``tests/engine_docker`` and ``tests/engine_ray``.
"""

from __future__ import annotations

import doctest

import pytest

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.engine import ExecutionPool, Program
from nemo_code_rl.engine import backend as backend_module
from nemo_code_rl.engine.backend import BackendConfig, backend_config, make_backend
from nemo_code_rl.environments.arc_config import ArcEnvConfig
from nemo_code_rl.environments.config import CodeEnvConfig
from nemo_code_rl.gym_server import ServerOptions
from tests import backend_surfaces

PROCESS = {"kind": "process"}


def test_the_section_takes_a_kind_or_its_options_and_rejects_the_rest() -> None:
    assert backend_config(None) == BackendConfig() and BackendConfig().kind == "process"
    assert backend_config("docker").kind == "docker"
    assert backend_config({"kind": "ray", "ray": {"num_actors": 2}}).ray.num_actors == 2
    rejected = {
        "env.code.backend.kind: expected 'process', 'docker' or 'ray', got 'container'": {
            "kind": "container"
        },
        "unknown key 'imag' in env.code.backend; did you mean 'image'?": {"kind": "docker", "imag": "x"},
        "env.code.backend: image is an option of kind 'docker', not of kind 'process'": {
            "image": "python:3.12"
        },
        "env.code.backend: ray is an option of kind 'ray', not of kind 'docker'": {
            "kind": "docker",
            "ray": {"num_actors": 2},
        },
        "env.code.backend.ray: num_actors must be at least 1 or null, got 0": {
            "kind": "ray",
            "ray": {"num_actors": 0},
        },
        "unknown key 'adress' in env.code.backend.ray; did you mean 'address'?": {
            "kind": "ray",
            "ray": {"adress": "auto"},
        },
    }
    for message, section in rejected.items():
        with pytest.raises(ConfigError) as error:
            backend_config(section, "env.code.backend")
        assert str(error.value).startswith(message), str(error.value)
    with pytest.raises(ConfigError, match="backend must be a mapping, got int"):
        backend_config(3)


def test_docstring_examples() -> None:
    assert doctest.testmod(backend_module).failed == 0


def test_every_config_that_judges_code_has_the_section() -> None:
    assert CodeEnvConfig.from_dict({"backend": {"kind": "docker", "image": "x"}}).backend.image == "x"
    assert CodeEnvConfig.from_dict({}).backend == BackendConfig()
    assert ArcEnvConfig.from_dict({"backend": "ray"}).backend.kind == "ray"
    with pytest.raises(ConfigError, match=r"env.backend.kind: expected 'process', 'docker' or 'ray'"):
        CodeEnvConfig.from_dict({"backend": {"kind": "podman"}})
    assert ServerOptions.model_validate({"backend": {"kind": "ray"}}).backend.kind == "ray"
    with pytest.raises(ValueError, match="image is an option of kind 'docker'"):
        ServerOptions.model_validate({"backend": {"image": "x"}})


def test_the_factory_starts_a_process_pool_by_default() -> None:
    with make_backend(workers=1, isolation="none") as backend:
        assert isinstance(backend, ExecutionPool) and backend.size == 1 and backend.isolation == "none"
        assert backend.run(Program("print(input()[::-1])", ["abc"]))[0].stdout == "cba\n"
    with pytest.raises(RuntimeError, match="this ExecutionPool is closed"):
        backend.run(Program("print(1)"))


def test_a_borrowed_backend_is_never_closed_by_the_borrower() -> None:
    from nemo_code_rl.unit_tests.verification import Verifier

    with make_backend(workers=1) as backend:
        with Verifier(pool=backend):
            pass
        assert backend.run(Program("print(1)"))[0].stdout == "1\n"


def test_the_verifier_on_the_process_backend() -> None:
    backend_surfaces.check_verifier(PROCESS, ExecutionPool)


def test_the_trl_rewards_on_the_process_backend() -> None:
    pytest.importorskip("trl", reason="the TRL rewards need the 'trl' extra")
    backend_surfaces.check_trl_rewards(PROCESS, ExecutionPool)


def test_the_gym_server_on_the_process_backend() -> None:
    backend_surfaces.check_gym_server(PROCESS, ExecutionPool)


def test_score_on_the_process_backend(tmp_path) -> None:
    backend_surfaces.check_score_command("process", tmp_path)


def test_the_environment_on_the_process_backend() -> None:
    pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
    pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")
    backend_surfaces.check_environment(PROCESS)
