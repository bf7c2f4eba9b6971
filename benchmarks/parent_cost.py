"""Where the parent process spends its time: CPU seconds per 1,000 programs in the process that
calls ``run_batch`` / ``verify_batch`` (what limits many workers: one parent routes every program).

On ``bench``'s workload (stdin programs, 10 tests each), with few workers (the parent's CPU per
program does not depend on how many workers there are), it reports the parent's CPU
(``time.process_time``) per 1,000 programs for the engine, the verifier, and the verifier as
``score`` drives it (a callback per finished program), and optionally a cProfile of one layer.

    python benchmarks/parent_cost.py --programs 2000 --workers 2 --isolation namespaces
    python benchmarks/parent_cost.py --profile verifier_streaming   # and the top of its cProfile
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import time

from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.problems import parse_problem
from nemo_code_rl.verification import Verifier, VerifierConfig


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--isolation", default="namespaces")
    parser.add_argument("--profile", help="a layer to profile (engine, verifier, verifier_streaming)")
    args = parser.parse_args()
    items = build_workload(args.programs, args.tests)
    programs = [Program(item.source, list(item.inputs)) for item in items]
    rows = [
        {"id": item.name, "question": "",
         "input_output": json.dumps({"inputs": list(item.inputs), "outputs": list(item.expected)})}
        for item in items
    ]  # fmt: skip
    problems = [parse_problem(row) for row in rows]
    pairs = [(p, f"```python\n{item.source}```") for p, item in zip(problems, items, strict=True)]
    with ExecutionPool(workers=args.workers, limits=Limits(timeout_s=5.0), isolation=args.isolation) as pool:
        verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
        layers = {
            "engine": lambda: pool.run_batch(programs),
            "verifier": lambda: verifier.verify_batch(pairs),
            "verifier_streaming": lambda: verifier.verify_batch(pairs, on_verified=lambda i, v: None),
        }
        pool.run_batch(programs[:50])  # warm
        report = {}
        for name, run in layers.items():
            profiler = cProfile.Profile() if name == args.profile else None
            cpu, wall = time.process_time(), time.perf_counter()
            if profiler:
                profiler.enable()
            run()
            if profiler:
                profiler.disable()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            per_1000 = round(cpu / args.programs * 1000, 4)
            report[name] = {"parent_cpu_s_per_1000": per_1000, "wall_s": round(wall, 3)}
            print(name, report[name], flush=True)
            if profiler:
                pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
