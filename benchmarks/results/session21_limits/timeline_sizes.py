"""Probe (session 21): score_timeline.py at one worker count over batch sizes; the marks, and
when the process ended (all seconds since launch). One JSON line per run."""

import json
import subprocess
import sys
import time
from pathlib import Path

from nemo_code_rl.benchmarking.workload import build_workload

here = Path(__file__).parent
workers, sizes, runs, out = (
    sys.argv[1],
    [int(s) for s in sys.argv[2].split(",")],
    int(sys.argv[3]),
    sys.argv[4],
)
report = []
for n in sizes:
    items = build_workload(n, 10)
    Path(f"/tmp/tp{n}.jsonl").write_text("".join(json.dumps(i.problem_row()) + "\n" for i in items))
    Path(f"/tmp/tc{n}.jsonl").write_text(
        "".join(json.dumps({"id": i.name, "completion": i.completion}) + "\n" for i in items)
    )
    for _ in range(runs):
        launch = time.time()
        done = subprocess.run(
            [
                sys.executable,
                str(here / "score_timeline.py"),
                str(launch),
                "score",
                f"/tmp/tp{n}.jsonl",
                f"/tmp/tc{n}.jsonl",
                "--workers",
                workers,
                "--isolation",
                "namespaces",
                "--quiet",
                "--no-calibrate",
                "--timeout",
                "5",
                "-o",
                "/tmp/tr.jsonl",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        marks = json.loads(done.stdout.strip().splitlines()[-1])
        marks["process_end"] = round(time.time() - launch, 4)
        report.append({"programs": n, **marks})
        print(n, marks, flush=True)
Path(out).write_text(json.dumps(report, indent=1) + "\n")
