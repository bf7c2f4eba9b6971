"""JSON read and written as the standard library reads and writes it, faster: ``score`` reads
every problem and completion before its first program can start, while the workers wait, and
writes each program's row in the one process that routes every worker's programs.

orjson parses a problem row (its tests nested as JSON text) three to four times as fast as
``json``, and encodes a result row seven times as fast. It is trusted only where the two agree:

- what orjson refuses to read (``NaN``, ``Infinity``, numbers beyond a double, lone surrogates,
  invalid UTF-8, nesting deeper than 1024) is read by ``json``, which accepts it or raises its own
  error; a value holding a float is read again by ``json``: orjson reads an integer beyond 64
  bits as a float without an error (it would silently change a call test's expected value), and
  floats are rare in code data (stdin tests are text), so no float is taken from orjson at all;
- a row is written by ``json`` where orjson refuses it (integers beyond 64 bits, keys that are
  not text, lone surrogates), where its line is not ASCII (``json`` escapes the rest, and a line
  holding U+2028 or U+0085 would be split by ``str.splitlines``), and where it holds ``null``
  (orjson writes ``NaN`` and infinities so). orjson's lines have no space after ``,`` and ``:``,
  and the shortest form of each float (``1e-05`` is written ``1e-5``): the same values. (One
  value ``json`` refuses is written: a plain ``Enum`` member, as its value. Rows hold none.)
"""

from __future__ import annotations

import json
from typing import Any

import orjson

# Dataclasses and datetimes go to ``json`` (which refuses them) rather than being written by orjson.
_ROW_OPTIONS = orjson.OPT_APPEND_NEWLINE | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


def loads(data: bytes | str) -> Any:
    """``json.loads(data)``, ``bytes`` read as UTF-8 (a ``UnicodeDecodeError`` otherwise, as
    ``json.loads(data.decode("utf-8"))`` raises), parsed by orjson wherever that is the same."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _standard(data)
    return _standard(data) if _holds_float(value) else value


def dumps_line(row: Any) -> str:
    """``json.dumps(row) + "\\n"``'s values, as one line of a JSON-lines file."""
    try:
        line = orjson.dumps(row, option=_ROW_OPTIONS)
    except orjson.JSONEncodeError:
        return json.dumps(row) + "\n"
    if not line.isascii() or b"null" in line:
        return json.dumps(row) + "\n"
    return line.decode("ascii")


def _standard(data: bytes | str) -> Any:
    return json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)


def _holds_float(value: Any) -> bool:
    """Whether ``value`` (as orjson builds it) is or contains a float. The element types of a
    container are collected in C (``map(type, ...)``): a row's tests are lists of texts. Walked
    with a stack of its own: orjson reads nesting up to 1024 deep, past Python's recursion limit."""
    pending = [value]
    while pending:
        value = pending.pop()
        kind = type(value)
        if kind is dict:
            value = value.values()
        elif kind is not list:
            if kind is float:
                return True
            continue
        kinds = set(map(type, value))
        if float in kinds:
            return True
        if list in kinds or dict in kinds:
            for item in value:
                if type(item) is list or type(item) is dict:
                    pending.append(item)
    return False
