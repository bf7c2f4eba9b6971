"""The one encoding of a problem in NeMo RL's per-sample ``extra_env_info``.

The processor writes it and the environment reads it, so both sides must agree; keeping the pair
of functions in one small module (with no torch or NeMo RL import) is what guarantees that.

The whole ``Problem`` travels as JSON *text* under ``"problem"``, in the package's one encoding
(``nemo_code_rl.problem_codec``): tests are ragged nested lists (and call-based arguments are JSON
themselves), which Arrow and batch collation would otherwise pad, re-type or split. The processor
passes on the text the loader wrote (no re-encoding) and the environment decodes it without the
row parser; the text carries its codec version, so a run whose processor and environment come from
different versions of the package either reads the older form (a canonical row, parsed as before)
or stops with an error naming both versions. A few plain fields ride beside it for logging.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from nemo_code_rl.problem_codec import EncodedProblem, decode_problem
from nemo_code_rl.problems import Problem, ProblemFormatError, decoded_json

PROBLEM_KEY = "problem"
# Problems kept parsed: a step's prompts, with room to spare (tests can be megabytes each).
RECENT_PROBLEMS = 256


def env_info_for_problem(problem: Problem | EncodedProblem) -> dict[str, Any]:
    """The ``extra_env_info`` dict for ``problem``: everything the environment needs to verify it.

    An ``EncodedProblem`` (a dataset row's, see ``problem_rows``) goes in as it is, its text not
    decoded; a ``Problem`` is encoded first.

    >>> from nemo_code_rl.problems import parse_problem
    >>> info = env_info_for_problem(parse_problem({"id": 1, "question": "Echo.", "input_output":
    ...     '{"inputs": ["a"], "outputs": ["a"]}'}))
    >>> (info["problem_id"], info["n_tests"], problem_from_env_info(info).inputs)
    ('1', 1, ['a'])
    """
    encoded = problem if isinstance(problem, EncodedProblem) else EncodedProblem.of(problem)
    return {
        PROBLEM_KEY: encoded.text,
        "problem_id": encoded.problem_id,
        "kind": encoded.kind,
        "n_tests": encoded.n_tests,
    }


def problem_from_env_info(info: Mapping[str, Any] | str) -> Problem:
    """The ``Problem`` that ``env_info_for_problem`` encoded, decoded without the row parser.

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
    """Samples of one prompt carry the same text; they share one ``Problem``, decoded once, so the
    verifier runs a completion repeated within the group once (see ``Verifier.verify_batch``)."""
    return _problem_from_row(text)


def _problem_from_row(row: Any) -> Problem:
    try:
        return decode_problem(row)
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
