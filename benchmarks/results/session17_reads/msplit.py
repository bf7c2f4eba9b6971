"""The machine's CPU per program at W workers, split into user, system, irq and softirq time, with
the context switches per program, for the floor, the engine and the verifier on bench's workload
(10 tests per program). Run on an otherwise idle host.

    python msplit.py WORKERS PROGRAMS ISOLATION floor,engine,verifier
"""

import os
import sys
import time

from nemo_code_rl.benchmarking.baselines import ForkFloor
from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

TICK = os.sysconf("SC_CLK_TCK")


def snap() -> dict:
    with open("/proc/stat") as f:
        lines = f.read().splitlines()
    cpu = [int(v) for v in lines[0].split()[1:]]
    ctxt = next(int(line.split()[1]) for line in lines if line.startswith("ctxt"))
    return {
        "user": (cpu[0] + cpu[1]) / TICK,
        "system": cpu[2] / TICK,
        "irq": cpu[5] / TICK,
        "softirq": cpu[6] / TICK,
        "ctxt": ctxt,
        "t": time.perf_counter(),
    }


def diff(a: dict, b: dict, n: int) -> dict:
    d = {k: (b[k] - a[k]) for k in a}
    out = {k: round(d[k] / n * 1e3, 3) for k in ("user", "system", "irq", "softirq")}
    out["busy"] = round(sum(out.values()), 3)
    out["ctxt"] = round(d["ctxt"] / n, 1)
    out["wall"] = round(d["t"], 3)
    return out


def main() -> None:
    workers, programs, isolation = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    layers = sys.argv[4].split(",")
    items = build_workload(programs, 10)
    jobs = [(it.source, it.inputs) for it in items]
    progs = [Program(it.source, list(it.inputs)) for it in items]
    pairs = [(parse_problem(it.problem_row()), it.completion) for it in items]

    def measure(name: str, run) -> None:
        run()
        for _ in range(2):
            a = snap()
            run()
            b = snap()
            print(name, workers, diff(a, b, programs), flush=True)

    if "floor" in layers:
        with ForkFloor(workers) as floor:
            measure("floor", lambda: floor.run(jobs, 5.0))
    with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation=isolation) as pool:
        if "engine" in layers:
            measure("engine", lambda: pool.run_batch(progs))
        if "verifier" in layers:
            v = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
            measure("verifier", lambda: v.verify_batch(pairs))


main()
