#!/usr/bin/env bash
# Session 26, device call 4: benchmarks/score_phases.py (the maintained timeline) on the 16-core
# host at 16 workers: 20,000 programs (three rounds) and 50,000 (one), main with the tool.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; uname -r; python3 --version; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
rm -rf /tmp/now
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now > /dev/null
mkdir -p $OUT
cd /tmp
export PYTHONPATH=/tmp/site
python3 $D/now/benchmarks/score_phases.py --workers 16 --programs 20000 50000 --rounds 2 --tree main=/tmp/now --json $OUT/phases.json
date
