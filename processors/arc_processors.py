"""NeMo RL data processor for ARC tasks answered with a program: a dataset row in, a ``DatumSpec`` out.

Register ``arc_programs_processor`` with NeMo RL's ``register_processor`` under the ARC family's
name (``nemo_code_rl.families.ARC``). It builds the prompt from the task's train pairs and test
inputs (the template and grid format ride in the row, see ``nemo_code_rl.arc.dataset``), applies
the chat template exactly as NeMo RL's ``math_hf_data_processor`` does, and masks over-long prompts
with ``loss_multiplier = 0``. The task travels to the environment in ``extra_env_info`` as JSON
text (``env_info_for_task``), so Arrow and batch collation leave its ragged grids alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from nemo_code_rl.arc.augment import Augmentation
from nemo_code_rl.arc.dataset import ArcDatum, datum_from_row
from nemo_code_rl.arc.prompts import build_messages
from nemo_code_rl.arc.task import ArcTask, task_from_row
from nemo_code_rl.families import ARC
from nemo_code_rl.problems import ProblemFormatError, decoded_json
from nemo_code_rl.processors.datum import chat_datum
from nemo_code_rl.processors.env_info import decoded_env_info

TASK_KEY = "arc_task"
AUGMENTATION_KEY = "arc_augmentation"


def arc_programs_processor(
    datum_dict: dict[str, Any],
    task_data_spec: Any,
    tokenizer: Any,
    max_seq_length: int | None,
    idx: int,
) -> dict[str, Any]:
    """NeMo RL processor (``TaskDataProcessFnCallable``) for ARC rows.

    Args:
        datum_dict: a row of ``nemo_code_rl.arc.dataset.dataset_rows``, or a raw canonical or
            NeMo Gym ``arc_agi`` row (default prompt settings).
        task_data_spec: NeMo RL's ``TaskDataSpec``; its ``system_prompt`` replaces the template's
            system message and its ``prompt`` (a ``str.format`` template with one ``{}``) wraps the
            user message, as in NeMo RL's processors. ``None`` uses neither.
        tokenizer: the policy's tokenizer (its chat template makes the prompt).
        max_seq_length: prompts of at least this many tokens are truncated and masked out.
        idx: the row's index, named in errors.

    Raises:
        ProblemFormatError: the row is not a valid ARC task; the message names ``row idx N``.
    """
    messages, extra = arc_programs_prompt(datum_dict, task_data_spec, idx)
    return chat_datum(messages, extra, datum_dict, task_data_spec, tokenizer, max_seq_length, idx)


def arc_programs_prompt(
    datum_dict: dict[str, Any], task_data_spec: Any, idx: int
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """What the processor makes of a row before the chat template: the prompt's messages and the
    ``extra_env_info``. The dry run calls it where no tokenizer is at hand, so its samples take the
    processor's own path."""
    datum = _datum(datum_dict, idx)
    messages = _with_task_spec(build_messages(datum.task, datum.prompt), task_data_spec)
    return messages, env_info_for_task(datum.task, datum.augmentation)


def env_info_for_task(task: ArcTask, augmentation: Augmentation | None = None) -> dict[str, Any]:
    """The ``extra_env_info`` of a task: the task (in the frame the prompt shows) as JSON text,
    the augmentation that frame came from, and a few plain fields for logging.

    >>> from nemo_code_rl.arc.task import task_from_row
    >>> task = task_from_row({"id": "t", "train": [{"input": [[1]], "output": [[2]]}],
    ...                       "test": [{"input": [[3]], "output": [[4]]}]})
    >>> info = env_info_for_task(task)
    >>> task_from_env_info(info)[0] == task, info["n_train"]
    (True, 1)
    """
    return {
        TASK_KEY: json.dumps(task.to_row()),
        AUGMENTATION_KEY: json.dumps(augmentation.to_dict() if augmentation else None),
        "task_id": task.id,
        "n_train": len(task.train),
        "n_test": len(task.test),
    }


def task_from_env_info(info: Mapping[str, Any] | str) -> tuple[ArcTask, Augmentation | None]:
    """The task and augmentation ``env_info_for_task`` encoded (the dict, or JSON text of it).

    Raises:
        ProblemFormatError: naming the ``extra_env_info`` field that is missing or malformed.
    """
    info = decoded_env_info(info, TASK_KEY, ARC.name)
    try:
        task = task_from_row(decoded_json(info[TASK_KEY], f"extra_env_info.{TASK_KEY}"))
    except ProblemFormatError as error:
        raise error.under(f"extra_env_info.{TASK_KEY}") from error
    augmentation = decoded_json(info.get(AUGMENTATION_KEY), f"extra_env_info.{AUGMENTATION_KEY}")
    try:
        return task, Augmentation.from_dict(augmentation) if augmentation else None
    except (TypeError, ValueError) as error:
        raise ProblemFormatError(str(error), field=f"extra_env_info.{AUGMENTATION_KEY}") from error


def _datum(datum_dict: Any, idx: int) -> ArcDatum:
    location = f"row idx {idx}"
    if not isinstance(datum_dict, Mapping):
        raise ProblemFormatError(f"a row must be a dict, got {type(datum_dict).__name__}", location=location)
    try:
        return datum_from_row(datum_dict)
    except ProblemFormatError as error:
        raise error.at(location) from error


def _with_task_spec(messages: list[dict[str, str]], task_data_spec: Any) -> list[dict[str, str]]:
    """NeMo RL's prompt settings applied: the system prompt replaced, the user message wrapped."""
    system_prompt = getattr(task_data_spec, "system_prompt", None)
    template = getattr(task_data_spec, "prompt", None)
    system = [m for m in messages if m["role"] == "system"]
    user = [m for m in messages if m["role"] != "system"]
    if system_prompt:
        system = [{"role": "system", "content": system_prompt}]
    if template:
        user = [{**m, "content": template.format(m["content"])} for m in user]
    return system + user
