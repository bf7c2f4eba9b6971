"""Probe (session 22): `score` of two trees at 16 workers over batch sizes, in alternating rounds,
each run with its timeline (score_timeline.py), and the bare-fork floor once per round.

    python score_sizes.py WORKERS SIZES ROUNDS OUT.json BEFORE_SITE NOW_SITE EXTRA_SITE
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from nemo_code_rl.benchmarking.baselines import ForkFloor
from nemo_code_rl.benchmarking.workload import build_workload

here = Path(__file__).parent
workers, sizes, rounds, out = (
    sys.argv[1],
    [int(s) for s in sys.argv[2].split(",")],
    int(sys.argv[3]),
    sys.argv[4],
)
trees = {"before": sys.argv[5], "now": sys.argv[6]}
extra = sys.argv[7]
report = []


def score(tree: str, n: int) -> dict:
    launch = time.time()
    env = {**os.environ, "PYTHONPATH": f"{trees[tree]}:{extra}"}
    done = subprocess.run(
        [
            sys.executable,
            str(here / "score_timeline.py"),
            str(launch),
            "score",
            f"/tmp/sp{n}.jsonl",
            f"/tmp/sc{n}.jsonl",
            "--workers",
            workers,
            "--isolation",
            "namespaces",
            "--quiet",
            "--no-calibrate",
            "--timeout",
            "5",
            "-o",
            f"/tmp/sr_{tree}.jsonl",
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd="/tmp",
    )
    marks = json.loads(done.stdout.strip().splitlines()[-1])
    marks["process_end"] = round(time.time() - launch, 4)
    return marks


def verdicts(tree: str) -> list:
    rows = [json.loads(line) for line in Path(f"/tmp/sr_{tree}.jsonl").read_text().splitlines()]
    return [(r["index"], r["status"], r["passed"], [t["verdict"] for t in r["tests"]]) for r in rows]


for n in sizes:
    items = build_workload(n, 10)
    Path(f"/tmp/sp{n}.jsonl").write_text("".join(json.dumps(i.problem_row()) + "\n" for i in items))
    Path(f"/tmp/sc{n}.jsonl").write_text(
        "".join(json.dumps({"id": i.name, "completion": i.completion}) + "\n" for i in items)
    )
    jobs = [(item.source, item.inputs) for item in items]
    for r in range(rounds):
        with ForkFloor(int(workers)) as floor:
            t = time.perf_counter()
            floor.run(jobs, 5.0)
            floor_s = time.perf_counter() - t
        order = ["before", "now"] if r % 2 == 0 else ["now", "before"]
        row = {"programs": n, "round": r, "floor": round(floor_s, 4)}
        for tree in order:
            row[tree] = score(tree, n)
        same = verdicts("before") == verdicts("now")
        row["same_rows"] = same
        report.append(row)
        print(
            n,
            r,
            "floor",
            row["floor"],
            "before",
            row["before"]["process_end"],
            "now",
            row["now"]["process_end"],
            "same rows",
            same,
            flush=True,
        )
Path(out).write_text(json.dumps(report, indent=1) + "\n")
