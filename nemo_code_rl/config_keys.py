"""Strict configuration keys: a misspelled key is an error that suggests the right one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any


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
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"unknown key {key!r} in {where}{hint} (known keys: {', '.join(known)})")
