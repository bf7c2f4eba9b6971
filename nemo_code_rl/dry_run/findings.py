"""What every dry-run check reports (findings, skipped checks, exit statuses) and how it reads the config."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

Level = Literal["error", "warning", "note"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_PARTIAL = 4
"""Exit statuses of the dry run: every check ran and passed; an error was found; some checks were
skipped here (and none of those that ran found an error). 2 and 3 are ``run``'s (usage, no NeMo RL)."""


@dataclass(frozen=True)
class Finding:
    """One result of a check: an ``error`` fails the dry run, a ``warning`` or ``note`` does not."""

    level: Level
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.level}: {self.where}: {self.message}"


class Skipped(NamedTuple):
    """A check the dry run could not run here, and why: the verdict is PARTIAL, not OK."""

    check: str
    reason: str

    def __str__(self) -> str:
        return f"skipped: {self.check}: {self.reason}"


def setting(config: Mapping[str, Any], dotted: str, default: Any = None) -> Any:
    """The value at a dotted key of the config; ``default`` where it is missing or null."""
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return default
        node = node[part]
    return default if node is None else node


def dataset_entries(config: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Every train and validation entry, merged with ``data.default`` as NeMo RL merges it.

    An entry that is not a mapping is returned as it is, for the checks to report.
    """
    data = config.get("data") or {}
    default = data.get("default") or {}
    entries = []
    for key in ("train", "validation"):
        value = data.get(key)
        items = value if isinstance(value, list) else [] if value is None else [value]
        for index, item in enumerate(items):
            where = f"data.{key}[{index}]" if isinstance(value, list) else f"data.{key}"
            entries.append((where, {**default, **item} if isinstance(item, Mapping) else item))
    return entries
