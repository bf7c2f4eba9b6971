#!/usr/bin/env bash
# Session 20, device call 3: before (main at dd4eea0) and now (the heap frozen while a batch
# routes, the verifier's programs planned and built while the first ones run): the verifier's
# timeline at 16 workers, score's timeline, and one round of scaling.py at 2 and 16 workers.
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
(cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 $S/make_inputs.py)
for side in now before; do
  echo "== timeline16 $side"
  run $side $S/timeline16.py 16 5 $OUT/timeline16_$side.json
done
for rep in 1 2 3; do for side in now before; do
  run $side $S/score_timeline.py $(date +%s.%N) score /tmp/p2000.jsonl /tmp/c2000.jsonl --workers 16 --isolation namespaces --quiet --no-calibrate --timeout 5 -o /tmp/r.jsonl | sed "s/^/$side /" | tee -a $OUT/score_timeline.txt
done; done
for round in ${ROUNDS:-1}; do
  echo "== scaling round $round"
  for side in now before; do
    run $side /tmp/bench_$side/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_${side}_$round.json 2>&1 | grep -i "workers:\|Error\|error" | sed "s/^/$side /"
  done
done
uptime; date
