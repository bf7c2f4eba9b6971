#!/usr/bin/env bash
# Session 28, device call 6: score_phases.py with the floor timed before and after each round's
# score (main's package; only the benchmark changed), 20,000 programs at 16 workers, three rounds.
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" now
python3 "$D/now/benchmarks/score_phases.py" --workers 16 --programs 20000 --rounds 3 \
  --tree now=/tmp/now --json "$OUT/phases20000.json"
date
