import json
import pathlib

from nemo_code_rl.benchmarking.workload import build_workload

for n in (20, 2000):
    items = build_workload(n, 10)
    pathlib.Path(f"/tmp/p{n}.jsonl").write_text("".join(json.dumps(i.problem_row()) + "\n" for i in items))
    pathlib.Path(f"/tmp/c{n}.jsonl").write_text(
        "".join(json.dumps({"id": i.name, "completion": i.completion}) + "\n" for i in items)
    )
