"""Probe (session 22): the engine at W workers with the default preloads, without numpy, and with
none, on bench's generated workload, alternating rounds; the floor once per round.

    python preload_batches.py WORKERS PROGRAMS ROUNDS OUT.json
"""

import json
import sys
import time
from pathlib import Path

from nemo_code_rl.benchmarking.baselines import ForkFloor
from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.engine.pool import DEFAULT_PRELOAD

workers, programs, rounds, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
items = build_workload(programs, 10)
batch = [Program(item.source, list(item.inputs)) for item in items]
jobs = [(item.source, item.inputs) for item in items]
sets = {
    "default": DEFAULT_PRELOAD,
    "no_numpy": tuple(m for m in DEFAULT_PRELOAD if m != "numpy"),
    "none": (),
}
report = []
for r in range(rounds):
    row = {}
    with ForkFloor(workers) as floor:
        t = time.perf_counter()
        floor.run(jobs, 5.0)
        row["floor"] = time.perf_counter() - t
    names = list(sets) if r % 2 == 0 else list(reversed(sets))
    for name in names:
        with ExecutionPool(
            workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces", preload=sets[name]
        ) as pool:
            pool.run_batch(batch[: workers * 2])  # every worker started and warm
            t = time.perf_counter()
            pool.run_batch(batch)
            row[name] = time.perf_counter() - t
    report.append(row)
    print(r, {k: round(v, 3) for k, v in row.items()}, flush=True)
Path(out).write_text(json.dumps(report, indent=1) + "\n")
