"""Every place that judges code, on the Ray backend (``backend: {kind: ray}``), over a real local cluster."""

from __future__ import annotations

import pytest

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.engine.backend import make_backend
from nemo_code_rl.engine.ray_pool import RayExecutionPool
from tests import backend_surfaces

from .conftest import ACTOR_OPTIONS

RAY = {"kind": "ray", "ray": {"num_actors": 1, "actor_options": ACTOR_OPTIONS}}


def test_the_verifier_on_ray(ray_cluster) -> None:
    backend_surfaces.check_verifier(RAY, RayExecutionPool)


def test_the_trl_rewards_on_ray(ray_cluster) -> None:
    pytest.importorskip("trl", reason="the TRL rewards need the 'trl' extra")
    backend_surfaces.check_trl_rewards(RAY, RayExecutionPool)


def test_the_gym_server_on_ray(ray_cluster) -> None:
    backend_surfaces.check_gym_server(RAY, RayExecutionPool)


def test_score_on_ray(ray_cluster, tmp_path) -> None:
    """The command's default section: one actor on the (one) node, with the cluster's Ray connection."""
    backend_surfaces.check_score_command("ray", tmp_path)


def test_the_environment_on_ray(ray_cluster) -> None:
    pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")
    backend_surfaces.check_environment(RAY)


def test_an_address_that_cannot_be_honoured_is_an_error(ray_cluster) -> None:
    with pytest.raises(ConfigError, match=r"already connected to a Ray cluster: leave ray.address unset"):
        make_backend({"kind": "ray", "ray": {"address": "ray://elsewhere:10001"}}, workers=1)
