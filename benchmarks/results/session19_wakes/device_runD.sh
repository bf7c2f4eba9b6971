#!/usr/bin/env bash
# Session 19, device call D: before (main at 679fc00) and now (this session's final tree: the
# supervisors read a fast program's reports at its end only where the pool has a worker per CPU),
# three rounds in turns of scaling.py at 2 and 16 workers, 2,000 programs x 10 stdin tests,
# isolation=namespaces.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before now; do
  rm -rf /tmp/$side /tmp/bench_$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
  cp -r $D/$side/benchmarks /tmp/bench_$side
done
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
for round in 1 2 3; do
  echo "== round $round: 2 and 16 workers"
  for side in now before; do
    run $side /tmp/bench_$side/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_$round.json 2>&1 | grep -i "workers:\|Error\|error" | sed "s/^/$side /"
  done
done
uptime; date
