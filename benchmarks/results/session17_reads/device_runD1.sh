#!/usr/bin/env bash
# Session 17, device call D1: before (main at 46f6e27) and after (5a5d053), both from `git
# archive`, installed side by side, in turns: scaling rounds (2,000 programs x 10 stdin tests,
# 2 and 16 workers, isolation=namespaces).
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
for round in 1 2; do
  echo "== scaling round $round, 2000 programs, 2 and 16 workers"
  order="before after"; [ $round = 2 ] && order="after before"
  for side in $order; do
    run $side /tmp/bench_$side/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_$round.json 2>&1 | grep -i "workers:\|over_floor" | sed "s/^/$side /"
  done
done
uptime; date
