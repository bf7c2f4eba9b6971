#!/usr/bin/env bash
# Session 22, device call 3: the working tree ("now"), compiled as pip compiles at install:
# scaling.py at 2 and 16 workers on 2,000 programs, two rounds (the figures); a pool's
# start alone in a fresh interpreter at 16 workers (against its start inside score, calls 1-2).
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s22
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date; env | grep -i bytecode
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
rm -rf /tmp/now
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now $D/now/benchmarks > /dev/null
run() { (cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 "$@"); }
echo "== pool start alone, 16 workers, namespaces"
for i in 1 2 3; do
run -c "
import time
t0 = time.perf_counter()
from nemo_code_rl.engine.pool import ExecutionPool
t1 = time.perf_counter()
pool = ExecutionPool(workers=16, isolation='namespaces')
t2 = time.perf_counter()
pool.close()
print('import', round(t1 - t0, 3), 'start', round(t2 - t1, 3))
"
done
for round in 1 2; do
  echo "== scaling, 2000 programs, round $round"
  run $D/now/benchmarks/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling2000_$round.json 2>&1 | grep -i "workers:\|rror\|warning\|share\|over"
done
uptime; date
