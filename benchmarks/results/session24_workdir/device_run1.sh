#!/usr/bin/env bash
# Session 24, device call 1: before (main at 5c9d484) against now (a program's /tmp and /dev/shm
# replaced only when it changed them), in turns: scaling.py at 2 and 16 workers on 2,000
# programs, then idle CPU during the floor's, the engine's and the verifier's batches at 16.
# idle_probe.py is session 23's (benchmarks/results/session23_split/idle_probe.py), copied to $S.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s24
echo "== device"; nproc; uname -r; python3 --version; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before now; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
python3 -m compileall -q -j 16 /tmp/site /tmp/before /tmp/now > /dev/null
mkdir -p $OUT
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
for round in 1 2; do
  for side in before now; do
    echo "== round $round $side"
    run $side $D/$side/benchmarks/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_$round.json 2>&1 | grep -i "workers\|error"
  done
done
for side in before now; do
  echo "== idle $side"
  run $side $S/idle_probe.py 2000 16 16
done
