#!/usr/bin/env bash
# First device call: before (main at 3d4ac9f) and after (this session's tree), both from
# `git archive`, installed side by side and run in turns: worker_cost (CPU and page faults per
# program, 2 workers), the pool's start, parent_cost at 16 workers (machine CPU per 1,000
# programs and score's fixed costs) and two scaling rounds (2,000 programs x 10 stdin tests, 2 and
# 16 workers). isolation=namespaces: the host has no pids cgroup controller.
set -uo pipefail
D=${D:-final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before after; do
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
  cp -r $D/$side/benchmarks /tmp/bench_$side
done
before() { (cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 "$@"); }
after() { (cd /tmp && PYTHONPATH=/tmp/after:/tmp/site python3 "$@"); }
echo "== worker_cost, 2 workers, 600 programs x 10 tests, namespaces"
for side in before after; do
  $side /tmp/bench_$side/worker_cost.py --programs 600 --tests 10 --isolation namespaces --repeats 2 2>&1 | grep tests= | sed "s/^/$side /"
done
echo "== pool start, 16 workers, in turns"
for turn in 1 2; do for side in before after; do
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
for side in before after; do
  $side /tmp/bench_$side/parent_cost.py --programs 2000 --workers 16 --isolation namespaces > $OUT/parent_cost_$side.log 2>&1; grep -v "^{" $OUT/parent_cost_$side.log | sed "s/^/$side /"
done
for round in 1 2; do
  echo "== scaling round $round, 2000 programs, 2 and 16 workers"
  order="before after"; [ $round = 2 ] && order="after before"
  for side in $order; do
    $side /tmp/bench_$side/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_$round.json 2>&1 | grep workers | sed "s/^/$side /"
  done
done
uptime
