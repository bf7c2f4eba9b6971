"""A few rows of every dataset of ours, through the family's real processor.

The rows are those our NeMo RL dataset classes build, by the same row builder and through Arrow
as ``FamilyDataset`` holds them (a packaged sample where the hub is out of reach). Each goes
through the processor NeMo RL would call (``FamilyProcessor``): whole where the configured
tokenizer is available locally (the prompt templated and its tokens counted), else its first half
(the prompt's messages and ``extra_env_info``, before the chat template), so the environment gets
what training would give it either way.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from itertools import islice
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlparse

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.config_loading import packaged_config_dir
from nemo_code_rl.families import TaskFamily, resolve
from nemo_code_rl.family_pieces import training_dataset

SAMPLE_PATH = Path("samples") / "code_problems.jsonl"
"""The packaged problems (inside ``configs/``) read in place of a hub dataset the dry run cannot reach."""
_HUB_ID = re.compile(r"^[\w.\-]+/[\w.\-]+$")
_FILE_SUFFIXES = (".jsonl", ".json", ".parquet", ".gz")


@dataclass(frozen=True)
class Sample:
    """A dataset row of ours as the processor left it, and a known answer.

    Attributes:
        row: the row as our NeMo RL dataset class builds it.
        messages: the prompt as the processor built it (one templated user turn with a tokenizer,
            the chat messages before the template without one).
        env_info: the ``extra_env_info`` the processor wrote for this row.
        reference: a complete answer known to be right, if the data has one.
    """

    row: dict[str, Any]
    messages: list[dict[str, str]]
    env_info: dict[str, Any]
    reference: str | None

    @property
    def id(self) -> str:
        info = self.env_info
        return str(info.get("problem_id") or info.get("task_id") or self.row.get("task_name"))


class Loaded(NamedTuple):
    """A few rows of a dataset with their known answers, where they came from, why a stand-in
    was read instead, if so, and why the rows are as built rather than through Arrow, if so."""

    rows: list[dict[str, Any]]
    references: list[str | None]
    origin: str
    stand_in: str | None = None
    raw: str | None = None


class Processed(NamedTuple):
    """A row through the processor: the sample, and the prompt's tokens when a tokenizer counted them."""

    sample: Sample
    tokens: int | None = None
    masked: bool = False


@dataclass(frozen=True)
class TaskSpec:
    """The fields of NeMo RL's ``TaskDataSpec`` our processors read (its files already read)."""

    task_name: str
    prompt: str | None
    system_prompt: str | None

    @classmethod
    def for_entry(cls, entry: Mapping[str, Any], row: Mapping[str, Any]) -> TaskSpec:
        return cls(
            task_name=row["task_name"],
            prompt=_read_prompt_file(entry.get("prompt_file")),
            system_prompt=_read_prompt_file(entry.get("system_prompt_file")),
        )


@cache
def hub_unavailable() -> str | None:
    """Why the Hugging Face hub cannot be used here, or ``None`` when it can."""
    for variable in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if os.environ.get(variable, "").lower() in ("1", "true", "yes", "on"):
            return f"{variable} is set"
    if importlib.util.find_spec("datasets") is None:
        return "the datasets package is not installed"
    host = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co")).hostname or "huggingface.co"
    try:
        socket.create_connection((host, 443), timeout=3).close()
    except OSError as error:
        return f"{host} is unreachable ({error})"
    return None


def family_samples(family: TaskFamily, settings: Any, limit: int) -> Loaded:
    """A few rows of ``family``'s dataset as a training run's dataset holds them: the family's
    sampler picks them, built by the dataset's own row builder, and they go through Arrow
    (``training_dataset``) as ``FamilyDataset``'s rows do."""
    loaded: Loaded = resolve(family.sampler)(settings, limit)
    if importlib.util.find_spec("datasets") is None:
        return loaded._replace(
            raw="the datasets package is not installed (training needs it: pip install 'nemo-code-rl[data]')"
        )
    return loaded._replace(rows=list(training_dataset(loaded.rows)) if loaded.rows else [])


