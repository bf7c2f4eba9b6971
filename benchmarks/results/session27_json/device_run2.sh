#!/usr/bin/env bash
# Session 27, device call 2: call 1 again with 50,000 programs in two rounds; then scaling.py on
# now at 2 and 16 workers (2,000 programs).
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" before now
for programs_rounds in 20000:3 50000:2; do
  python3 "$D/now/benchmarks/score_phases.py" --workers 16 --programs "${programs_rounds%:*}" --rounds "${programs_rounds#*:}" \
    --tree before=/tmp/before --tree now=/tmp/now --json "$OUT/phases${programs_rounds%:*}.json"
done
PYTHONPATH=/tmp/now:/tmp/site python3 "$D/now/benchmarks/scaling.py" --workers 2 16 --programs 2000 \
  --isolation namespaces --json "$OUT/scaling_now.json" 2>&1 | tail -25
date
