#!/usr/bin/env bash
# Session 23, device call 1: idle CPU during each layer's batch at 16 workers, and the engine and
# the verifier with more workers than cores.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s23
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now > /dev/null
nproc; python3 --version
for round in 1 2; do
  echo "== round $round"
  (cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 $S/idle_probe.py 2000 16,2 16,17,18,20,2)
done
