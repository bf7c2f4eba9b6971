#!/usr/bin/env bash
# Session 25, device call 5: the verifier alone on 50,000 programs at 16 workers, before (main at
# c266b27: a full collection every 10 s while it routes) and now (the next one waits 50 times as
# long as the last took), in turns, two rounds; each run's periodic collections timed.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; uname -r; python3 --version; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before now; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
python3 -m compileall -q -j 16 /tmp/site /tmp/before /tmp/now > /dev/null
cd /tmp
for round in 0 1; do
  order="before now"; [ $round = 1 ] && order="now before"
  for side in $order; do
    echo "$round $side $(PYTHONPATH=/tmp/$side:/tmp/site python3 $D/s25/verifier_gc.py 50000 16)"
  done
done
date
