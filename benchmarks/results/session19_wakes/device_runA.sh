#!/usr/bin/env bash
# Session 19, device call A: before (main at 679fc00), after (the supervisor reads a chain's
# messages once, at the child's exit, when it ends within 5 ms; the template cleans after each
# child unasked) and w10 (after, with a 10 ms window), from copies of the trees, in turns:
# scaling.py, 2,000 programs x 10 stdin tests, isolation=namespaces; worker_cost.py at 16 workers.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before after w10; do
  rm -rf /tmp/$side /tmp/bench_$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
  cp -r $D/$side/benchmarks /tmp/bench_$side
done
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
echo "== round 1: 2 and 16 workers"
for side in before after w10; do
  run $side /tmp/bench_$side/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_1.json 2>&1 | grep -i "workers:\|over_floor\|Error\|error" | sed "s/^/$side /"
done
echo "== round 2: 16 workers"
for side in w10 after before w10 after before; do
  run $side /tmp/bench_$side/scaling.py --workers 16 --programs 2000 --isolation namespaces 2>&1 | grep -i "workers:\|Error\|error" | sed "s/^/$side /"
done
echo "== CPU per program at 16 workers (worker_cost.py, ms)"
for side in before after; do
  run $side /tmp/bench_$side/worker_cost.py --programs 2000 --tests 10 --workers 16 --isolation namespaces --verifier --repeats 2 2>&1 | grep "^tests" | sed "s/^/$side /"
done
uptime; date
