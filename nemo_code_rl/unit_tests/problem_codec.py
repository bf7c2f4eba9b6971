"""The one compact encoding of a parsed ``Problem``: what crosses Arrow, the data loader and Ray.

A row is parsed once, by whoever first reads it (the loader, or the processor for a raw row):
``parse_problem`` detects its format and applies that format's rules. What travels after that is
this encoding of the result, and ``decode_problem`` reads it back without the row parser: the
``Problem``'s own fields as a JSON object, tagged with ``CODEC_KEY``; the dataclass checks its
invariants again on construction (cheap), the format heuristics do not run again.

``EncodedProblem`` is a problem as it travels: the encoded text plus the few plain fields a
prompt and a log line need, so the processor builds the prompt and ``extra_env_info`` without
decoding (and so without copying) the tests.

Versions: text without ``CODEC_KEY`` is a canonical problem row as nemo_code_rl wrote it before
this encoding (datasets saved then, ``extra_env_info`` of a run started then); it is still read,
through ``parse_problem``. A version this install does not know is a ``ProblemFormatError`` that
says so, never a guess.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nemo_code_rl.codec_envelope import from_header, tagged_object
from nemo_code_rl.rows import ProblemFormatError
from nemo_code_rl.unit_tests.problems import Problem, parse_problem

CODEC_KEY = "problem_codec"
CODEC_VERSION = 1
_FIELDS = tuple(item.name for item in dataclasses.fields(Problem))


def encode_problem(problem: Problem) -> str:
    """``problem`` as JSON text that ``decode_problem`` reads back into an equal ``Problem``.

    >>> from nemo_code_rl.unit_tests.problems import parse_problem
    >>> problem = parse_problem({"task_id": 1, "text": "Add.", "test_list": ["assert add(1) == 2"]})
    >>> decode_problem(encode_problem(problem)) == problem
    True
    """
    fields = {name: getattr(problem, name) for name in _FIELDS}
    return json.dumps({CODEC_KEY: CODEC_VERSION, **fields}, ensure_ascii=False, default=str)


def decode_problem(value: str | Mapping[str, Any]) -> Problem:
    """The ``Problem`` that ``encode_problem`` wrote (the text, or the object it decodes to).

    Errors name no field of their own: the caller places them under the field that held ``value``.

    Raises:
        ProblemFormatError: not a JSON object, a codec version this install does not know, or
            fields that do not make a valid ``Problem`` (the field named).
    """
    data = tagged_object(
        value, key=CODEC_KEY, version=CODEC_VERSION, what="an encoded problem", codec="problem codec"
    )
    version = data.get(CODEC_KEY)
    if version is None:
        return parse_problem(data)  # a canonical row written before the codec
    unknown = sorted(set(data) - set(_FIELDS) - {CODEC_KEY})
    if unknown:
        raise ProblemFormatError(f"unknown fields {unknown} in an encoded problem (codec version {version})")
    try:
        return Problem(**{name: data[name] for name in _FIELDS if name in data})
    except TypeError as error:
        raise ProblemFormatError(f"incomplete encoded problem ({error})") from error


@dataclass(frozen=True)
class EncodedProblem:
    """A problem as it travels after its one parse: the encoded text, and what a prompt and a log need.

    Attributes:
        text: ``encode_problem``'s text, passed on as is (never decoded to be re-encoded).
        problem_id / kind / n_tests: the problem's, for logs and ``extra_env_info``'s plain fields.
        prompt / messages: the problem's prompt text and chat messages (``prompt_messages``).
    """

    text: str
    problem_id: str
    kind: str
    n_tests: int
    prompt: str
    messages: list[dict[str, Any]]

    @classmethod
    def of(cls, problem: Problem) -> EncodedProblem:
        """``problem`` encoded, with its plain fields beside the text."""
        return cls(
            encode_problem(problem),
            problem.id,
            problem.kind,
            problem.n_tests,
            problem.prompt,
            problem.messages,
        )

    def header(self) -> str:
        """The plain fields as JSON text (a dataset column beside ``text``; ``from_columns`` reads both)."""
        fields = {"problem_id": self.problem_id, "kind": self.kind, "n_tests": self.n_tests}
        return json.dumps({**fields, "prompt": self.prompt, "messages": self.messages}, ensure_ascii=False)

    @classmethod
    def from_columns(cls, text: str, header: str) -> EncodedProblem:
        """The problem ``text`` and ``header()`` describe, without decoding ``text``.

        Raises:
            ProblemFormatError: the header is not what ``header()`` writes.
        """
        encoded = from_header(cls, text, header, "a problem header")
        if not (isinstance(encoded.n_tests, int) and isinstance(encoded.messages, list)):
            raise ProblemFormatError("n_tests must be a count and messages a list", field="header")
        return encoded
