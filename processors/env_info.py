"""The one encoding of a problem in NeMo RL's per-sample ``extra_env_info``.

The processor writes it and the environment reads it, so both sides must agree; keeping the pair
of functions in one small module (with no torch or NeMo RL import) is what guarantees that.

The whole canonical ``Problem`` travels as JSON *text* under ``"problem"``: tests are ragged nested
lists (and call-based arguments are JSON themselves), which Arrow and batch collation would
otherwise pad, re-type or split. A few plain fields ride beside it for logging.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from nemo_code_rl.problems import Problem, ProblemFormatError, decoded_json, parse_problem

PROBLEM_KEY = "problem"
# Problems kept parsed: a step's prompts, with room to spare (tests can be megabytes each).
RECENT_PROBLEMS = 256


def env_info_for_problem(problem: Problem) -> dict[str, Any]:
    """The ``extra_env_info`` dict for ``problem``: everything the environment needs to verify it.

    >>> from nemo_code_rl.problems import parse_problem
    >>> info = env_info_for_problem(parse_problem({"id": 1, "question": "Echo.", "input_output":
    ...     '{"inputs": ["a"], "outputs": ["a"]}'}))
    >>> (info["problem_id"], info["n_tests"], problem_from_env_info(info).inputs)
    ('1', 1, ['a'])
    """
    return {
        PROBLEM_KEY: json.dumps(problem.to_dict(), ensure_ascii=False, default=str),
        "problem_id": problem.id,
        "kind": problem.kind,
        "n_tests": problem.n_tests,
    }


def problem_from_env_info(info: Mapping[str, Any] | str) -> Problem:
    """The ``Problem`` that ``env_info_for_problem`` encoded.

    Accepts the dict itself or JSON text of it (for callers that stored the whole dict as one
    string column), and a ``"problem"`` entry that is JSON text or an already-decoded dict.
    Anything else is a ``ProblemFormatError`` naming the field.
    """
    row = decoded_env_info(info, PROBLEM_KEY, "code_unit_tests_processor")[PROBLEM_KEY]
    if isinstance(row, str):
        return _problem_from_text(row)
    return _problem_from_row(row)


@functools.lru_cache(maxsize=RECENT_PROBLEMS)
def _problem_from_text(text: str) -> Problem:
    """Samples of one prompt carry the same text; they share one ``Problem``, parsed once, so the
    verifier runs a completion repeated within the group once (see ``Verifier.verify_batch``)."""
    return _problem_from_row(decoded_json(text, f"extra_env_info.{PROBLEM_KEY}"))


def _problem_from_row(row: Any) -> Problem:
    if not isinstance(row, Mapping):
        raise ProblemFormatError(
            f"must be a canonical problem (JSON object), got {type(row).__name__}",
            field=f"extra_env_info.{PROBLEM_KEY}",
        )
    try:
        return parse_problem(row)
    except ProblemFormatError as error:
        raise error.under(f"extra_env_info.{PROBLEM_KEY}") from error


def decoded_env_info(info: Mapping[str, Any] | str, key: str, processor: str) -> Mapping[str, Any]:
    """An ``extra_env_info`` (the dict, or JSON text of it) that holds ``key``, which ``processor``
    writes; anything else is a ``ProblemFormatError`` naming the field."""
    info = decoded_json(info, "extra_env_info")
    if not isinstance(info, Mapping):
        raise ProblemFormatError(f"must be a dict, got {type(info).__name__}", field="extra_env_info")
    if key not in info:
        raise ProblemFormatError(
            f"missing; keys seen: {sorted(map(str, info))} (rows must go through {processor})",
            field=f"extra_env_info.{key}",
        )
    return info
