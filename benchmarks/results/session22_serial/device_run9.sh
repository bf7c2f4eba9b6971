#!/usr/bin/env bash
# Session 22, device call 9: call 8 found numpy's import contended when 16 start at once. Does the
# numpy preload also cost each program's fork once every core runs one? The engine with the default
# preloads, without numpy and without any, 16 workers on 2,000 programs (four rounds) and 2
# workers on 400 (two rounds); the floor once per round.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s22
echo "== device"; nproc; python3 --version; uptime; date
if [ ! -d /tmp/now ]; then
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now > /dev/null
fi
run() { (cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 "$@"); }
run $S/preload_batches.py 16 2000 4 $OUT/preload16.json
run $S/preload_batches.py 2 400 2 $OUT/preload2.json
uptime; date
