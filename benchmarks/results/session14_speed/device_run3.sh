#!/usr/bin/env bash
# Third device call, short: the pool's start at 16 workers in turns for main (before), this branch
# (after) and the reverted variant that imported the supervisor after forking the template
# (sup_after_fork), then scaling at 16 workers only, before and after; isolation=namespaces.
set -uo pipefail
D=$(cd "${D:-final-device-logs}" && pwd)
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before after sup_after_fork; do
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
on() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
echo "== pool start, 16 workers, in turns"
for turn in 1 2 3 4; do for side in before after sup_after_fork; do
on $side -c "
import time
from nemo_code_rl.engine import ExecutionPool, Program
s = time.perf_counter()
with ExecutionPool(workers=16, isolation='namespaces') as pool:
    r = time.perf_counter()
    pool.run(Program('print(1)', ['']))
print('$side pool start (16 workers) %.3f s' % (r - s))
"
done; done
echo "== scaling, 2000 programs, 16 workers"
on before $D/before/benchmarks/scaling.py --workers 16 --programs 2000 --isolation namespaces --json $OUT/scaling16_before_3.json 2>&1 | grep workers | sed 's/^/before /'
on after $D/after/benchmarks/scaling.py --workers 16 --programs 2000 --isolation namespaces --json $OUT/scaling16_after_3.json 2>&1 | grep workers | sed 's/^/after  /'
uptime
