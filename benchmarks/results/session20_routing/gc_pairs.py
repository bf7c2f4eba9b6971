"""The verifier (or the engine alone: a 4th argument "engine") at 16 workers, the collector
paused while routing (as the tree does) or not (the pause replaced by a null context), in
alternating pairs."""

import contextlib
import json
import pathlib
import sys
import time

from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.engine import pool as poolmod
from nemo_code_rl.unit_tests import verification
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

workers, pairs_n = int(sys.argv[1]), int(sys.argv[2])
layer = sys.argv[4] if len(sys.argv) > 4 else "verifier"
items = build_workload(2000, 10)

programs = [Program(item.source, list(item.inputs)) for item in items]
rows = [item.problem_row() for item in items]
pairs = [(parse_problem(row), item.completion) for row, item in zip(rows, items, strict=True)]
paused = (poolmod.collector_paused_while_routing, verification.collector_paused_while_routing)


def mode(on):
    poolmod.collector_paused_while_routing, verification.collector_paused_while_routing = (
        paused if on else (contextlib.nullcontext, contextlib.nullcontext)
    )


out = {"paused": [], "collecting": []}
with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces") as pool:
    verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
    verifier.verify_batch(pairs[:200])
    for r in range(pairs_n):
        for name in ("paused", "collecting") if r % 2 == 0 else ("collecting", "paused"):
            mode(name == "paused")
            t = time.perf_counter()
            verifier.verify_batch(pairs) if layer == "verifier" else pool.run_batch(programs)
            out[name].append(round(time.perf_counter() - t, 4))
        print(r, out["paused"][-1], out["collecting"][-1], flush=True)
mean = {k: sum(v) / len(v) for k, v in out.items()}
out["mean"] = mean
out["paired_gain"] = sum(c - p for p, c in zip(out["paused"], out["collecting"], strict=True)) / pairs_n
print(json.dumps({"mean": mean, "paired_gain_s": out["paired_gain"]}))
pathlib.Path(sys.argv[3]).write_text(json.dumps(out, indent=1))
