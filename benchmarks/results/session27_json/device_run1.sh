#!/usr/bin/env bash
# Session 27, device call 1: benchmarks/score_phases.py, before (main at 828a50e) against now
# (orjson reading and row writing with the standard library's values, results sent with only
# their non-default fields, no calibration key for problems without a reference, fence lines
# found by a literal search) in turns at 16 workers: 20,000 programs (three rounds), 50,000 (one,
# or as many rounds as the first argument says: call 2).
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" before now
for programs_rounds in 20000:3 "50000:${1:-1}"; do
  python3 "$D/now/benchmarks/score_phases.py" --workers 16 --programs "${programs_rounds%:*}" --rounds "${programs_rounds#*:}" \
    --tree before=/tmp/before --tree now=/tmp/now --json "$OUT/phases${programs_rounds%:*}.json"
done
date
