"""Per-problem time limits calibrated from a reference solution, computed once and kept.

A fixed limit (say 10 s per test) is what an endless loop costs on every test it reaches; a limit
of a few times what a known-good solution needs spends far less on such programs while still
passing every program about as fast as the reference. Calibrating means running the reference
on the problem's tests, so it is done once per problem *content* (tests, reference, stated limit)
and remembered: in memory for the life of a ``Verifier`` (an environment actor keeps one for the
whole run, so every step after the first reuses the limits) and, for ``nemo-code-rl score``, in a
JSON file that later runs read (``default_cache_path``).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from nemo_code_rl.unit_tests.problems import Problem

# The calibrated limit: FACTOR x the reference's slowest test, clamped to [FLOOR_S, CEILING_S].
FACTOR = 3.0
FLOOR_S = 1.0
CEILING_S = 20.0
_FORMAT = 1


def problem_key(
    problem: Problem, max_tests: int | None, factor: float, floor_s: float, ceiling_s: float
) -> str:
    """A digest of everything the calibrated limit depends on: the tests, the reference, the
    data's limit, which tests run, and the calibration's own parameters (not the problem id, so
    two data sets with the same problem share it and an edited problem is calibrated anew)."""
    content = [
        _FORMAT,
        problem.kind,
        problem.inputs,
        problem.outputs,
        problem.fn_name,
        problem.test_code,
        problem.test_list,
        problem.setup_code,
        problem.entry_point,
        problem.reference_solution,
        problem.time_limit_s,
        max_tests,
        factor,
        floor_s,
        ceiling_s,
    ]
    return hashlib.sha256(json.dumps(content).encode("utf-8", "surrogatepass")).hexdigest()


def default_cache_path() -> Path:
    """Where ``score`` keeps calibrated limits: ``$XDG_CACHE_HOME/nemo-code-rl/time_limits.json``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "nemo-code-rl" / "time_limits.json"


class TimeLimitCache:
    """Calibrated limits by ``problem_key``; ``None`` records a reference that failed its own tests
    (the problem keeps its configured limit, and the reference is not run again).

    Args:
        path: a JSON file to read at start and rewrite after each calibration; ``None`` keeps the
            limits in memory only. An unreadable or foreign file is an error, never ignored.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._limits: dict[str, float | None] = {}
        if self.path is not None and self.path.exists():
            self._limits = _read(self.path)

    def __contains__(self, key: str) -> bool:
        return key in self._limits

    def get(self, key: str) -> float | None:
        return self._limits.get(key)

    def __len__(self) -> int:
        return len(self._limits)

    def update(self, limits: Mapping[str, float | None]) -> None:
        """Remember new limits (and persist them, when the cache has a file)."""
        self._limits.update(limits)
        if self.path is not None and limits:
            _write(self.path, self._limits)


def _read(path: Path) -> dict[str, float | None]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a readable time-limit cache ({exc}); delete it to start anew") from exc
    limits = data.get("limits") if isinstance(data, dict) and data.get("format") == _FORMAT else None
    if not isinstance(limits, dict) or not all(
        v is None or (isinstance(v, (int, float)) and v > 0) for v in limits.values()
    ):
        raise ValueError(f"{path}: not a time-limit cache of format {_FORMAT}; delete it to start anew")
    return {str(k): (None if v is None else float(v)) for k, v in limits.items()}


def _write(path: Path, limits: Mapping[str, float | None]) -> None:
    """Replace the file in one step, so a reader (or a crash) never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump({"format": _FORMAT, "limits": dict(limits)}, stream)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
