"""Wall time and idle CPU share of the floor, the engine and the verifier, by worker count.

python idle_probe.py PROGRAMS FLOOR_WORKERS ENGINE_WORKERS   (e.g. 2000 16,2 16,17,18,20,2)
"""

import sys
import time
from pathlib import Path

from nemo_code_rl.benchmarking.baselines import ForkFloor
from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits, Program
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig


def cpu() -> tuple[int, int]:
    """All and idle (idle + iowait) ticks of the machine so far."""
    ticks = list(map(int, Path("/proc/stat").read_text().splitlines()[0].split()[1:]))
    return sum(ticks), ticks[3] + ticks[4]


def timed(label: str, run) -> None:
    best = None
    for _ in range(2):
        t0, (a0, i0) = time.perf_counter(), cpu()
        run()
        t1, (a1, i1) = time.perf_counter(), cpu()
        result = (t1 - t0, 100 * (i1 - i0) / max(1, a1 - a0))
        best = result if best is None or result[0] < best[0] else best
    print(f"{label:16s} wall {best[0]:.3f} idle {best[1]:.1f}%", flush=True)


def main() -> None:
    n = int(sys.argv[1])
    floors = [int(x) for x in sys.argv[2].split(",")]
    engines = [int(x) for x in sys.argv[3].split(",")]
    items = build_workload(n, 10)
    jobs = [(it.source, it.inputs) for it in items]
    programs = [Program(it.source, list(it.inputs)) for it in items]
    pairs = [(parse_problem(it.problem_row()), it.completion) for it in items]
    for workers in floors:
        with ForkFloor(workers) as floor:
            timed(f"floor {workers}", lambda floor=floor: floor.run(jobs, 5.0))
    for workers in engines:
        with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces") as pool:
            pool.run_batch(programs[:64])
            timed(f"engine {workers}", lambda pool=pool: pool.run_batch(programs))
            verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
            timed(f"verifier {workers}", lambda verifier=verifier: verifier.verify_batch(pairs))


if __name__ == "__main__":
    main()
