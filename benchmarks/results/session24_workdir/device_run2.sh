#!/usr/bin/env bash
# Session 24, device call 2: before (main at 5c9d484) against now (/tmp and /dev/shm replaced only
# after a program that changed them, mounted noatime): scaling.py at 16 workers on 8,000 programs,
# two rounds in turns, and a third round of 2,000 at 2 and 16; then idle CPU at 16 workers for now
# and for "nice" (now, its workers at nice 5: the routing process first), in turns.
# idle_probe.py is session 23's (benchmarks/results/session23_split/idle_probe.py), copied to $S.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s24
echo "== device"; nproc; uname -r; python3 --version; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before now nice; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
python3 -m compileall -q -j 16 /tmp/site /tmp/before /tmp/now /tmp/nice > /dev/null
mkdir -p $OUT
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
for round in 1 2; do
  for side in before now; do
    echo "== 8000 round $round $side"
    run $side $D/$side/benchmarks/scaling.py --workers 16 --programs 8000 --repeats 1 --isolation namespaces --json $OUT/scaling8000_${side}_$round.json 2>&1 | grep -i "workers:\|error"
  done
done
for round in 1 2; do
  for side in now nice; do
    echo "== idle round $round $side"
    NCR_NICE=5 run $side $S/idle_probe.py 2000 16 16
  done
done
for side in before now; do
  echo "== 2000 round 3 $side"
  run $side $D/$side/benchmarks/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_3.json 2>&1 | grep -i "workers:\|error"
done
