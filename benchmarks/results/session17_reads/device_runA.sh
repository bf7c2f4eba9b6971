#!/usr/bin/env bash
# Session 17, device call A: before (main at 46f6e27) and after (093059a: a chain's reports read
# together, leaner per-report path), both from `git archive`, installed side by side, run in turns:
# worker_cost at 2 workers, then scaling rounds (2,000 programs x 10 stdin tests, 2 and 16 workers).
set -uo pipefail
D=${D:-final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before after; do
  rm -rf /tmp/$side /tmp/bench_$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
  cp -r $D/$side/benchmarks /tmp/bench_$side
done
before() { (cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 "$@"); }
after() { (cd /tmp && PYTHONPATH=/tmp/after:/tmp/site python3 "$@"); }
echo "== worker_cost, 2 workers, 600 programs x 10 tests, namespaces, verifier"
for side in after before; do
  $side /tmp/bench_$side/worker_cost.py --programs 600 --tests 10 --isolation namespaces --verifier --repeats 2 --no-floor 2>&1 | grep tests= | sed "s/^/$side /"
done
for round in 1 2; do
  echo "== scaling round $round, 2000 programs, 2 and 16 workers"
  order="before after"; [ $round = 2 ] && order="after before"
  for side in $order; do
    $side /tmp/bench_$side/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_$round.json 2>&1 | grep -i "workers\|share\|gain\|over" | sed "s/^/$side /"
  done
done
uptime; date
