"""Session 28 probe: how long each worker's supervisor waits for its next job (after sending a
program's results) during one batch at 16 workers, for the engine alone and for the verifier."""

import sys
import time

from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

layer, programs, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
items = build_workload(programs, 10)
with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces") as pool:
    pool.run_batch([Program("pass", [""]) for _ in range(4 * pool.size)])
    start = time.perf_counter()
    if layer == "engine":
        pool.run_batch([Program(item.source, item.inputs) for item in items])
    else:
        pairs = [(parse_problem(item.problem_row()), item.completion) for item in items]
        start = time.perf_counter()
        Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool).verify_batch(pairs)
    print(f"{layer} {programs} batch {time.perf_counter() - start:.3f} s", flush=True)
