"""The verifier alone on bench's workload, as scaling.py times it (a warm pool, one verify_batch):
    python verifier_alone.py PROGRAMS WORKERS [stream]
prints the seconds; with "stream" the pairs are given as an iterator (read as the batch runs)."""

import sys
import time

from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

programs, workers = int(sys.argv[1]), int(sys.argv[2])
items = build_workload(programs, 10)
pairs = [(parse_problem(item.problem_row()), item.completion) for item in items]
with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces") as pool:
    pool.run_batch([Program("pass", [""]) for _ in range(4 * workers)])  # every worker started and warm
    verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
    start = time.perf_counter()
    verifier.verify_batch(iter(pairs) if sys.argv[3:] == ["stream"] else pairs)
    print(round(time.perf_counter() - start, 4))
