#!/usr/bin/env bash
# Session 22, device call 5: what a pool's start costs by worker count and isolation (compiled, a
# fresh interpreter per start): is the 16-worker start (0.41-0.44 s, call 3) one worker's start, or
# 16 starts that contend?
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
rm -rf /tmp/now
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now > /dev/null
for isolation in namespaces none; do
for workers in 1 4 16; do
for preload in default bare; do
for i in 1 2 3; do
(cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 -c "
import time
from nemo_code_rl.engine.pool import ExecutionPool, DEFAULT_PRELOAD
t = time.perf_counter()
pool = ExecutionPool(workers=$workers, isolation='$isolation', preload=DEFAULT_PRELOAD if '$preload' == 'default' else ())
s = time.perf_counter() - t
pool.close()
print('$isolation', 'workers', $workers, '$preload', 'start', round(s, 3))
")
done; done; done; done
uptime; date
