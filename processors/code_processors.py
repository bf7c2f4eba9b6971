"""NeMo RL data processor for coding problems: a dataset row in, a ``DatumSpec`` out.

One processor serves every problem format ``nemo_code_rl.problems`` reads (the format is detected
per row), so a dataset needs no processor of its own. It builds the prompt exactly as NeMo RL's
``math_hf_data_processor`` does: the chat template applied to the whole prompt (system message,
then the problem's messages, then the generation prompt), stored as one ``user`` message whose
``content`` is the templated text and whose ``token_ids`` are that text's tokens. Over-long prompts
are cut to a few tokens and masked with ``loss_multiplier = 0``, as NeMo RL does.

The problem itself travels to the environment in ``extra_env_info`` (see ``env_info``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nemo_code_rl.problems import ID_FIELDS, Problem, ProblemFormatError, decoded_json, parse_problem
from nemo_code_rl.processors.datum import chat_datum
from nemo_code_rl.processors.env_info import env_info_for_problem

# The column ``to_dataset_rows`` stores a canonical problem in, as JSON text.
ENCODED_PROBLEM_COLUMN = "code_problem_json"
# A NeMo Gym style row keeps the whole source row as JSON text in this column.
GYM_ROW_COLUMN = "extra_env_info"
# Columns NeMo RL's datasets add to every row; never part of a problem.
_DATASET_COLUMNS = ("task_name",)


def code_unit_tests_processor(
    datum_dict: dict[str, Any],
    task_data_spec: Any,
    tokenizer: Any,
    max_seq_length: int | None,
    idx: int,
) -> dict[str, Any]:
    """NeMo RL processor (``TaskDataProcessFnCallable``) for rows of any supported problem format.

    Args:
        datum_dict: a raw row of any format ``parse_problem`` detects, a row written by
            ``to_dataset_rows``, or a NeMo Gym row whose ``extra_env_info`` column holds the JSON line.
        task_data_spec: NeMo RL's ``TaskDataSpec``; its ``system_prompt`` replaces the row's own
            system message, and its ``prompt`` (a ``str.format`` template with one ``{}``) wraps
            the last user message, as in NeMo RL's processors. ``None`` uses neither.
        tokenizer: the policy's tokenizer (its chat template makes the prompt).
        max_seq_length: prompts of at least this many tokens are truncated and masked out.
        idx: the row's index, named in errors.

    Raises:
        ProblemFormatError: the row is not a valid problem; the message names ``row idx N`` and the field.
    """
    problem = problem_from_datum(datum_dict, idx)
    messages = prompt_messages(problem, task_data_spec)
    extra = env_info_for_problem(problem)
    return chat_datum(messages, extra, datum_dict, task_data_spec, tokenizer, max_seq_length, idx)


def problem_from_datum(datum_dict: Mapping[str, Any], idx: int) -> Problem:
    """The ``Problem`` in a dataset row, whichever of the processor's accepted shapes it has.

    Rows without an id (some formats have none) get ``row-<idx>``, so every sample can still be
    grouped by problem.
    """
    location = f"row idx {idx}"
    if not isinstance(datum_dict, Mapping):
        raise ProblemFormatError(f"a row must be a dict, got {type(datum_dict).__name__}", location=location)
    try:
        row = _source_row(datum_dict)
        if not any(row.get(name) not in (None, "") for name in ID_FIELDS):
            row = {**row, "id": f"row-{idx}"}
        return parse_problem(row)
    except ProblemFormatError as error:
        raise error.at(location) from error


def prompt_messages(problem: Problem, task_data_spec: Any = None) -> list[dict[str, str]]:
    """The chat messages the policy sees for ``problem``, with the task's prompt settings applied.

    >>> from nemo_code_rl.problems import parse_problem
    >>> problem = parse_problem({"task_id": 1, "text": "Add.", "test_list": ["assert add(1) == 2"]})
    >>> class Spec:
    ...     system_prompt, prompt = "Be brief.", "Solve:\\n{}"
    >>> [(m["role"], m["content"][:11]) for m in prompt_messages(problem, Spec())]
    [('system', 'Be brief.'), ('user', 'Solve:\\nAdd.')]
    """
    messages = [{"role": str(m["role"]), "content": str(m["content"])} for m in problem.messages]
    system_prompt = getattr(task_data_spec, "system_prompt", None)
    template = getattr(task_data_spec, "prompt", None)
    if template:
        last_user = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=None)
        if last_user is None:
            messages.append({"role": "user", "content": template.format(problem.prompt)})
        else:
            messages[last_user]["content"] = template.format(messages[last_user]["content"])
    if system_prompt:
        messages = [{"role": "system", "content": system_prompt}] + [
            m for m in messages if m["role"] != "system"
        ]
    return messages


def _source_row(datum_dict: Mapping[str, Any]) -> dict[str, Any]:
    """The problem row inside a dataset row: decoded from JSON where the loader encoded it."""
    for column in (ENCODED_PROBLEM_COLUMN, GYM_ROW_COLUMN):
        value = datum_dict.get(column)
        if isinstance(value, str):
            decoded = decoded_json(value, column)
            if not isinstance(decoded, Mapping):
                raise ProblemFormatError(f"must be a JSON object, got {type(decoded).__name__}", field=column)
            return dict(decoded)
    return {key: value for key, value in datum_dict.items() if key not in _DATASET_COLUMNS}
