#!/usr/bin/env bash
# Device call 4, on the warm machine of call 3 (/tmp/before, /tmp/after): parent_cost at 16
# workers in turns, bench at 2 workers (no regression: row a, d/a), and the realistic mix at 16
# workers (the mix's targets, pass/fail identical). isolation=namespaces.
set -uo pipefail
[ -d /tmp/before ] && [ -d /tmp/after ] || { echo "call 3's installs are gone: run device_run2.sh first"; exit 1; }
before() { (cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 "$@"); }
after() { (cd /tmp && PYTHONPATH=/tmp/after:/tmp/site python3 "$@"); }
echo "== parent_cost, 2000 programs, 16 workers, in turns"
for side in before after; do
  $side /tmp/bench_$side/parent_cost.py --programs 2000 --workers 16 --isolation namespaces > $OUT/parent_cost_${side}.log 2>&1; grep -v "^{" $OUT/parent_cost_${side}.log | sed "s/^/$side /"
done
echo "== bench, 2 workers, before / after"
for side in before after; do
  echo "-- $side"
  $side -m nemo_code_rl.cli bench --workers 2 --isolation namespaces --repeats 5 2>&1 | tail -12
done
echo "== mix, 16 workers, after"
after -m nemo_code_rl.cli bench --mix --workers 16 --isolation namespaces --json $OUT/mix16_after.json 2>&1 | tail -15
uptime
