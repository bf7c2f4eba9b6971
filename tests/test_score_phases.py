"""``benchmarks/score_phases.py``, the maintained timeline of ``score``'s phases: it must still
find every phase's function (it fails, naming it, when one moves) and mark them in the order a
run goes through them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).parents[1] / "benchmarks" / "score_phases.py"


def test_score_phases_marks_every_phase_in_order(tmp_path):
    out = tmp_path / "phases.json"
    done = subprocess.run(
        [sys.executable, str(TOOL), "--workers", "2", "--programs", "40", "--rounds", "1",
         "--isolation", "full", "--json", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    [row] = json.loads(out.read_text())
    assert row["same_rows"] is True and row["floor"] > 0 and row["floor_after"] > 0 and row["verifier"] > 0
    marks = row["trees"]["installed"]
    order = [
        "pool_start_begin",
        "read_problems_begin",
        "read_problems_end",
        "read_completions_end",
        "verify_begin",
        "run_batch_begin",
        "run_batch_end",
        "verify_end",
        "pool_close_end",
        "rewrite_begin",
        "rewrite_end",
        "summarize_end",
        "main_returned",
        "process_end",
    ]
    assert [marks[name] for name in order] == sorted(marks[name] for name in order)
    assert marks["cpu"] > 0 and marks["max_rss_mib"] > 0
    assert "40 programs, round 0" in done.stdout and "installed:" in done.stdout
