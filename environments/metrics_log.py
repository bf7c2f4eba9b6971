"""A metrics JSONL the environment writes itself, one line per ``step``.

NeMo RL (at the commit we target) never calls an environment's ``global_post_process_and_metrics``,
so the environment's metrics would never reach the run's logs. With ``metrics_jsonl`` set, the
environment appends them here instead, as rows ``nemo-code-rl plot`` reads (``plotting``): a
``step`` key (the environment's own step count, from 0) and the metrics by name, flat.

Logging must never cost training: a failed write is a warning, given once, and the step goes on.

The shipped configs put the file at ``${logger.log_dir}/env_metrics.jsonl``, which resolves before
NeMo RL picks the run's experiment folder (``<log_dir>/exp_NNN``); ``move_into_experiment`` (called
by our launcher once it is picked) moves it into that folder, so each run has its own file beside
NeMo RL's logs instead of one file appended to by every run.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

STEP_KEY = "step"


class MetricsLog:
    """Appends one JSON line of metrics per call to ``path``, numbering the lines 0, 1, 2, ...

    Thread-safe: concurrent ``step`` calls get distinct numbers and whole lines. The parent
    folders are created as needed; the file is opened per line, so nothing stays open and a
    line is on disk when ``append`` returns.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "run" / "env_metrics.jsonl"
    >>> log = MetricsLog(path)
    >>> log.append({"pass_rate": 0.5}); log.append({"pass_rate": 1.0, "repetition_rate": float("nan")})
    >>> print(path.read_text(), end="")
    {"step": 0, "pass_rate": 0.5}
    {"step": 1, "pass_rate": 1.0}
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._next_step = 0
        self._warned = False

    def append(self, metrics: Mapping[str, float]) -> None:
        """Write the next step's row; never raises (a failure is logged once, as a warning).

        Non-finite values are left out: JSON has no NaN, and a missing point plots as a gap.
        """
        with self._lock:
            step, self._next_step = self._next_step, self._next_step + 1
            try:
                row = {STEP_KEY: step, **{k: float(v) for k, v in metrics.items() if math.isfinite(v)}}
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(row) + "\n")
            except Exception as error:  # noqa: BLE001 - whatever went wrong, it must not cost the training step
                if not self._warned:
                    self._warned = True
                    logger.warning(
                        "cannot write the environment's metrics to %s (%s); training goes on without them",
                        self.path,
                        error,
                    )


def move_into_experiment(env: MutableMapping[str, Any], log_dir: str, experiment_dir: str) -> list[str]:
    """Point each ``env.<name>.metrics_jsonl`` that lies directly in ``log_dir`` into ``experiment_dir``.

    Returns the new paths. Files elsewhere are the user's choice and stay where they are.

    >>> env = {"code_unit_tests": {"metrics_jsonl": "logs/run/env_metrics.jsonl"}, "math": {}}
    >>> move_into_experiment(env, "logs/run", "logs/run/exp_003")
    ['logs/run/exp_003/env_metrics.jsonl']
    """
    moved = []
    for section in env.values():
        path = section.get("metrics_jsonl") if isinstance(section, MutableMapping) else None
        if isinstance(path, str) and Path(path).parent.resolve() == Path(log_dir).resolve():
            section["metrics_jsonl"] = str(Path(experiment_dir) / Path(path).name)
            moved.append(section["metrics_jsonl"])
    return moved
