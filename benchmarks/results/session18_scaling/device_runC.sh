#!/usr/bin/env bash
# Session 18, device call C: a 32-core host. before (main at 3033d5b) and after (every worker that
# answered gets its next program before the caller's callbacks run; the verifier's per-program
# verification built in one pass), installed side by side, in turns: scaling.py (4,000 programs x 10
# stdin tests, isolation=namespaces) and parent_cost.py at 32 workers.
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
echo "== round 1: 2, 16 and 32 workers"
for side in before after; do
  run $side /tmp/bench_$side/scaling.py --workers 2 16 32 --programs 4000 --isolation namespaces --json $OUT/scaling_${side}_1.json 2>&1 | grep "workers:\|over_floor" | sed "s/^/$side /"
done
echo "== round 2: 16 and 32 workers"
for side in after before after before; do
  run $side /tmp/bench_$side/scaling.py --workers 16 32 --programs 4000 --isolation namespaces 2>&1 | grep "workers:" | sed "s/^/$side /"
done
echo "== parent_cost, 32 workers"
for side in before after; do
  run $side /tmp/bench_$side/parent_cost.py --programs 4000 --workers 32 --isolation namespaces 2>&1 | grep "^floor\|^engine\|^verifier" | sed "s/^/$side /"
done
uptime; date
