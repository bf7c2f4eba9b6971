#!/usr/bin/env bash
# Session 27, device call 3: the CPU a program costs each process at 16 workers
# (worker_cost.py, 2,000 programs x 10 tests, the engine and the verifier), before and now in
# turns, two rounds; then score_phases.py on 20,000 programs, two more rounds.
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" before now
for round in 0 1; do
  for side in before now; do
    PYTHONPATH=/tmp/$side:/tmp/site python3 "$D/$side/benchmarks/worker_cost.py" --programs 2000 --tests 10 \
      --workers 16 --isolation namespaces --repeats 1 --no-floor --verifier > "$OUT/worker_cost_${side}_$round.txt" 2>&1
    grep "^tests=" "$OUT/worker_cost_${side}_$round.txt" | sed "s/^/$side $round /"
  done
done
python3 "$D/now/benchmarks/score_phases.py" --workers 16 --programs 20000 --rounds 2 \
  --tree before=/tmp/before --tree now=/tmp/now --json "$OUT/phases20000.json"
date
