"""A type-preserving codec for plain data, used inside the sandbox.

Only exact builtin data types cross (``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``,
``bytes``, ``list``, ``tuple``, ``set``, ``frozenset``, ``dict``); subclasses and every other type
are refused, so an object with a rigged ``__eq__`` (also a ``str`` subclass) can never reach the
code that compares it. Tuples stay tuples and sets stay sets, unlike JSON.

This module is shipped into the sandbox as source text: it must import nothing but the standard
library and define nothing but what the drivers need.
"""

import json

MAX_DEPTH = 100
_BIG_INT = 10**4000  # decimal text of larger ints trips Python's int-to-str limit outside the sandbox


class NotPlainData(TypeError):
    """A value that is not exact builtin data."""


def to_plain(value, depth=0):
    """Encode ``value`` as JSON-compatible tagged data.

    >>> to_plain((1, [2.5, None], {"a": b"x"}))
    {'t': 'tuple', 'v': [1, [2.5, None], {'t': 'dict', 'v': [['a', {'t': 'bytes', 'v': '78'}]]}]}
    """
    if depth > MAX_DEPTH:
        raise NotPlainData("data nested too deeply")
    kind = type(value)
    if kind is int and not -_BIG_INT < value < _BIG_INT:
        return {"t": "int", "v": hex(value)}
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        return (
            value
            if value == value and value not in (float("inf"), float("-inf"))
            else {"t": "float", "v": repr(value)}
        )
    if kind is list:
        return [to_plain(item, depth + 1) for item in value]
    if kind is tuple or kind is set or kind is frozenset:
        return {"t": kind.__name__, "v": [to_plain(item, depth + 1) for item in value]}
    if kind is dict:
        return {
            "t": "dict",
            "v": [[to_plain(k, depth + 1), to_plain(v, depth + 1)] for k, v in value.items()],
        }
    if kind is bytes:
        return {"t": "bytes", "v": value.hex()}
    if kind is complex:
        return {"t": "complex", "v": [value.real, value.imag]}
    raise NotPlainData(f"{kind.__module__}.{kind.__qualname__} is not plain data")


def from_plain(data, depth=0):
    """Decode what ``to_plain`` produced; anything else is refused."""
    if depth > MAX_DEPTH:
        raise NotPlainData("data nested too deeply")
    kind = type(data)
    if data is None or kind is bool or kind is int or kind is str or kind is float:
        return data
    if kind is list:
        return [from_plain(item, depth + 1) for item in data]
    if kind is not dict or set(data) != {"t", "v"}:
        raise NotPlainData(f"malformed encoded value of type {kind.__name__}")
    tag, body = data["t"], data["v"]
    if tag in ("tuple", "set", "frozenset") and type(body) is list:
        items = [from_plain(item, depth + 1) for item in body]
        return {"tuple": tuple, "set": set, "frozenset": frozenset}[tag](items)
    if tag == "dict" and type(body) is list and all(type(p) is list and len(p) == 2 for p in body):
        return {from_plain(k, depth + 1): from_plain(v, depth + 1) for k, v in body}
    if tag == "int" and type(body) is str:
        return int(body, 16)
    if tag == "bytes" and type(body) is str:
        return bytes.fromhex(body)
    if tag == "float" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "complex" and type(body) is list and len(body) == 2:
        return complex(float(body[0]), float(body[1]))
    raise NotPlainData(f"unknown encoded value tagged {tag!r}")


def dumps(value):
    return json.dumps(to_plain(value), allow_nan=False)


def loads(text):
    return from_plain(json.loads(text))
