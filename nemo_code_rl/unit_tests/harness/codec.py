"""A type-preserving codec for plain data, used inside the sandbox.

Exact builtin data types cross (``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``,
``bytes``, ``list``, ``tuple``, ``set``, ``frozenset``, ``dict``), and so do the exact value types
that LiveCodeBench's and MBPP's ``==`` accept in their place: NumPy scalars become the builtin
number they equal (``numpy.int64`` -> ``int``, ``numpy.float64`` -> ``float``, ``numpy.bool_`` ->
``bool``), ``defaultdict`` becomes a ``dict`` (its factory takes no part in ``==``), and
``Counter``, ``OrderedDict`` and ``deque`` stay what they are, because their ``==`` differs from a
dict's or a list's (``deque([1]) == [1]`` is false). Types are checked with ``type(x) is``:
subclasses and every other type are refused, so an object with a rigged ``__eq__`` (also a ``str``
or ``dict`` subclass) can never reach the code that compares it. NumPy arrays are refused too: their
``==`` is elementwise, so LiveCodeBench's ``assert`` on it fails as well. Tuples stay tuples and sets
stay sets, unlike JSON.

Assert-based tests pass the candidate's other objects by reference: ``to_plain`` and
``from_plain`` take a ``handle`` function that turns such an object into a number and back (see
``assert_driver``); without it, a reference is refused like any other foreign type.

This module is shipped into the sandbox as source text: it must import nothing but the standard
library and define nothing but what the drivers need.
"""

import collections
import json
import sys

MAX_DEPTH = 100
_BIG_INT = 10**4000  # decimal text of larger ints trips Python's int-to-str limit outside the sandbox
_NUMPY_SCALARS = {
    "bool_": bool,
    "int8": int,
    "int16": int,
    "int32": int,
    "int64": int,
    "uint8": int,
    "uint16": int,
    "uint32": int,
    "uint64": int,
    "float16": float,
    "float32": float,
    "float64": float,
    "complex64": complex,
    "complex128": complex,
}


# Exact types only, compared with ``is``: a dict of types would consult a metaclass's __eq__.
_SEQUENCE_TAGS = ((tuple, "tuple"), (set, "set"), (frozenset, "frozenset"), (collections.deque, "deque"))
_MAPPING_TAGS = (
    (dict, "dict"),
    (collections.defaultdict, "dict"),
    (collections.OrderedDict, "ordered_dict"),
    (collections.Counter, "counter"),
)


class NotPlainData(TypeError):
    """A value that is not exact builtin data."""


def _numpy_scalar(kind):
    """The builtin type a NumPy scalar of exactly ``kind`` converts to, else ``None``.

    NumPy is never imported here: a value can only be a NumPy scalar where NumPy is loaded. Types
    are found by NumPy's own names (``numpy.bool_`` is ``numpy.bool`` in NumPy 2) and compared with ``is``.
    """
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None
    for name, builtin in _NUMPY_SCALARS.items():
        if getattr(numpy, name, None) is kind:
            return builtin
    return None


def to_plain(value, depth=0, handle=None):
    """Encode ``value`` as JSON-compatible tagged data.

    ``handle``, where given, maps a value that is not plain data to a reference number (or
    ``None`` to refuse it).

    >>> to_plain((1, [2.5, None], {"a": b"x"}))
    {'t': 'tuple', 'v': [1, [2.5, None], {'t': 'dict', 'v': [['a', {'t': 'bytes', 'v': '78'}]]}]}
    """
    if depth > MAX_DEPTH:
        raise NotPlainData("data nested too deeply")
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value if -_BIG_INT < value < _BIG_INT else {"t": "int", "v": hex(value)}
    if kind is float:
        return (
            value
            if value == value and value not in (float("inf"), float("-inf"))
            else {"t": "float", "v": repr(value)}
        )
    if kind is list:
        return [to_plain(item, depth + 1, handle) for item in value]
    for known, tag in _SEQUENCE_TAGS:
        if kind is known:
            return {"t": tag, "v": [to_plain(item, depth + 1, handle) for item in value]}
    for known, tag in _MAPPING_TAGS:
        if kind is known:
            pairs = [
                [to_plain(k, depth + 1, handle), to_plain(v, depth + 1, handle)] for k, v in value.items()
            ]
            return {"t": tag, "v": pairs}
    if kind is bytes:
        return {"t": "bytes", "v": value.hex()}
    if kind is complex:
        return {"t": "complex", "v": [to_plain(value.real), to_plain(value.imag)]}
    builtin = _numpy_scalar(kind)
    if builtin is not None:
        return to_plain(builtin(value), depth, handle)
    reference = handle(value) if handle is not None else None
    if reference is not None:
        return {"t": "handle", "v": reference}
    raise NotPlainData(f"{kind.__module__}.{kind.__qualname__} is not plain data")


def from_plain(data, depth=0, handle=None):
    """Decode what ``to_plain`` produced; anything else (also a key that cannot be hashed, or data
    nested too deeply) is refused with ``NotPlainData``.

    ``handle``, where given, maps a reference number back to an object (it raises for a number it
    does not know); without it, references are refused.
    """
    try:
        return _decode(data, depth, handle)
    except NotPlainData:
        raise
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise NotPlainData(f"malformed encoded value ({type(exc).__name__}: {exc})"[:300]) from None


def _decode(data, depth, handle):
    if depth > MAX_DEPTH:
        raise NotPlainData("data nested too deeply")
    kind = type(data)
    if data is None or kind is bool or kind is int or kind is str or kind is float:
        return data
    if kind is list:
        return [_decode(item, depth + 1, handle) for item in data]
    if kind is not dict or set(data) != {"t", "v"}:
        raise NotPlainData(f"malformed encoded value of type {kind.__name__}")
    tag, body = data["t"], data["v"]
    for known, name in _SEQUENCE_TAGS:
        if tag == name and type(body) is list:
            return known([_decode(item, depth + 1, handle) for item in body])
    for known, name in _MAPPING_TAGS:
        if tag == name and type(body) is list and all(type(p) is list and len(p) == 2 for p in body):
            return known({_decode(k, depth + 1, handle): _decode(v, depth + 1, handle) for k, v in body})
    if tag == "int" and type(body) is str:
        return int(body, 16)
    if tag == "bytes" and type(body) is str:
        return bytes.fromhex(body)
    if tag == "float" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "complex" and type(body) is list and len(body) == 2:
        real, imag = (_decode(part, depth + 1, None) for part in body)
        if type(real) is float and type(imag) is float:
            return complex(real, imag)
    if tag == "handle" and type(body) is int and handle is not None:
        return handle(body)
    raise NotPlainData(f"unknown encoded value tagged {tag!r}")


def dumps(value, handle=None):
    return json.dumps(to_plain(value, handle=handle), allow_nan=False)


def loads(text, handle=None):
    """Decode JSON text from ``dumps``; text that is not (JSON nested too deeply included) is refused."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise NotPlainData(f"not an encoded value ({type(exc).__name__})") from None
    return from_plain(data, handle=handle)
