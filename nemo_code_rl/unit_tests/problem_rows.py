"""A dataset row of coding problems, for every framework: written, read back, and prompted.

``to_dataset_rows`` stores each parsed problem in its one encoding (``problem_codec``) as JSON
text, with a small header column (id, kind, test count, prompt) beside it, so rows survive a trip
through Arrow (``datasets.Dataset.from_list``) unchanged and a processor prompts them without
decoding the tests. ``encoded_problem_from_datum`` (the processor's read) and
``problem_from_datum`` (the TRL reward's) read any row shape the adapters accept: such a row
(decoded, never parsed again), a raw row of any format ``nemo_code_rl.unit_tests.problems`` detects, or a
NeMo Gym row (parsed: their one parse). ``prompt_messages`` is the chat the policy sees. The NeMo
RL processor, the TRL rows and the dry run all build on these, so they cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from nemo_code_rl.rows import ID_FIELDS, ProblemFormatError, decoded_json
from nemo_code_rl.unit_tests.problem_codec import EncodedProblem, decode_problem
from nemo_code_rl.unit_tests.problems import Problem, parse_problem

# The column ``to_dataset_rows`` stores a problem in, as ``problem_codec`` text.
ENCODED_PROBLEM_COLUMN = "code_problem_json"
# The column beside it holding the problem's plain fields (``EncodedProblem.header``).
PROBLEM_HEADER_COLUMN = "code_problem_header"
# A NeMo Gym style row keeps the whole source row as JSON text in this column.
GYM_ROW_COLUMN = "extra_env_info"
# Columns NeMo RL's datasets add to every row; never part of a problem.
_DATASET_COLUMNS = ("task_name",)


def to_dataset_rows(problems: Iterable[Problem], task_name: str) -> list[dict[str, str]]:
    """Rows for ``datasets.Dataset.from_list``: each problem encoded, its header, NeMo RL's ``task_name``.

    >>> from nemo_code_rl.unit_tests.problems import parse_problem
    >>> problem = parse_problem({"task_id": 1, "text": "Add.", "test_list": ["assert add(1) == 2"]})
    >>> rows = to_dataset_rows([problem], "mbpp")
    >>> sorted(rows[0]), rows[0]["task_name"]
    (['code_problem_header', 'code_problem_json', 'task_name'], 'mbpp')
    >>> problem_from_datum(rows[0], 0) == problem
    True
    """
    rows = []
    for problem in problems:
        encoded = EncodedProblem.of(problem)
        rows.append(
            {
                ENCODED_PROBLEM_COLUMN: encoded.text,
                PROBLEM_HEADER_COLUMN: encoded.header(),
                "task_name": task_name,
            }
        )
    return rows


def encoded_problem_from_datum(datum_dict: Mapping[str, Any], idx: int) -> EncodedProblem:
    """The problem in a dataset row, encoded: read from the columns ``to_dataset_rows`` writes
    (nothing parsed or decoded), else parsed from the row (its one parse) and encoded."""
    if isinstance(datum_dict, Mapping):
        text, header = datum_dict.get(ENCODED_PROBLEM_COLUMN), datum_dict.get(PROBLEM_HEADER_COLUMN)
        if isinstance(text, str) and isinstance(header, str):
            try:
                return EncodedProblem.from_columns(text, header)
            except ProblemFormatError as error:
                raise error.under(PROBLEM_HEADER_COLUMN).at(f"row idx {idx}") from error
    return EncodedProblem.of(problem_from_datum(datum_dict, idx))


def problem_from_datum(datum_dict: Mapping[str, Any], idx: int) -> Problem:
    """The ``Problem`` in a dataset row, whichever of the processor's accepted shapes it has.

    A row of ``to_dataset_rows`` is decoded (``problem_codec``), not parsed again. Rows without an
    id (some formats have none) get ``row-<idx>``, so every sample can still be grouped by problem.
    """
    location = f"row idx {idx}"
    if not isinstance(datum_dict, Mapping):
        raise ProblemFormatError(f"a row must be a dict, got {type(datum_dict).__name__}", location=location)
    encoded = datum_dict.get(ENCODED_PROBLEM_COLUMN)
    if isinstance(encoded, str):
        try:
            return decode_problem(encoded)
        except ProblemFormatError as error:
            raise error.under(ENCODED_PROBLEM_COLUMN).at(location) from error
    try:
        row = _source_row(datum_dict)
        if not any(row.get(name) not in (None, "") for name in ID_FIELDS):
            row = {**row, "id": f"row-{idx}"}
        return parse_problem(row)
    except ProblemFormatError as error:
        raise error.at(location) from error


class Prompted(Protocol):
    """What ``prompt_messages`` reads of a problem (a ``Problem`` or an ``EncodedProblem``)."""

    @property
    def prompt(self) -> str: ...
    @property
    def messages(self) -> list[dict[str, Any]]: ...


def prompt_messages(problem: Prompted, task_data_spec: Any = None) -> list[dict[str, str]]:
    """The chat messages the policy sees for ``problem``, with the task's prompt settings applied.

    >>> from nemo_code_rl.unit_tests.problems import parse_problem
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
    """The problem row inside a raw dataset row: decoded from JSON where NeMo Gym's dataset keeps it so."""
    value = datum_dict.get(GYM_ROW_COLUMN)
    if isinstance(value, str):
        decoded = decoded_json(value, GYM_ROW_COLUMN)
        if not isinstance(decoded, Mapping):
            raise ProblemFormatError(
                f"must be a JSON object, got {type(decoded).__name__}", field=GYM_ROW_COLUMN
            )
        return dict(decoded)
    return {key: value for key, value in datum_dict.items() if key not in _DATASET_COLUMNS}
