"""Public names of a package that load on first use (PEP 562), for packages whose importers must
stay small.

Every sandbox worker imports ``nemo_code_rl.engine.worker``, which runs ``nemo_code_rl/__init__``
and ``engine/__init__`` first, and every program is forked from a worker's template, so what those
import is paid per worker and copied per program; ``score`` imports ``arc`` for its command line.
Each such package names where its public names live, and each loads when it is first used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, homes: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], object]:
    """The module ``__getattr__`` of ``package``: ``name`` comes from ``package.<homes[name]>`` on
    first use and is then an ordinary attribute of ``namespace`` (the package's globals)."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    return __getattr__
