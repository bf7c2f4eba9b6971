"""The verifier at 16 workers, split: before run_batch (prelude), run_batch, after (post); and the
time from verify_batch's call to the first program handed to a worker, and the parent's GC pauses."""

import gc
import json
import pathlib
import sys
import time

from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits
from nemo_code_rl.engine import pool as poolmod
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

workers, rounds = int(sys.argv[1]), int(sys.argv[2])
items = build_workload(2000, 10)
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
send = poolmod._Worker.send


def first_send(self, frame):
    marks.setdefault("first_send", time.perf_counter())
    return send(self, frame)


poolmod._Worker.send = first_send
pauses = []


_s = {}


def cb(phase, info):
    if phase == "start":
        _s["t"] = time.perf_counter()
    else:
        pauses.append((info["generation"], time.perf_counter() - _s["t"]))


gc.callbacks.append(cb)
out = []
with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces") as pool:
    verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
    verifier.verify_batch(pairs[:200])
    for _ in range(rounds):
        del pauses[:]
        marks.clear()
        t = time.perf_counter()
        verifier.verify_batch(pairs)
        e = time.perf_counter()
        out.append(
            {
                "total": round(e - t, 4),
                "to_first_send": round(marks["first_send"] - t, 4),
                "prelude": round(marks["in"] - t, 4),
                "run": round(marks["out"] - marks["in"], 4),
                "post": round(e - marks["out"], 4),
                "gc_ms": [round(sum(d for g, d in pauses if g == k) * 1e3, 1) for k in range(3)],
                "gc_max_ms": round(max((d for g, d in pauses), default=0) * 1e3, 1),
            }
        )
        print(out[-1], flush=True)
pathlib.Path(sys.argv[3]).write_text(json.dumps(out, indent=1))
