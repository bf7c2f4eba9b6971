"""The unit-test family's encoding of a problem in NeMo RL's per-sample ``extra_env_info``.

It lives with the family (``nemo_code_rl.unit_test_family``); this module keeps the names the
processors package has always exported.
"""

from nemo_code_rl.family_pieces import decoded_env_info
from nemo_code_rl.unit_test_family import PROBLEM_KEY, env_info_for_problem, problem_from_env_info

__all__ = ["PROBLEM_KEY", "decoded_env_info", "env_info_for_problem", "problem_from_env_info"]
