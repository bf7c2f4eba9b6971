"""At 16 workers: the floor, and the verifier with the parent's cyclic GC on / off during the batch,
with the verifier's time split into prelude (before run_batch), run, and post."""

import gc
import json
import pathlib
import sys
import time

from nemo_code_rl.benchmarking.baselines import ForkFloor
from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits
from nemo_code_rl.engine import pool as poolmod
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

workers = int(sys.argv[1])
rounds = int(sys.argv[2])
items = build_workload(2000, 10)
jobs = [(item.source, item.inputs) for item in items]
rows = [item.problem_row() for item in items]
pairs = [(parse_problem(row), item.completion) for row, item in zip(rows, items, strict=True)]
marks = {}
orig = poolmod.WorkerPool.run_batch


def rb(self, *a, **k):
    marks["in"] = time.perf_counter()
    try:
        return orig(self, *a, **k)
    finally:
        marks["out"] = time.perf_counter()


poolmod.WorkerPool.run_batch = rb
pauses = []


_s = {}


def cb(phase, info):
    if phase == "start":
        _s["t"] = time.perf_counter()
    else:
        pauses.append((info["generation"], time.perf_counter() - _s["t"]))


gc.callbacks.append(cb)
out = {"floor": [], "gc_on": [], "gc_off": []}
with (
    ForkFloor(workers) as floor,
    ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces") as pool,
):
    verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
    verifier.verify_batch(pairs[:200])
    floor.run(jobs[:200], 5.0)
    for r in range(rounds):
        t = time.perf_counter()
        floor.run(jobs, 5.0)
        out["floor"].append(round(time.perf_counter() - t, 4))
        for mode in ("gc_on", "gc_off") if r % 2 == 0 else ("gc_off", "gc_on"):
            if mode == "gc_off":
                gc.disable()
            del pauses[:]
            t = time.perf_counter()
            verifier.verify_batch(pairs)
            e = time.perf_counter()
            gc.enable()
            out[mode].append(
                {
                    "total": round(e - t, 4),
                    "prelude": round(marks["in"] - t, 4),
                    "run": round(marks["out"] - marks["in"], 4),
                    "post": round(e - marks["out"], 4),
                    "gc_ms": [round(sum(d for g, d in pauses if g == k) * 1e3, 1) for k in range(3)],
                }
            )
        print(r, out["floor"][-1], out["gc_on"][-1], out["gc_off"][-1], flush=True)
pathlib.Path(sys.argv[3]).write_text(json.dumps(out, indent=1))
