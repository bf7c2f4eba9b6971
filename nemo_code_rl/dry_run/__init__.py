"""``python -m nemo_code_rl.run --dry-run``: check a GRPO config without NeMo RL or a GPU, and plan it.

Every check reports findings instead of stopping at the first, so one run lists all there is to fix:

1. Our keys, strictly (``check_config``): every ``env.<name>`` section of our components and every
   data entry of our datasets, with "did you mean" for unknown keys; names that neither we nor NeMo
   RL register; our environments fed by another processor; missing prompt files.
2. NeMo RL's keys against its GRPO schema, where ``nemo_rl.algorithms.grpo`` imports.
3. The arithmetic NeMo RL asserts (or silently gets wrong) only once GPUs are allocated
   (``check_config``): batch sizes, GPUs against parallel sizes, sequence lengths, turns, async
   and validation settings.
4. A few rows of every dataset of ours (a packaged sample where the hub is unreachable), through
   the processor (whole with the configured tokenizer where it is available locally, else up to
   the chat template), then through the environment: each problem's reference solution where it
   has one, and an empty answer.

``check_config`` also runs before training, so training never starts on a config the dry run rejects.

The verdict says how much was checked: ``dry run OK`` (exit 0) only when every check ran;
``dry run PARTIAL: N checks skipped`` (exit ``EXIT_PARTIAL``, 4) when some could not run here, each
listed with the reason (NeMo RL not importable, so its registries and schema were not read; hub
data replaced by the packaged sample; no local tokenizer, so no prompt was templated; an
environment that could not start; data NeMo RL loads itself); ``dry run FAILED`` (exit 1) when a
check found an error, whatever was skipped.

The modules, one job each: ``findings`` (what a check reports, exit statuses), ``keys`` (1, 2),
``arithmetic`` (3), ``samples`` (4, through the real processor) and ``report`` (the run itself).
"""

from nemo_code_rl.dry_run.arithmetic import ASYNC_BACKENDS, Layout, check_arithmetic, layout
from nemo_code_rl.dry_run.findings import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_PARTIAL,
    Finding,
    Skipped,
    dataset_entries,
)
from nemo_code_rl.dry_run.keys import (
    NEMO_RL_DATASETS,
    NEMO_RL_ENVIRONMENTS,
    NEMO_RL_PROCESSORS,
    Names,
    added_key_findings,
    builtin_names,
    check_config,
    names_for_checks,
    nemo_rl_names,
    schema_findings,
)
from nemo_code_rl.dry_run.report import DryRun

__all__ = [
    "ASYNC_BACKENDS",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_PARTIAL",
    "NEMO_RL_DATASETS",
    "NEMO_RL_ENVIRONMENTS",
    "NEMO_RL_PROCESSORS",
    "DryRun",
    "Finding",
    "Layout",
    "Names",
    "Skipped",
    "added_key_findings",
    "builtin_names",
    "check_arithmetic",
    "check_config",
    "dataset_entries",
    "layout",
    "names_for_checks",
    "nemo_rl_names",
    "schema_findings",
]
