#!/usr/bin/env bash
# Session 17, device call D2 (same trees as D1): bench at 2 workers (no regression: d/a), the
# routing process's CPU per program at 16 workers (parent_cost), and the machine's CPU per program
# split user/system with context switches (msplit.py), before and after in turns.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before after; do
  rm -rf /tmp/$side /tmp/bench_$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
  cp -r $D/$side/benchmarks /tmp/bench_$side
done
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
echo "== bench, 2 workers"
for side in before after; do
  echo "-- $side"
  run $side -m nemo_code_rl.cli bench --workers 2 --isolation namespaces --repeats 3 2>&1 | tail -12
done
echo "== parent_cost, 2000 programs, 16 workers"
for side in after before; do
  run $side /tmp/bench_$side/parent_cost.py --programs 2000 --workers 16 --isolation namespaces > $OUT/parent_cost_${side}.log 2>&1; grep -v "^{" $OUT/parent_cost_${side}.log | grep -v score_fixed | sed "s/^/$side /"
done
echo "== msplit, 3000 programs, 16 workers"
for side in before after after before; do
  layers=engine,verifier; [ $side = before ] && layers=floor,engine,verifier
  run $side $D/msplit.py 16 3000 namespaces $layers 2>&1 | sed "s/^/$side /"
done
uptime; date
