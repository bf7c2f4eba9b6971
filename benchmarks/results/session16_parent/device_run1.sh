#!/usr/bin/env bash
# Device call 1: before (main at ae19a38) and after (this session's tree), both from `git archive`,
# installed side by side and run in turns: the routing process's CPU per program and the machine's
# (parent_cost, 16 workers), then scaling rounds (2,000 programs x 10 stdin tests, 2 and 16
# workers). isolation=namespaces: the host has no pids cgroup controller.
set -uo pipefail
D=${D:-final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before after; do
  rm -rf /tmp/$side /tmp/bench_$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
  cp -r $D/$side/benchmarks /tmp/bench_$side
done
before() { (cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 "$@"); }
after() { (cd /tmp && PYTHONPATH=/tmp/after:/tmp/site python3 "$@"); }
echo "== parent_cost, 2000 programs, 16 workers, in turns"
for side in before after after before; do
  n=$(ls $OUT/parent_cost_${side}_*.log 2>/dev/null | wc -l)
  $side /tmp/bench_$side/parent_cost.py --programs 2000 --workers 16 --isolation namespaces > $OUT/parent_cost_${side}_$n.log 2>&1; grep -v "^{" $OUT/parent_cost_${side}_$n.log | grep -v score_fixed | sed "s/^/$side /"
done
for round in 1 2 3; do
  echo "== scaling round $round, 2000 programs, 2 and 16 workers"
  order="before after"; [ $round = 2 ] && order="after before"
  for side in $order; do
    $side /tmp/bench_$side/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_$round.json 2>&1 | grep -i "workers\|share\|gain" | sed "s/^/$side /"
  done
done
uptime
