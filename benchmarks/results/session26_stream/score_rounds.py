"""Probe (session 25's; session 26 adds the verifier on a stream): `score` of two trees at WORKERS
workers over batch sizes, in alternating rounds, each run with its timeline (score_timeline.py);
the bare-fork floor and the verifier alone, on a list and on an iterator (the last tree), once per
round.

    python score_rounds.py WORKERS SIZES ROUNDS OUT.json NAME=SITE,NAME=SITE,... EXTRA_SITE
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
trees = dict(tree.split("=", 1) for tree in sys.argv[5].split(","))
extra = sys.argv[6]
report = []


def env(tree):
    return {**os.environ, "PYTHONPATH": f"{trees[tree]}:{extra}"}


def score(tree: str, n: int) -> dict:
    launch = time.time()
    done = subprocess.run(
        [sys.executable, str(here / "score_timeline.py"), str(launch), "score", f"/tmp/sp{n}.jsonl",
         f"/tmp/sc{n}.jsonl", "--workers", workers, "--isolation", "namespaces", "--quiet", "--no-calibrate",
         "--timeout", "5", "-o", f"/tmp/sr_{tree}.jsonl"],
        capture_output=True, text=True, check=True, env=env(tree), cwd="/tmp",
    )  # fmt: skip
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
        verifier = subprocess.run(
            [sys.executable, str(here / "verifier_alone.py"), str(n), workers],
            capture_output=True, text=True, check=True, env=env(list(trees)[-1]), cwd="/tmp",
        )  # fmt: skip
        streamed = subprocess.run(
            [sys.executable, str(here / "verifier_alone.py"), str(n), workers, "stream"],
            capture_output=True, text=True, check=True, env=env(list(trees)[-1]), cwd="/tmp",
        )  # fmt: skip
        names = list(trees)
        order = names[r % len(names) :] + names[: r % len(names)]
        row = {
            "programs": n,
            "round": r,
            "floor": round(floor_s, 4),
            "verifier": float(verifier.stdout.split()[-1]),
            "verifier_stream": float(streamed.stdout.split()[-1]),
        }
        for tree in order:
            row[tree] = score(tree, n)
        row["same_rows"] = all(verdicts(tree) == verdicts(names[0]) for tree in names)
        report.append(row)
        print(
            n,
            r,
            "floor",
            row["floor"],
            "verifier",
            row["verifier"],
            "stream",
            row["verifier_stream"],
            " ".join(
                f"{t} {row[t]['process_end']} batch {row[t]['run_batch_end'] - row[t]['run_batch_begin']:.3f}"
                for t in names
            ),
            "same rows",
            row["same_rows"],
            flush=True,
        )
Path(out).write_text(json.dumps(report, indent=1) + "\n")
