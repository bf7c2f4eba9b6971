#!/usr/bin/env bash
# Device call 4 (a fresh machine; both trees installed again): "after2" is the tree of call 3 plus
# the template's IPC tables kept open (its CPU per program rose in call 3). worker_cost for it,
# parent_cost at 16 workers in turns, bench at 2 workers (no regression: row a, d/a), and the
# realistic mix at 16 workers (the mix's targets, pass/fail identical). isolation=namespaces.
set -uo pipefail
D=${D:-final-device-logs}
echo "== device"; nproc; nvidia-smi -L; uptime
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before after; do
  rm -rf /tmp/$side /tmp/bench_$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
  cp -r $D/$side/benchmarks /tmp/bench_$side
done
before() { (cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 "$@"); }
after() { (cd /tmp && PYTHONPATH=/tmp/after:/tmp/site python3 "$@"); }
echo "== worker_cost, 2 workers, 600 programs x 10 tests, namespaces, after2 / before"
for side in after before; do
  $side /tmp/bench_$side/worker_cost.py --programs 600 --tests 10 --isolation namespaces --repeats 2 --no-floor 2>&1 | grep tests= | sed "s/^/$side /"
done
echo "== parent_cost, 2000 programs, 16 workers, in turns"
for side in before after; do
  $side /tmp/bench_$side/parent_cost.py --programs 2000 --workers 16 --isolation namespaces > $OUT/parent_cost_${side}.log 2>&1; grep -v "^{" $OUT/parent_cost_${side}.log | sed "s/^/$side /"
done
echo "== bench, 2 workers, before / after"
for side in before after; do
  echo "-- $side"
  $side -m nemo_code_rl.cli bench --workers 2 --isolation namespaces --repeats 3 2>&1 | tail -12
done
echo "== mix, 16 workers, after"
after -m nemo_code_rl.cli bench --mix --workers 16 --isolation namespaces --json $OUT/mix16_after.json 2>&1 | tail -15
uptime
