#!/usr/bin/env bash
# Session 28, device call 5: workers (their templates and programs) one step nicer than the pool's
# process (worker.WORKER_NICENESS) against main (before): score_phases.py on 20,000 programs at
# 16 workers, three rounds in turns.
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" before now
python3 "$D/now/benchmarks/score_phases.py" --workers 16 --programs 20000 --rounds 3 \
  --tree before=/tmp/before --tree now=/tmp/now --json "$OUT/phases20000.json"
date
