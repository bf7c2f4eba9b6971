#!/usr/bin/env bash
# Session 26, device call 1: before (A, main at 857b239) against now (S: score reads its problems
# while the first programs run), in turns: 20,000 programs (three rounds) and 50,000 (one) at
# 16 workers, each score run with its timeline; the floor and the verifier alone (a list, and
# an iterator) once per round.
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
PYTHONPATH=/tmp/now:/tmp/site python3 $D/s26/score_rounds.py 16 20000 3 $OUT/rounds20000.json A=/tmp/before,S=/tmp/now /tmp/site
PYTHONPATH=/tmp/now:/tmp/site python3 $D/s26/score_rounds.py 16 50000 1 $OUT/rounds50000.json A=/tmp/before,S=/tmp/now /tmp/site
date
