"""Probe (session 21): `score` at one worker count with NCR_NICE settings in alternating rounds."""

import json
import os
import statistics
import subprocess
import sys
import time

workers, rounds, settings, out = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4]
res = {s: [] for s in settings}
for r in range(rounds):
    for s in settings if r % 2 == 0 else settings[::-1]:
        cmd = [
            sys.executable,
            "-m",
            "nemo_code_rl.cli",
            "score",
            "/tmp/p2000.jsonl",
            "/tmp/c2000.jsonl",
            "--workers",
            workers,
            "--isolation",
            "namespaces",
            "--quiet",
            "--no-calibrate",
            "--timeout",
            "5",
            "-o",
            "/tmp/score_out.jsonl",
        ]
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "NCR_NICE": s})
        res[s].append(time.perf_counter() - t)
    print(r, {s: round(v[-1], 3) for s, v in res.items()}, flush=True)
summary = {s: statistics.mean(v) for s, v in res.items()}
print(json.dumps(summary))
with open(out, "w") as handle:
    json.dump({"raw": res, "summary": summary}, handle, indent=1)
