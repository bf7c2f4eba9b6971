"""The environment honours NeMo RL's interface: the real one where NeMo RL is installed, else a stand-in
with the same fields in the same order (NeMo RL unpacks ``EnvironmentReturn`` by position)."""

from __future__ import annotations

import pytest

pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")

from nemo_code_rl.environments import nemo_rl_compat
from nemo_code_rl.environments.code_environment import CodeUnitTestEnvironment, UnitTestEnvironment

# EnvironmentReturn's fields in NeMo RL (nemo_rl/environments/interfaces.py), in order.
NEMO_RL_RETURN_FIELDS = ("observations", "metadata", "next_stop_strings", "rewards", "terminateds", "answers")


def test_return_fields_match_nemo_rl() -> None:
    assert nemo_rl_compat.EnvironmentReturn._fields == NEMO_RL_RETURN_FIELDS


def test_the_environment_implements_the_interface() -> None:
    assert issubclass(UnitTestEnvironment, nemo_rl_compat.EnvironmentInterface)
    assert not getattr(UnitTestEnvironment, "__abstractmethods__", None)
    for method in ("step", "global_post_process_and_metrics", "shutdown"):
        assert callable(getattr(UnitTestEnvironment, method))


def test_the_registered_class_is_a_ray_actor_class() -> None:
    """NeMo RL's ``create_env`` calls ``actor_class.options(runtime_env=...).remote(env_config)``."""
    assert callable(CodeUnitTestEnvironment.options) and callable(CodeUnitTestEnvironment.remote)


def test_with_nemo_rl_the_real_interface_is_used() -> None:
    if not nemo_rl_compat.NEMO_RL_AVAILABLE:
        pytest.skip(
            "NeMo RL is not installed (it is not on PyPI; install it from its repository to run this)"
        )
    from nemo_rl.environments.interfaces import EnvironmentInterface, EnvironmentReturn

    assert issubclass(UnitTestEnvironment, EnvironmentInterface)
    assert nemo_rl_compat.EnvironmentReturn is EnvironmentReturn
