"""The verifier alone on bench's workload (a warm pool, one verify_batch), with the full
collections that ran while it routed:
    python verifier_gc.py PROGRAMS WORKERS
prints one JSON line: seconds, and each full collection's duration."""

import gc
import json
import sys
import time

from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

programs, workers = int(sys.argv[1]), int(sys.argv[2])
items = build_workload(programs, 10)
pairs = [(parse_problem(item.problem_row()), item.completion) for item in items]
full, began = [], [0.0]


def on_collection(phase, info):
    if info["generation"] != 2 or gc.isenabled():
        return
    if phase == "start":
        began[0] = time.perf_counter()
    else:
        full.append(round(time.perf_counter() - began[0], 4))


with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces") as pool:
    pool.run_batch([Program("pass", [""]) for _ in range(4 * workers)])  # every worker started and warm
    verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
    gc.callbacks.append(on_collection)
    start = time.perf_counter()
    verifier.verify_batch(pairs)
    seconds = time.perf_counter() - start
print(json.dumps({"seconds": round(seconds, 4), "periodic_collections": full}))
