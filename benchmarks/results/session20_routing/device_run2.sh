#!/usr/bin/env bash
# Session 20, device call 2: the parent's GC and the verifier's prelude at 16 and 2 workers (main at dd4eea0).
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s20
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
rm -rf /tmp/now; python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
export PYTHONPATH=/tmp/now:/tmp/site
cd /tmp
python3 $S/levers.py 16 6 $OUT/levers16.json
python3 $S/levers.py 2 2 $OUT/levers2.json
uptime; date
