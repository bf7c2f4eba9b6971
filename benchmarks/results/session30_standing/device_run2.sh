#!/usr/bin/env bash
# Session 30, device call 2: every target of issue 15 on main (7e0634d) in one call. `bench` at 2
# workers (d/a, 5 repeats), `bench --mix` at 16 workers, score_phases.py on 20,000 programs at 16
# workers (two rounds) and scaling.py once more at 2 and 16 workers.
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" now
export PYTHONPATH=/tmp/now:/tmp/site
timeout 150 python3 -m nemo_code_rl.cli bench --workers 2 --isolation namespaces --repeats 5 \
  --json "$OUT/bench2.json" > "$OUT/bench2.log" 2>&1; echo "bench2 rc $?"; tail -25 "$OUT/bench2.log"
timeout 200 python3 -m nemo_code_rl.cli bench --mix --workers 16 --isolation namespaces \
  --json "$OUT/mix16.json" > "$OUT/mix16.log" 2>&1; echo "mix rc $?"; tail -20 "$OUT/mix16.log"
export PYTHONPATH=/tmp/site
timeout 140 python3 "$D/now/benchmarks/score_phases.py" --workers 16 --programs 20000 --rounds 2 \
  --tree now=/tmp/now --json "$OUT/phases20000.json" 2>&1 | tail -8
PYTHONPATH=/tmp/now:/tmp/site timeout 100 python3 "$D/now/benchmarks/scaling.py" --workers 2 16 \
  --programs 2000 --isolation namespaces --json "$OUT/scaling3.json" > "$OUT/scaling3.txt" 2>&1
echo "scaling rc $?"; date
