"""Per-input resource limits for sandboxed programs.

Every default lives here and nowhere else, so the README, the CLI and the environments agree.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, ClassVar

KiB = 1024
MiB = 1024 * KiB
# The longest time limit accepted, wall or CPU, per input: a day. Longer is a mistake (``1e9``,
# ``inf``), and past what the platform's clocks and rlimits can hold.
MAX_SECONDS = 24 * 3600.0
# The wall-clock limit per input where neither the data nor the config gives one.
DEFAULT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to each input a program runs on.

    Args:
        timeout_s: wall-clock seconds per input, enforced from outside the program (SIGKILL).
        cpu_s: CPU seconds per input (RLIMIT_CPU); ``None`` means ``timeout_s + 1``.
        memory_bytes: address-space limit of the program's process (RLIMIT_AS).
        output_bytes: bytes of stdout kept per input; the rest is discarded (and counted) and the
            input gets the ``output_limit`` verdict. The verifier lowers it per problem to what
            comparison needs (``output_cap``), so a batch's memory stays bounded.
        stderr_bytes: bytes of stderr kept per input, for error messages and feedback; the rest
            is counted and discarded without changing the verdict (an endless writer is stopped).
        file_bytes: largest file the program may write (RLIMIT_FSIZE); also the size of its temp dir.
        processes: processes and threads the program may have at once (RLIMIT_NPROC).
        wall_backstop_s: when set, ``timeout_s`` counts the program's CPU time rather than the
            wall clock (checked each time the wall clock reaches what it has been allowed): a
            program that waited for a busy machine's CPU gets the time it waited, and wall-clock
            time is bounded by this backstop instead. ``None``: ``timeout_s`` is wall-clock time.
        stop_after_timeout: once one input exceeds its time limit, the program's remaining inputs
            are not run (``not_run``), so an endless loop costs one limit, not one per input.

    Example:
        >>> Limits(timeout_s=2).cpu_limit_s
        3.0
    """

    # Config sections (pydantic) refuse unknown keys under ``limits`` too; the engine itself, and
    # so every sandbox worker, stays free of pydantic.
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    timeout_s: float = DEFAULT_TIMEOUT_S
    cpu_s: float | None = None
    memory_bytes: int = 2048 * MiB
    output_bytes: int = 8 * MiB
    stderr_bytes: int = 16 * KiB
    file_bytes: int = 64 * MiB
    processes: int = 64
    wall_backstop_s: float | None = None
    stop_after_timeout: bool = False

    def __post_init__(self) -> None:
        check_seconds("timeout_s", self.timeout_s)
        if self.cpu_s is not None:
            check_seconds("cpu_s", self.cpu_s)
        if (
            self.wall_backstop_s is not None
            and check_seconds("wall_backstop_s", self.wall_backstop_s) < self.timeout_s
        ):
            raise ValueError(f"wall_backstop_s must be at least timeout_s, got {self.wall_backstop_s}")
        for name in ("memory_bytes", "output_bytes", "stderr_bytes", "file_bytes", "processes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        if self.memory_bytes < 64 * MiB:
            raise ValueError(f"memory_bytes must be at least 64 MiB, got {self.memory_bytes}")

    @property
    def cpu_limit_s(self) -> float:
        """The CPU-time limit in force: ``cpu_s`` or, when unset, one second more than the wall limit."""
        return float(self.cpu_s) if self.cpu_s is not None else float(self.timeout_s) + 1.0

    @property
    def wall_limit_s(self) -> float:
        """The longest wall-clock time an input may take: the backstop when set, else ``timeout_s``."""
        return float(self.wall_backstop_s if self.wall_backstop_s is not None else self.timeout_s)

    def with_overrides(self, **overrides: Any) -> Limits:
        """A copy with some fields changed; unknown names are an error, not silently ignored."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ValueError(f"unknown limit(s) {unknown}; known limits are {sorted(known)}")
        return replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def no_timeout_in_limits(data: Any, per: str) -> Any:
    """Refuse ``limits.timeout_s`` in a config that holds its own ``timeout_s`` beside ``limits``,
    where it would be silently unused; returns ``data`` (a pydantic before-validator's input)."""
    limits = data.get("limits") if isinstance(data, dict) else None
    if isinstance(limits, dict) and "timeout_s" in limits:
        raise ValueError(f"limits.timeout_s is not used: set the {per} limit with timeout_s")
    return data


def check_seconds(name: str, value: Any) -> float:
    """``value`` as seconds, when it is a usable time limit: a number above 0 and at most
    ``MAX_SECONDS`` (so not ``nan`` or ``inf``); otherwise a ``ValueError`` naming ``name``.

    >>> check_seconds("timeout_s", float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: timeout_s must be a number of seconds above 0 and at most 86400 (a day), got nan
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_SECONDS:
        raise ValueError(
            f"{name} must be a number of seconds above 0 and at most {MAX_SECONDS:.0f} (a day), got {value!r}"
        )
    return float(value)
