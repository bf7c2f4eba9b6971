"""Typed, strict configuration sections: a misspelled key suggests the right one, a wrong type says
what was expected in words.

Each section is a frozen pydantic dataclass (``@config_section``), so its fields, types and
defaults are written once, and ``dataclasses.replace`` and ``fields`` keep working on it.
``ConfigSection.from_dict`` turns plain (YAML) data into one, and every error, at any depth, into
one ``ConfigError`` naming the full key (``env.limits.memory_bytes: ...``).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, TypeVar, dataclass_transform

import pydantic
from pydantic import ConfigDict, TypeAdapter, ValidationError

Section = TypeVar("Section")

# Words for pydantic's error types, as "expected ...": what a user wrote in YAML was not one.
_EXPECTED = {
    "float_parsing": "a number",
    "float_type": "a number",
    "int_parsing": "an integer",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "bool_parsing": "true or false",
    "bool_type": "true or false",
    "string_type": "a string",
    "dict_type": "a mapping",
    "mapping_type": "a mapping",
    "dataclass_type": "a mapping",
    "list_type": "a list",
    "tuple_type": "a list",
}
_UNKNOWN_KEY = ("unexpected_keyword_argument", "extra_forbidden")


class ConfigError(ValueError):
    """A configuration value or key that cannot be used as given."""


def check_keys(given: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    """Raise ``ConfigError`` naming the first unknown key in ``given``, with a "did you mean".

    >>> check_keys({"timeout": 1}, ["timeout_s", "workers"], "env")
    Traceback (most recent call last):
    ...
    nemo_code_rl.config_keys.ConfigError: unknown key 'timeout' in env; did you mean 'timeout_s'? ...
    """
    known = sorted(allowed)
    for key in given:
        if key not in known:
            raise ConfigError(_unknown_key_message(str(key), known, where))


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def config_section(cls: type[Section]) -> type[Section]:
    """Make ``cls`` a frozen, validating config section that refuses keys it does not define."""
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    section = pydantic.dataclasses.dataclass(frozen=True, config=config)(cls)
    validating_init = section.__init__

    @functools.wraps(validating_init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # Built in code (``VerifierConfig(timeout_s=0)``, ``dataclasses.replace``): the same error.
        where = getattr(type(self), "WHERE", type(self).__name__)
        _refuse_bool_for_number(type(self), kwargs, where)
        try:
            validating_init(self, *args, **kwargs)
        except ValidationError as error:
            raise ConfigError(describe(error, type(self), where)) from None

    section.__init__ = __init__  # type: ignore[method-assign]
    return typing.cast("type[Section]", section)


class ConfigSection:
    """The ``from_dict`` every config section shares; ``WHERE`` names the section in errors."""

    WHERE: ClassVar[str] = "config"

    @classmethod
    def from_dict(cls: type[Section], data: Any, where: str | None = None) -> Section:
        """Validate plain (YAML) data, or pass an instance through; errors are ``ConfigError``.

        >>> from nemo_code_rl.fault_policy import FaultPolicyConfig
        >>> FaultPolicyConfig.from_dict({"window": "many"})
        Traceback (most recent call last):
        ...
        nemo_code_rl.config_keys.ConfigError: faults.window: expected an integer, got 'many'
        """
        where = where or str(getattr(cls, "WHERE", "config"))
        if isinstance(data, cls):
            return data
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where} must be a mapping, got {type(data).__name__}: {data!r}")
        return parse_section(cls, data, where)


def parse_section(cls: type[Section], data: Mapping[str, Any], where: str) -> Section:
    """``cls`` built from ``data``; the first problem found becomes a ``ConfigError`` in words."""
    _refuse_bool_for_number(cls, data, where)
    try:
        return _adapter(cls).validate_python(dict(data))
    except ValidationError as error:
        raise ConfigError(describe(error, cls, where)) from None


def describe(error: ValidationError, cls: type, where: str) -> str:
    """One sentence for the first error pydantic found, naming the full key."""
    first = error.errors(include_url=False)[0]
    loc = [str(part) for part in first["loc"]]
    kind = first["type"]
    if kind in _UNKNOWN_KEY and loc:
        owner = _section_at(cls, loc[:-1])
        known = sorted(f.name for f in dataclasses.fields(owner)) if owner else []
        return _unknown_key_message(loc[-1], known, ".".join([where, *loc[:-1]]))
    path = ".".join([where, *loc])
    message = first["msg"]
    if kind in ("value_error", "assertion_error"):
        detail = message.removeprefix("Value error, ").removeprefix("Assertion failed, ")
        return f"{path}: {detail}"
    if kind in ("missing", "missing_argument"):
        return f"{path} is required"
    expected = _EXPECTED.get(kind) or message.removeprefix("Input should be ")
    return f"{path}: expected {expected}, got {first.get('input')!r}"


def _unknown_key_message(key: str, known: list[str], where: str) -> str:
    close = difflib.get_close_matches(key, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown key {key!r} in {where}{hint} (known keys: {', '.join(known)})"


def _section_at(cls: type, path: list[str]) -> type | None:
    """The config section reached from ``cls`` along ``path`` (field names), if any."""
    owner: type | None = cls
    for name in path:
        hints = _hints(owner) if owner else {}
        owner = _dataclass_in(hints.get(name))
    return owner if owner and dataclasses.is_dataclass(owner) else None


def _dataclass_in(annotation: Any) -> type | None:
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for member in typing.get_args(annotation):
            found = _dataclass_in(member)
            if found:
                return found
    return None


def _refuse_bool_for_number(cls: type, data: Mapping[str, Any], where: str) -> None:
    path = _bool_for_number(cls, data)
    if path:
        raise ConfigError(f"{'.'.join([where, *path])}: expected a number, got {_at(data, path)!r}")


def _bool_for_number(cls: type, data: Mapping[str, Any]) -> list[str] | None:
    """The key path of the first ``true``/``false`` given for a number, which pydantic would take
    as 1 or 0: in YAML that is a slip (``abs_tol: true``), never a tolerance."""
    hints = _hints(cls)
    for key, value in data.items():
        hint = hints.get(key)
        members = (
            typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
        )
        if isinstance(value, bool) and bool not in members and {int, float} & set(members):
            return [key]
        nested = _dataclass_in(hint)
        if nested and isinstance(value, Mapping):
            inner = _bool_for_number(nested, value)
            if inner:
                return [key, *inner]
    return None


def _at(data: Mapping[str, Any], path: list[str]) -> Any:
    for key in path:
        data = data[key]
    return data


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(cls: Any) -> TypeAdapter[Any]:
    if cls not in _ADAPTERS:
        _ADAPTERS[cls] = TypeAdapter(cls)
    return _ADAPTERS[cls]
