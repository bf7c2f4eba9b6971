#!/usr/bin/env bash
# Session 30, device call 1: where main (7e0634d) stands. scaling.py (floor timed before and
# after each worker count) twice at 2 and 16 workers on 2,000 programs, then
# score_phases.py on 20,000 programs at 16 workers, two rounds.
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" now
for round in 1 2; do
  PYTHONPATH=/tmp/now:/tmp/site timeout 160 python3 "$D/now/benchmarks/scaling.py" --workers 2 16 \
    --programs 2000 --isolation namespaces --json "$OUT/scaling$round.json" > "$OUT/scaling$round.txt" 2>&1
  tail -12 "$OUT/scaling$round.txt"
done
timeout 200 python3 "$D/now/benchmarks/score_phases.py" --workers 16 --programs 20000 --rounds 2 \
  --tree now=/tmp/now --json "$OUT/phases20000.json" 2>&1 | tail -30
date
