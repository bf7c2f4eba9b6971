#!/usr/bin/env bash
# Session 20, device call 4: now (the collector paused while a batch routes and the verifier
# verifies; the verifier's programs planned and built while the first ones run) with the pause
# and without it in alternating pairs at 16 workers; then before (main at dd4eea0) and now in
# turns, three rounds of scaling.py at 2 and 16 workers.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s20
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before now; do
  rm -rf /tmp/$side /tmp/bench_$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
  cp -r $D/$side/benchmarks /tmp/bench_$side
done
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
echo "== collector paused or not, now, 16 workers"
run now $S/gc_pairs.py 16 8 $OUT/gc_pairs16.json
for round in 1 2 3; do
  echo "== scaling round $round"
  for side in now before; do
    run $side /tmp/bench_$side/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_$round.json 2>&1 | grep -i "workers:\|Error\|error" | sed "s/^/$side /"
  done
done
uptime; date
