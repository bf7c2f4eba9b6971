#!/usr/bin/env bash
# Session 30, device call 5: `bench` at 16 workers (every row, rows a and d the median of 5), main
# at 7e0634d, for the README's table on the 16-core host.
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" now
PYTHONPATH=/tmp/now:/tmp/site timeout 150 python3 -m nemo_code_rl.cli bench --workers 16 --isolation namespaces \
  --repeats 5 --json "$OUT/bench16.json" > "$OUT/bench16.log" 2>&1; echo "bench16 rc $?"; tail -22 "$OUT/bench16.log"
