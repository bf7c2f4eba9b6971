#!/usr/bin/env bash
# Session 21, device call 3: before (main at dd3e617) and now (answers settled while no worker
# waits: the worker packs its results, the pool routes on the envelope and unpacks later) in
# alternating rounds at 16 workers (engine, verifier, score), then scaling.py, two rounds each.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s21
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before now; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
run now $S/make_inputs.py
echo "== layers, 16 workers, 2000 programs, alternating"
for round in 1 2 3 4 5 6; do
  if [ $((round % 2)) = 1 ]; then order="before now"; else order="now before"; fi
  for side in $order; do
    echo "$round $side $(run $side $S/layers.py 16 2000 2 2>&1 | tail -1)" | tee -a $OUT/layers16.txt
  done
done
echo "== score, 16 workers, 2000 programs, alternating"
(cd /tmp && PYTHONPATH=/tmp/site python3 $S/score_ab.py 16 8 $OUT/score16.json before now) 2>&1 | tail -10
for round in 1 2; do
  for side in now before; do
    echo "== scaling $side round $round"
    run $side $D/$side/benchmarks/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_$round.json 2>&1 | grep -i "workers:\|rror"
  done
done
uptime; date
