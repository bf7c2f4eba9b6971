"""Probe (session 22): K processes started at once, each doing what a worker does before its
start-up report (isolate_worker, then the template's fork and preloads), timing both phases.

    python start_phases.py K ISOLATION PRELOAD   (PRELOAD: default, numpy, stdlib or none)
"""

import json
import os
import signal
import subprocess
import sys
import time

from nemo_code_rl.engine.pool import DEFAULT_PRELOAD

count, isolation, which = int(sys.argv[1]), sys.argv[2], sys.argv[3]
preload = {
    "default": list(DEFAULT_PRELOAD),
    "numpy": ["numpy"],
    "stdlib": [m for m in DEFAULT_PRELOAD if m != "numpy"],
    "none": [],
}[which]
CHILD = """
import json, os, sys, time
t0 = time.monotonic()
from nemo_code_rl.engine import sandbox, template
t1 = time.monotonic()
config = sandbox.SandboxConfig(level=sys.argv[1], uid=60000 + int(sys.argv[3]))
sandbox.isolate_worker(config)
t2 = time.monotonic()
handle = template.start(config, json.loads(sys.argv[2]))
handle.ready()
t3 = time.monotonic()
print(json.dumps({"imports": t1 - t0, "isolate": t2 - t1, "template": t3 - t2, "end": t3}), flush=True)
"""
start = time.monotonic()
procs = [
    subprocess.Popen(
        [sys.executable, "-c", CHILD, isolation, json.dumps(preload), str(i)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    for i in range(count)
]
rows = []
for proc in procs:
    line = proc.stdout.readline()
    rows.append(json.loads(line))
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
ends = [r["end"] - start for r in rows]
summary = {
    k: (round(min(r[k] for r in rows), 3), round(max(r[k] for r in rows), 3))
    for k in ("imports", "isolate", "template")
}
print(
    count,
    isolation,
    which,
    "phase min/max",
    summary,
    "ready first/last",
    round(min(ends), 3),
    round(max(ends), 3),
)
