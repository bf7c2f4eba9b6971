#!/usr/bin/env bash
# Session 30, device call 3: more rounds of the two 16-worker targets on main (7e0634d), to see
# them over the host's drift: scaling.py twice at 2 and 16 workers (2,000 programs), then
# score_phases.py on 20,000 programs at 16 workers, four rounds.
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" now
for round in 3 4; do
  PYTHONPATH=/tmp/now:/tmp/site timeout 170 python3 "$D/now/benchmarks/scaling.py" --workers 2 16 \
    --programs 2000 --isolation namespaces --json "$OUT/scaling$round.json" > "$OUT/scaling$round.txt" 2>&1
  echo "scaling $round rc $?"
done
timeout 270 python3 "$D/now/benchmarks/score_phases.py" --workers 16 --programs 20000 --rounds 4 \
  --tree now=/tmp/now --json "$OUT/phases20000.json" 2>&1 | grep -v "^  same"
date
