#!/usr/bin/env bash
# Second device call: before (main) and after (this branch) in turns: the pool's start at 16
# workers, parent_cost at 16 workers (machine CPU per 1,000 programs and score's fixed costs),
# and a second scaling round; isolation=namespaces.
set -uo pipefail
D=${D:-final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/after $D/after >/dev/null 2>&1 || { echo install after failed; exit 1; }
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/before $D/before >/dev/null 2>&1 || { echo install before failed; exit 1; }
before() { (cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 "$@"); }
after() { (cd /tmp && PYTHONPATH=/tmp/after:/tmp/site python3 "$@"); }
cp -r $D/before/benchmarks /tmp/bench_before; cp -r $D/after/benchmarks /tmp/bench_after
echo "== pool start, 16 workers, in turns"
for turn in 1 2 3; do for side in before after; do
$side -c "
import time
from nemo_code_rl.engine import ExecutionPool, Program
s = time.perf_counter()
with ExecutionPool(workers=16, isolation='namespaces') as pool:
    r = time.perf_counter()
    pool.run(Program('print(1)', ['']))
print('$side pool start (16 workers) %.3f s' % (r - s))
"
done; done
echo "== parent_cost, 2000 programs, 16 workers"
before /tmp/bench_before/parent_cost.py --programs 2000 --workers 16 --isolation namespaces > $OUT/parent_cost_before.log 2>&1; grep -v "^{" $OUT/parent_cost_before.log | sed 's/^/before /'
after /tmp/bench_after/parent_cost.py --programs 2000 --workers 16 --isolation namespaces > $OUT/parent_cost_after.log 2>&1; grep -v "^{" $OUT/parent_cost_after.log | sed 's/^/after  /'
echo "== scaling round 2, 2000 programs, 2 and 16 workers"
after /tmp/bench_after/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_after_2.json 2>&1 | grep workers | sed 's/^/after  /'
before /tmp/bench_before/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_before_2.json 2>&1 | grep workers | sed 's/^/before /'
uptime
