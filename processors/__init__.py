"""NeMo RL data processing: the processors and the problem encoding they share with the environments.

Register ``code_unit_tests_processor`` with NeMo RL's ``register_processor`` (name
``code_unit_tests``); the environment reads what it writes with ``problem_from_env_info`` (the
unit-test family's ``extra_env_info`` codec, ``nemo_code_rl.unit_tests.family``).
"""

from nemo_code_rl.processors.code_processors import code_unit_tests_processor
from nemo_code_rl.unit_tests.family import env_info_for_problem, problem_from_env_info

__all__ = [
    "code_unit_tests_processor",
    "env_info_for_problem",
    "problem_from_env_info",
]
