"""Probe (session 21): `score` from two installed trees in alternating rounds (PYTHONPATH per tree)."""

import json
import os
import statistics
import subprocess
import sys
import time

workers, rounds, out, sides = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
res = {s: [] for s in sides}
for r in range(rounds):
    for side in sides if r % 2 == 0 else sides[::-1]:
        env = {**os.environ, "PYTHONPATH": f"/tmp/{side}:/tmp/site"}
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
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env, cwd="/tmp")
        res[side].append(time.perf_counter() - t)
    print(r, {s: round(v[-1], 3) for s, v in res.items()}, flush=True)
summary = {s: statistics.mean(v) for s, v in res.items()}
print(json.dumps(summary))
with open(out, "w") as handle:
    json.dump({"raw": res, "summary": summary}, handle, indent=1)
