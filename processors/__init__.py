"""NeMo RL data processing for coding problems: the processor, its problem encoding and data loading.

Register ``code_unit_tests_processor`` with NeMo RL's ``register_processor`` (name
``code_unit_tests``); the environment reads what it writes with ``problem_from_env_info``.
"""

from nemo_code_rl.processors.code_processors import (
    code_unit_tests_processor,
    problem_from_datum,
    prompt_messages,
)
from nemo_code_rl.processors.env_info import env_info_for_problem, problem_from_env_info
from nemo_code_rl.processors.loading import human_eval_path, load_code_dataset, to_dataset_rows

__all__ = [
    "code_unit_tests_processor",
    "env_info_for_problem",
    "human_eval_path",
    "load_code_dataset",
    "problem_from_datum",
    "problem_from_env_info",
    "prompt_messages",
    "to_dataset_rows",
]