def code_samples(settings: Any, limit: int) -> Loaded:
    """A few rows of a coding-problem dataset (``settings.rows_of``), and where they came from."""
    from nemo_code_rl.unit_tests.problem_rows import problem_from_datum
    from nemo_code_rl.unit_tests.problems import load_problems

    source = settings.source
    is_hub = not Path(source).exists() and _HUB_ID.match(source) and not source.endswith(_FILE_SUFFIXES)
    reason: str | None = None
    if not is_hub:
        rows = settings.rows()
        origin = f"{min(limit, len(rows))} of the {len(rows)} problems in {source}"
        rows = rows[:limit]
    elif (reason := hub_unavailable()) is None:
        head = hub_head(source, settings.subset, settings.split, limit)
        rows = settings.rows_of(load_problems(head, id_field=settings.id_field))
        origin = f"the first {len(rows)} problems of {source} (split {settings.split}) on the hub"
    else:
        sample = packaged_config_dir() / SAMPLE_PATH
        rows = settings.rows_of(load_problems(sample)[:limit])
        origin = f"{len(rows)} problems of the packaged sample {sample} in place of {source}: {reason}"
    stand_in = f"{source} is on the hub, which is out of reach ({reason}): the packaged sample was read"
    return Loaded(
        rows,
        [problem_from_datum(row, index).reference_solution for index, row in enumerate(rows)],
        origin,
        stand_in if reason is not None else None,
    )


def hub_head(dataset_id: str, subset: str | None, split: str, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` rows of a hub dataset's split, streamed: a dataset kept in one file per
    split (``problem_loading.SPLIT_FILES``) is read from that file alone, as training reads it."""
    from nemo_code_rl.unit_tests.problem_loading import split_file

    filename = split_file(dataset_id, split)
    if filename is not None:
        from huggingface_hub import HfFileSystem

        with HfFileSystem().open(f"datasets/{dataset_id}/{filename}", "r", encoding="utf-8") as handle:
            return [json.loads(line) for line in islice(handle, limit)]
    import datasets

    return list(islice(datasets.load_dataset(dataset_id, subset, split=split, streaming=True), limit))


def arc_samples(settings: Any, limit: int) -> Loaded:
    """A few ARC tasks as the entry's dataset rows (``settings.rows``), without augmentation or
    prompt-length filtering."""
    arc = dataclasses.replace(settings.arc, augmentations=0, max_prompt_tokens=None)
    rows = dataclasses.replace(settings, arc=arc, tokenizer=None).rows()
    kept = rows[:limit]
    return Loaded(
        kept,
        [None] * len(kept),
        f"{len(kept)} of the {len(rows)} tasks of {arc.source} (no augmentation, no length filter)",
    )


def processed_sample(
    family: TaskFamily,
    entry: Mapping[str, Any],
    row: dict[str, Any],
    reference: str | None,
    index: int,
    tokenizer: Any,
    max_seq_length: int | None,
) -> Processed:
    """``row`` through ``family``'s processor (the ``FamilyProcessor`` NeMo RL calls): the whole of
    it with a tokenizer, else its first half (``FamilyProcessor.prompt``).

    Raises:
        Exception: whatever the processor raises (it would stop a data-loader worker).
    """
    spec = TaskSpec.for_entry(entry, row)
    processor = resolve(family.processor)
    if tokenizer is None:
        messages, env_info = processor.prompt(row, spec, index)
        return Processed(Sample(row, messages, env_info, reference))
    datum = processor(row, spec, tokenizer, max_seq_length, index)
    templated = [{"role": "user", "content": datum["message_log"][0]["content"]}]
    sample = Sample(row, templated, datum["extra_env_info"], reference)
    return Processed(sample, datum["length"], datum["loss_multiplier"] == 0)


def local_tokenizer(tokenizer_config: Any) -> tuple[Any, str]:
    """The tokenizer if it is a local folder or in the Hugging Face cache (never downloaded), and a note."""
    from nemo_code_rl.environments.chat_turns import load_tokenizer
    from nemo_code_rl.environments.config import TokenizerSettings

    if importlib.util.find_spec("transformers") is None:
        return None, "transformers is not installed"
    try:
        settings = TokenizerSettings.from_dict(tokenizer_config, "tokenizer")
    except ConfigError as error:
        return None, f"no usable tokenizer config ({error})"
    if not Path(settings.name).is_dir():
        from huggingface_hub import try_to_load_from_cache

        if not isinstance(try_to_load_from_cache(settings.name, "tokenizer_config.json"), str):
            return (
                None,
                f"tokenizer {settings.name} is not available locally (no folder, not in the HF cache)",
            )
    try:
        return load_tokenizer(settings), f"tokenizer {settings.name}"
    except (OSError, ValueError) as error:
        return None, f"tokenizer {settings.name} did not load ({error})"


def _read_prompt_file(path: Any) -> str | None:
    return Path(str(path)).read_text(encoding="utf-8") if path else None
