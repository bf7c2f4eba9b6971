"""The bare-fork floor as ``score`` meets it: from a fresh interpreter, workers not yet started.

``ForkFloor`` is timed with its processes already running; ``score`` pays its interpreter, its
imports and its workers' start inside the measured time. This runs the floor the same way (start
the interpreter, start the forkers, read the jobs from a file, run them), so that both can be
compared end to end too:

    python -m nemo_code_rl.benchmarking.cold_floor JOBS.json WORKERS
"""

from __future__ import annotations

import json
import sys

from nemo_code_rl.benchmarking.baselines import ForkFloor


def main(argv: list[str]) -> int:
    path, workers = argv[0], int(argv[1])
    with open(path) as handle:
        jobs = [(source, inputs) for source, inputs in json.load(handle)]
    with ForkFloor(workers) as floor:  # its start waits for every forker (``score`` overlaps reading)
        floor.run(jobs, 5.0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
