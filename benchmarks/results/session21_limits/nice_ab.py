"""Probe (session 21): the pool's processes at a lower CPU priority than the routing process, in
alternating rounds: floor, engine alone and verifier at one worker count. NCR_NICE (a probe-only
variable the probe tree passes to workers) is each setting's nice increment."""

import json
import os
import statistics
import sys
import time

from nemo_code_rl.benchmarking.baselines import ForkFloor
from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

workers, rounds, settings = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
n = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
items = build_workload(n, 10)
pairs = [(parse_problem(item.problem_row()), item.completion) for item in items]
programs = [Program(item.source, list(item.inputs)) for item in items]
jobs = [(item.source, item.inputs) for item in items]
res = {s: {"engine": [], "verifier": []} for s in settings}
res["floor"] = []
with ForkFloor(workers) as floor:
    for r in range(rounds):
        t = time.perf_counter()
        floor.run(jobs, 5.0)
        res["floor"].append(time.perf_counter() - t)
        order = settings if r % 2 == 0 else settings[::-1]
        for s in order:
            os.environ["NCR_NICE"] = s
            with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces") as pool:
                v = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
                v.verify_batch(pairs[: 20 * workers])
                t = time.perf_counter()
                pool.run_batch(programs)
                res[s]["engine"].append(time.perf_counter() - t)
                t = time.perf_counter()
                v.verify_batch(pairs)
                res[s]["verifier"].append(time.perf_counter() - t)
        print(
            r,
            "floor",
            round(res["floor"][-1], 3),
            {s: {k: round(x[-1], 3) for k, x in res[s].items()} for s in settings},
            flush=True,
        )
summary = {"floor": statistics.mean(res["floor"])}
for s in settings:
    summary[s] = {k: statistics.mean(x) for k, x in res[s].items()}
    wins = {
        k: sum(a < b for a, b in zip(res[s][k], res[settings[0]][k], strict=True))
        for k in ("engine", "verifier")
    }
    summary[s]["faster_than_first_in"] = wins
print(json.dumps(summary, indent=1))
with open(sys.argv[5], "w") as handle:
    json.dump({"raw": res, "summary": summary, "workers": workers, "programs": n}, handle, indent=1)
