#!/usr/bin/env bash
# Session 22, device call 10: call 8 again with the thread counts the pool gives its workers
# (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and MKL_NUM_THREADS at 1), which call 8 did not set.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s22
echo "== device"; nproc; python3 --version; uptime; date
if [ ! -d /tmp/now ]; then
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now > /dev/null
fi
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
for isolation in namespaces none; do
for preload in default numpy stdlib; do
for k in 1 16; do
for i in 1 2; do
(cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 $S/start_phases.py $k $isolation $preload)
done; done; done; done
uptime; date
