#!/usr/bin/env bash
# Session 22, device call 8: which phase of a worker's start slows down when 16 start at once
# (start_phases.py: the worker's imports, isolate_worker, the template's fork and preloads), by
# preload set and isolation.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s22
echo "== device"; nproc; python3 --version; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
rm -rf /tmp/now
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now > /dev/null
for isolation in namespaces none; do
for preload in default numpy stdlib none; do
for k in 1 16; do
for i in 1 2; do
(cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 $S/start_phases.py $k $isolation $preload)
done; done; done; done
uptime; date
