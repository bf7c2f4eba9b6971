"""Patch a copy of the tree's worker.py to stamp each start-up phase on stderr, then start pools
from that copy; print each phase's time since the pool began starting (median and max over workers)."""

import json
import os
import pathlib
import re
import statistics
import subprocess
import sys

tree = sys.argv[1]
path = os.path.join(tree, "nemo_code_rl/engine/worker.py")
src = pathlib.Path(path).read_text()
if "PHASE" not in src:
    src = src.replace(
        "from __future__ import annotations\n",
        "from __future__ import annotations\nimport time as _pt\n_PT0 = _pt.time()\n",
        1,
    )

    def stamp(name):
        return f'print("PHASE", {name!r}, _pt.time(), file=sys.stderr, flush=True)\n    '

    src = src.replace(
        "    settings = json.loads(sys.argv[1])\n",
        "    " + stamp("imported") + "settings = json.loads(sys.argv[1])\n",
        1,
    )
    src = src.replace(
        "    try:\n        report = sandbox.isolate_worker(config)",
        "    " + stamp("opened") + "try:\n        report = sandbox.isolate_worker(config)",
        1,
    )
    src = src.replace(
        "    handle = template.start(", "    " + stamp("isolated") + "handle = template.start(", 1
    )
    src = src.replace(
        "    try:\n        loaded = handle.ready()",
        "    " + stamp("template_forked") + "try:\n        loaded = handle.ready()",
        1,
    )
    src = src.replace(
        '    if cgroup is not None:\n        report["cgroup"]',
        "    " + stamp("template_ready") + 'if cgroup is not None:\n        report["cgroup"]',
        1,
    )
    pathlib.Path(path).write_text(src)
assert src.count("PHASE") == 5, src
child = r"""
import sys, time
from nemo_code_rl.engine import ExecutionPool, Limits
import nemo_code_rl; assert nemo_code_rl.__file__.startswith(sys.argv[1]), nemo_code_rl.__file__
workers, isolation = int(sys.argv[2]), sys.argv[3]
t0 = time.time()
pool = ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation=isolation)
print("PHASE", "pool_started", time.time(), file=sys.stderr, flush=True)
pool.close()
print("BEGIN", t0, file=sys.stderr, flush=True)
"""
env = dict(os.environ, PYTHONPATH=os.pathsep.join([tree, os.environ.get("PYTHONPATH", "")]))
report = {}
for workers in (1, 16):
    for isolation in ("namespaces",):
        for rep in range(3):
            done = subprocess.run(
                [sys.executable, "-c", child, tree, str(workers), isolation],
                env=env,
                capture_output=True,
                text=True,
                cwd="/tmp",
            )
            begin = float(re.search(r"BEGIN (\S+)", done.stderr)[1])
            phases = {}
            for name, stamp in re.findall(r"PHASE (\S+) (\S+)", done.stderr):
                phases.setdefault(name, []).append(float(stamp) - begin)
            summary = {name: [round(statistics.median(v), 4), round(max(v), 4)] for name, v in phases.items()}
            report[f"w{workers}_{isolation}_{rep}"] = summary
            print(workers, isolation, summary, flush=True)
pathlib.Path(sys.argv[2]).write_text(json.dumps(report, indent=1))
