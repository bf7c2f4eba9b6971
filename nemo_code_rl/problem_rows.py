"""A dataset row of coding problems, for every framework: written, read back, and prompted.

``to_dataset_rows`` stores each canonical problem as JSON text in one column, so rows survive a
trip through Arrow (``datasets.Dataset.from_list``) unchanged; ``problem_from_datum`` reads any
row shape the adapters accept (such a row, a raw row of any format ``nemo_code_rl.problems``
detects, or a NeMo Gym row); ``prompt_messages`` is the chat the policy sees. The NeMo RL
processor, the TRL rows and the dry run all build on these, so they cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from nemo_code_rl.problems import ID_FIELDS, Problem, ProblemFormatError, decoded_json, parse_problem

# The column ``to_dataset_rows`` stores a canonical problem in, as JSON text.
ENCODED_PROBLEM_COLUMN = "code_problem_json"
# A NeMo Gym style row keeps the whole source row as JSON text in this column.
GYM_ROW_COLUMN = "extra_env_info"
# Columns NeMo RL's datasets add to every row; never part of a problem.
_DATASET_COLUMNS = ("task_name",)


def to_dataset_rows(problems: Iterable[Problem], task_name: str) -> list[dict[str, str]]:
    """Rows for ``datasets.Dataset.from_list``: each problem as JSON text, plus NeMo RL's ``task_name``.

    >>> from nemo_code_rl.problems import parse_problem
    >>> problem = parse_problem({"task_id": 1, "text": "Add.", "test_list": ["assert add(1) == 2"]})
    >>> rows = to_dataset_rows([problem], "mbpp")
    >>> sorted(rows[0]), rows[0]["task_name"]
    (['code_problem_json', 'task_name'], 'mbpp')
    """
    return [
        {
            ENCODED_PROBLEM_COLUMN: json.dumps(problem.to_dict(), ensure_ascii=False, default=str),
            "task_name": task_name,
        }
        for problem in problems
    ]


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
