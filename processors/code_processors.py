"""NeMo RL data processor for coding problems: the generic processor with the unit-test family.

One processor serves every problem format ``nemo_code_rl.unit_tests.problems`` reads (the format is detected
per row, see ``nemo_code_rl.unit_tests.problem_rows``), so a dataset needs no processor of its own: a raw row
of any such format, a row written by ``to_dataset_rows`` (not parsed again), or a NeMo Gym row
whose ``extra_env_info`` column holds the JSON line. The prompt is built exactly as NeMo RL's
``math_hf_data_processor`` does (``family_processor``); the problem travels to the environment in
``extra_env_info`` (``nemo_code_rl.unit_tests.family``).
"""

from __future__ import annotations

from nemo_code_rl.processors.family_processor import FamilyProcessor
from nemo_code_rl.unit_tests.family import PIECES

code_unit_tests_processor = FamilyProcessor(PIECES)
"""The processor registered under the unit-test family's name (``families.UNIT_TESTS``)."""
