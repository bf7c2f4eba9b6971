#!/usr/bin/env bash
# Session 26, device call 5: benchmarks/score_phases.py, before (main at 857b239) against now
# (the verification built once, the summary's verdicts counted in one pass) in turns at 16
# workers: 20,000 programs (three rounds) and 50,000 (two).
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; uname -r; python3 --version; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before now; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
python3 -m compileall -q -j 16 /tmp/site /tmp/before /tmp/now > /dev/null
mkdir -p $OUT
cd /tmp
export PYTHONPATH=/tmp/site
python3 $D/now/benchmarks/score_phases.py --workers 16 --programs 20000 --rounds 3 --tree before=/tmp/before --tree now=/tmp/now --json $OUT/phases20000.json
python3 $D/now/benchmarks/score_phases.py --workers 16 --programs 50000 --rounds 2 --tree before=/tmp/before --tree now=/tmp/now --json $OUT/phases50000.json
date
