import json
import sys
from pathlib import Path

from nemo_code_rl.benchmarking.workload import build_workload

n, d = int(sys.argv[1]), Path(sys.argv[2])
d.mkdir(parents=True, exist_ok=True)
items = build_workload(n, 10)
(d / f"sp{n}.jsonl").write_text("".join(json.dumps(i.problem_row()) + "\n" for i in items))
(d / f"sc{n}.jsonl").write_text(
    "".join(json.dumps({"id": i.name, "completion": i.completion}) + "\n" for i in items)
)
