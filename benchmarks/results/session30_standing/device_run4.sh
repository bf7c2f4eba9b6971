#!/usr/bin/env bash
# Session 30, device call 4: the same measurements as call 3 on a fresh machine, with what was
# left of the session's device time: scaling.py once, score_phases.py three rounds.
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" now
PYTHONPATH=/tmp/now:/tmp/site timeout 170 python3 "$D/now/benchmarks/scaling.py" --workers 2 16 \
  --programs 2000 --isolation namespaces --json "$OUT/scaling5.json" > "$OUT/scaling5.txt" 2>&1
echo "scaling 5 rc $?"
timeout 240 python3 "$D/now/benchmarks/score_phases.py" --workers 16 --programs 20000 --rounds 3 \
  --tree now=/tmp/now --json "$OUT/phases20000.json" 2>&1 | grep -v "^  same"
date
