"""Per-program CPU of the routing process's callbacks on results as a worker returns them (10
tests, a third of them wrong): the verifier's settle and verification, and score's row (its
dict and JSON); and the summary per row. Best of five; the problems are mk.py's 2,000:

    python mk.py 2000 /tmp/s26 && PYTHONPATH=TREE python callback_cost.py
"""

import gc
import json
import pickle
import time
from pathlib import Path

from nemo_code_rl.engine.results import ExecutionResult, Judgement
from nemo_code_rl.outcomes import Verdict
from nemo_code_rl.unit_tests import scoring
from nemo_code_rl.unit_tests.problems import parse_problem
from nemo_code_rl.unit_tests.verification import Verifier, VerifierConfig, _Job

gc.disable()
rows = [json.loads(line) for line in Path("/tmp/s26/sp2000.jsonl").read_text().splitlines()]
problems = [parse_problem(r) for r in rows]
ok = [
    ExecutionResult(Verdict.OK, 0, "", "", 0, 0, "", None, 0.012, 0.011, 12345678, Judgement(Verdict.PASSED))
    for _ in range(10)
]
bad = [
    ExecutionResult(
        Verdict.OK,
        0,
        "",
        "",
        0,
        0,
        "",
        None,
        0.012,
        0.011,
        12345678,
        Judgement(Verdict.WRONG_ANSWER, "expected 5, got 4", "4"),
    )
    for _ in range(10)
]
frames = [pickle.dumps(ok if i % 3 else bad) for i in range(len(problems))]


class NoPool:
    asks_stop_when_here = True


verifier = Verifier(VerifierConfig(timeout_s=5.0, calibrate=False), pool=NoPool())
best = {}
for _ in range(5):
    jobs = [_Job(i, p, "print(1)", list(range(10))) for i, p in enumerate(problems)]
    results = [pickle.loads(f) for f in frames]
    t = time.perf_counter()
    vs = []
    for job, r in zip(jobs, results, strict=True):
        verifier._settle(job, r)
        vs.append(verifier._verification(job))
    t1 = time.perf_counter()
    out = []
    for i, v in enumerate(vs):
        result = v.to_dict()
        result.pop("problem_id")
        base = {"id": "x", "index": i, "sample": 0}
        out.append(json.dumps({**base, "status": scoring._status(result), **result}))
    t2 = time.perf_counter()
    rowsd = [json.loads(o) for o in out] * 10
    t3 = time.perf_counter()
    scoring.summarize(rowsd)
    t4 = time.perf_counter()
    for k, d in (("verification", t1 - t), ("row", t2 - t1)):
        best[k] = min(best.get(k, 1e9), d / len(jobs) * 1e6)
    best["summarize per row"] = min(best.get("summarize per row", 1e9), (t4 - t3) / len(rowsd) * 1e6)
print({k: round(v, 2) for k, v in best.items()})
