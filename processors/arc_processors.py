"""NeMo RL data processor for ARC tasks answered with a program: the generic processor with the ARC family.

Registered under the ARC family's name (``nemo_code_rl.families.ARC``). It builds the prompt from
the task's train pairs and test inputs (the template and grid format ride in the row, see
``nemo_code_rl.arc.dataset``), applies the chat template exactly as NeMo RL's
``math_hf_data_processor`` does, and masks over-long prompts with ``loss_multiplier = 0``. The
task travels to the environment in ``extra_env_info`` as JSON text (``env_info_for_task``, kept
with the family in ``nemo_code_rl.arc.family``), so Arrow and batch collation leave its ragged
grids alone.
"""

from __future__ import annotations

from nemo_code_rl.arc.family import AUGMENTATION_KEY, PIECES, TASK_KEY, env_info_for_task, task_from_env_info
from nemo_code_rl.processors.family_processor import FamilyProcessor

arc_programs_processor = FamilyProcessor(PIECES)
"""The processor registered under the ARC family's name (``families.ARC``)."""

__all__ = [
    "AUGMENTATION_KEY",
    "TASK_KEY",
    "arc_programs_processor",
    "env_info_for_task",
    "task_from_env_info",
]
