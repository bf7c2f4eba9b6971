#!/usr/bin/env bash
# Session 22, device call 13: why a real worker's preloads took 0.34 s (call 12) where the replica's
# took 0.05-0.09 s (calls 10-11): the same machine, alternating, the replica against the real pool
# as it is, writing no bytecode, and with numpy or the standard library alone.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s22
if [ ! -d /tmp/now ]; then
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now > /dev/null
fi
ls /opt/torch/.venv/lib/python3.12/site-packages/numpy/__pycache__ 2>&1 | head -2
ls /opt/torch/.venv/lib/python3.12/site-packages/numpy/_core/__pycache__ 2>&1 | wc -l
for round in 1 2 3; do
  for variant in plain no_bytecode numpy stdlib; do
    (cd /tmp && PYTHONPATH=/tmp/now python3 $S/real_vs_replica.py $variant namespaces)
  done
  (cd /tmp && OPENBLAS_NUM_THREADS=1 PYTHONPATH=/tmp/now python3 $S/start_phases.py 1 namespaces default)
done
