#!/usr/bin/env bash
# Session 25, device call 4: before (A, main at c266b27) against now (C: score reads and judges
# with the collector paused, no periodic collection), in turns: 50,000 programs (two rounds) and
# 20,000 (three rounds) at 16 workers, each score run with its timeline; the floor and the
# verifier alone once per round.
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
PYTHONPATH=/tmp/now:/tmp/site python3 $D/s25/score_rounds.py 16 50000 2 $OUT/rounds50000.json A=/tmp/before,C=/tmp/now /tmp/site
PYTHONPATH=/tmp/now:/tmp/site python3 $D/s25/score_rounds.py 16 20000 3 $OUT/rounds20000.json A=/tmp/before,C=/tmp/now /tmp/site
date
