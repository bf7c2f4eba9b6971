"""Probe (session 21): score, the verifier and the bare-fork floor at one worker count over batch
sizes, to separate score's fixed cost (start, imports, reading) from its cost per program."""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nemo_code_rl.benchmarking.baselines import ForkFloor
from nemo_code_rl.benchmarking.workload import build_workload
from nemo_code_rl.engine import ExecutionPool, Limits
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig

workers, sizes, repeats, out = (
    int(sys.argv[1]),
    [int(s) for s in sys.argv[2].split(",")],
    int(sys.argv[3]),
    sys.argv[4],
)
report = {"workers": workers, "sizes": {}}
folder = Path(tempfile.mkdtemp())
for n in sizes:
    items = build_workload(n, 10)
    rows = [item.problem_row() for item in items]
    (folder / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "c.jsonl").write_text(
        "".join(json.dumps({"id": i.name, "completion": i.completion}) + "\n" for i in items)
    )
    jobs = [(item.source, item.inputs) for item in items]
    pairs = [(parse_problem(row), item.completion) for row, item in zip(rows, items, strict=True)]
    found = {"floor": [], "verifier": [], "score": []}
    cmd = [
        sys.executable,
        "-m",
        "nemo_code_rl.cli",
        "score",
        str(folder / "p.jsonl"),
        str(folder / "c.jsonl"),
        "--workers",
        str(workers),
        "--isolation",
        "namespaces",
        "--quiet",
        "--no-calibrate",
        "--timeout",
        "5",
        "-o",
        str(folder / "r.jsonl"),
    ]
    for _ in range(repeats):
        with ForkFloor(workers) as floor:
            t = time.perf_counter()
            floor.run(jobs, 5.0)
            found["floor"].append(time.perf_counter() - t)
        with ExecutionPool(workers=workers, limits=Limits(timeout_s=5.0), isolation="namespaces") as pool:
            verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=pool)
            t = time.perf_counter()
            verifier.verify_batch(pairs)
            found["verifier"].append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        found["score"].append(time.perf_counter() - t)
    best = {k: min(v) for k, v in found.items()}
    best["score_over_floor"] = best["score"] / best["floor"]
    best["verifier_over_floor"] = best["verifier"] / best["floor"]
    best["score_minus_verifier"] = best["score"] - best["verifier"]
    report["sizes"][n] = {"runs": found, "best": best}
    print(n, {k: round(v, 3) for k, v in best.items()}, flush=True)
Path(out).write_text(json.dumps(report, indent=1) + "\n")
