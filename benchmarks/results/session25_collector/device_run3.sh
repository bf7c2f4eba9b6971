#!/usr/bin/env bash
# Session 25, device call 3: three trees in rotating order, 20,000 then 8,000 programs at 16
# workers, three rounds: A = main at c266b27; B = score's collector paused from judging on, no
# periodic collection (call 1's "now"); C = paused from reading on (call 2's "now").
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; uname -r; python3 --version; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before B now; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
python3 -m compileall -q -j 16 /tmp/site /tmp/before /tmp/B /tmp/now > /dev/null
mkdir -p $OUT
cd /tmp
for n in 20000 8000; do
  PYTHONPATH=/tmp/now:/tmp/site python3 $D/s25/score_rounds.py 16 $n 3 $OUT/rounds$n.json A=/tmp/before,B=/tmp/B,C=/tmp/now /tmp/site
done
date
