"""What the two row codecs share (``problem_codec`` for coding problems, ``arc.task_codec`` for ARC
tasks): the JSON object tagged with its codec's version that crosses Arrow, the data loader and
Ray, and the header column read back into the codec's encoded-row dataclass. One place, so a
version mismatch or a bad header reads the same whichever family's rows it is in.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from nemo_code_rl.rows import ProblemFormatError, decoded_json

Encoded = TypeVar("Encoded")


def tagged_object(
    value: str | Mapping[str, Any], *, key: str, version: int, what: str, codec: str
) -> Mapping[str, Any]:
    """The JSON object ``value`` holds (its text, or the object itself), written by ``codec`` at
    ``version`` when it carries ``key``; an object without ``key`` predates the codec, and the
    caller reads it as a row.

    Raises:
        ProblemFormatError: not JSON, not an object (``what`` names what it should be), or a
            version this install does not know.
    """
    data = value
    if isinstance(value, str):
        try:
            data = json.loads(value)
        except ValueError as error:
            raise ProblemFormatError(f"not valid JSON ({error})") from error
    if not isinstance(data, Mapping):
        raise ProblemFormatError(f"must be {what} (JSON object), got {type(data).__name__}")
    found = data.get(key)
    if found is not None and found != version:
        raise ProblemFormatError(
            f"written with {codec} version {found!r}, but this nemo_code_rl reads version "
            f"{version}: the rows come from another version of the package (re-run the "
            "processor with this one, or install the one that wrote them)",
            field=key,
        )
    return data


def from_header(make: Callable[..., Encoded], text: str, header: str, what: str) -> Encoded:
    """``make(text, **fields)`` with the fields of the ``header`` column (JSON text).

    Raises:
        ProblemFormatError: the header is not a JSON object of ``make``'s fields (``what`` names
            the header's kind).
    """
    fields = decoded_json(header, "header")
    try:
        if not isinstance(fields, Mapping):
            raise TypeError(f"got {type(fields).__name__}")
        return make(text, **fields)
    except TypeError as error:
        raise ProblemFormatError(f"not {what} ({error})", field="header") from error
