#!/usr/bin/env bash
# Third device call, on the same warm machine: "after" is now the tree with `score`'s early pool
# start as well (installed to /tmp/after2 next to the first call's /tmp/before): parent_cost at 16
# workers and two scaling rounds, before and after in turns. isolation=namespaces.
set -uo pipefail
D=${D:-final-device-logs}
echo "== device"; nproc; nvidia-smi -L; uptime
[ -d /tmp/before ] || { echo "the first call's install is gone: run device_run1.sh first"; exit 1; }
rm -rf /tmp/after2 /tmp/bench_after2
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/after2 $D/after >/dev/null 2>&1 || { echo install after failed; exit 1; }
cp -r $D/after/benchmarks /tmp/bench_after2
before() { (cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 "$@"); }
after2() { (cd /tmp && PYTHONPATH=/tmp/after2:/tmp/site python3 "$@"); }
echo "== parent_cost, 2000 programs, 16 workers, after"
after2 /tmp/bench_after2/parent_cost.py --programs 2000 --workers 16 --isolation namespaces > $OUT/parent_cost_after2.log 2>&1; grep -v "^{" $OUT/parent_cost_after2.log | sed "s/^/after2 /"
for round in 3 4; do
  echo "== scaling round $round, 2000 programs, 2 and 16 workers"
  order="before after2"; [ $round = 4 ] && order="after2 before"
  for side in $order; do
    $side /tmp/bench_$side/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_$round.json 2>&1 | grep workers | sed "s/^/$side /"
  done
done
uptime
