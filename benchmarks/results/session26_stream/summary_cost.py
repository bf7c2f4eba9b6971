"""summarize() on 48,000 rows of 10 tests (score's results file of mk.py's 8,000 programs, six
times over, one row without code): best of five, and a digest of what it returned.

    PYTHONPATH=TREE python summary_cost.py 8000.results.jsonl
"""

import gc
import hashlib
import json
import sys
import time
from pathlib import Path

from nemo_code_rl.unit_tests import scoring

gc.disable()
rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
rows = [{**row, "id": f"{row['id']}-{copy}"} for copy in range(6) for row in rows]
rows[3] = {**rows[3], "format_ok": False}
best, summary = 1e9, None
for _ in range(5):
    start = time.perf_counter()
    summary = scoring.summarize(rows)
    best = min(best, time.perf_counter() - start)
print(
    f"{best:.4f} s",
    hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()[:16],
    summary["verdicts"],
)
