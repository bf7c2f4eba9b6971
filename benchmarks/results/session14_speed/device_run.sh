#!/usr/bin/env bash
# Device call: before (main, from `git archive main`) and after (this tree), in turns:
# worker_cost (CPU and page faults per program, 2 workers) and scaling (2,000 programs x 10
# stdin tests, 2 and 16 workers), isolation=namespaces (the host has no pids cgroup controller).
set -uo pipefail
# D: a carried folder with whl/, before/ (main) and after/ (this branch, from `git archive`):
# the device receives the session's checkout, not a helper's worktree.
D=${D:-final-device-logs}
ROUNDS=${ROUNDS:-1}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/after $D/after >/dev/null 2>&1 || { echo install after failed; exit 1; }
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/before $D/before >/dev/null 2>&1 || { echo install before failed; exit 1; }
before() { (cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 "$@"); }
after() { (cd /tmp && PYTHONPATH=/tmp/after:/tmp/site python3 "$@"); }
cp -r $D/before/benchmarks /tmp/bench_before; cp -r $D/after/benchmarks /tmp/bench_after
echo "== worker_cost, 2 workers, 600 programs x 10 tests, namespaces"
before /tmp/bench_before/worker_cost.py --programs 600 --tests 10 --isolation namespaces --repeats 2 2>&1 | grep tests= | sed 's/^/before /'
after /tmp/bench_after/worker_cost.py --programs 600 --tests 10 --isolation namespaces --repeats 2 2>&1 | grep tests= | sed 's/^/after  /'
echo "== worker start: a 16-worker pool, started 3 times"
for side in before after; do
$side -c "
import time
from nemo_code_rl.engine import ExecutionPool, Program
for _ in range(3):
    s = time.perf_counter()
    with ExecutionPool(workers=16, isolation='namespaces') as pool:
        r = time.perf_counter()
        pool.run(Program('print(1)', ['']))
    print('$side pool start (16 workers) %.3f s' % (r - s))
"
done
echo "== import of the CLI (python -X importtime), 3 times"
for side in before after; do for i in 1 2 3; do $side -X importtime -c "import nemo_code_rl.cli" 2>&1 | tail -1 | sed "s/^/$side /"; done; done
for round in $(seq 1 $ROUNDS); do
echo "== scaling round $round, 2000 programs, 2 and 16 workers"
before /tmp/bench_before/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_before_$round.json 2>&1 | grep workers | sed 's/^/before /'
after /tmp/bench_after/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_after_$round.json 2>&1 | grep workers | sed 's/^/after  /'
done
uptime
