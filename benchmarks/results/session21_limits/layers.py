"""Probe (session 21): the engine alone and the verifier at one worker count, on the tree this
interpreter imports; the routing process's CPU during the verifier's batch. One JSON line."""

import json
import sys
import time

from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

workers, n, repeats = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
items = build_workload(n, 10)
pairs = [(parse_problem(item.problem_row()), item.completion) for item in items]
programs = [Program(item.source, list(item.inputs)) for item in items]
found = {"engine": [], "verifier": [], "verifier_parent_cpu": []}
with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces") as pool:
    verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
    verifier.verify_batch(pairs[: 20 * workers])
    for _ in range(repeats):
        t = time.perf_counter()
        pool.run_batch(programs)
        found["engine"].append(time.perf_counter() - t)
        c, t = time.process_time(), time.perf_counter()
        verifier.verify_batch(pairs)
        found["verifier"].append(time.perf_counter() - t)
        found["verifier_parent_cpu"].append(time.process_time() - c)
print(json.dumps(found))
