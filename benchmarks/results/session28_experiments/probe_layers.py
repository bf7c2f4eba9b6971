"""Session 28 probe: where the verifier's batch spends the time the engine's does not.

One pool (16 workers), 20,000 programs of bench's workload, each variant's run_batch timed alone,
with the CPU of this (routing) process during it, in rotating order:
  engine     - Program(source, inputs): no judge, no callbacks (probe_idle.py's engine row)
  judged     - the verifier's programs, built before the batch (judge specs in the jobs), no callbacks
  planned    - the same programs as the verifier's PlannedProgram list, no callbacks
  verifier   - Verifier.verify_batch, its run_batch call timed (plans, on_done, judging bookkeeping)
"""

import contextlib
import sys
import time

from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.engine.program import built
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

programs, workers, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
items = build_workload(programs, 10)
pairs = [(parse_problem(item.problem_row()), item.completion) for item in items]
with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces") as pool:
    pool.run_batch([Program("pass", [""]) for _ in range(4 * pool.size)])
    real = pool.run_batch
    captured = {}

    def timed(batch, **kwargs):
        captured["planned"] = list(batch)
        t, c = time.perf_counter(), time.process_time()
        try:
            return real(batch, **kwargs)
        finally:
            captured["seconds"] = (time.perf_counter() - t, time.process_time() - c)

    pool.run_batch = timed
    verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
    verifier.verify_batch(pairs[: 4 * workers])
    variants = ["engine", "judged", "planned", "verifier"]
    for round_ in range(rounds):
        for name in variants[round_ % 4 :] + variants[: round_ % 4]:
            if name == "verifier":
                verifier.verify_batch(pairs)
                wall, cpu = captured["seconds"]
            else:
                if name == "engine":
                    batch = [Program(item.source, item.inputs) for item in items]
                else:
                    verifier.verify_batch(pairs[:1])
                    verifier_plan = []

                    def grab(batch, plan=verifier_plan, **kwargs):
                        plan.extend(batch)
                        return [[] for _ in batch]

                    pool.run_batch = grab
                    # the verifier's plan, captured; no program runs (its bookkeeping then fails)
                    with contextlib.suppress(Exception):
                        verifier.verify_batch(pairs)
                    pool.run_batch = timed
                    batch = [built(p) for p in verifier_plan] if name == "judged" else verifier_plan
                t, c = time.perf_counter(), time.process_time()
                real(batch)
                wall, cpu = time.perf_counter() - t, time.process_time() - c
            print(f"round {round_} {name:9s} batch {wall:.3f} s, routing CPU {cpu:.3f} s", flush=True)
