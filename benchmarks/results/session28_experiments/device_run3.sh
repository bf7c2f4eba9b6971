#!/usr/bin/env bash
# Session 28, device call 3: how long each worker's supervisor waits for its next job, main
# (probe) against the dispatch that answers workers between handled programs (probe_now), for the
# engine alone and the verifier, 20,000 programs at 16 workers, in turns; then score_phases.py
# (before = main, now) on 20,000 programs, three rounds.
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" probe probe_now before now
for round in 0 1; do
  for layer in verifier engine; do
    for side in probe probe_now; do
      PYTHONPATH=/tmp/$side:/tmp/site python3 "$D/probe_idle.py" $layer 20000 16 2> "$OUT/idle_${side}_${layer}_$round.txt" | sed "s/^/$side /"
      python3 - "$OUT/idle_${side}_${layer}_$round.txt" <<'PY'
import re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("IDLE")]
s = [float(re.search(r"sum=([0-9.]+)", l)[1]) for l in rows]
b = [float(re.search(r"busy=([0-9.]+)", l)[1]) for l in rows]
n = [int(re.search(r"n=([0-9]+)", l)[1]) for l in rows]
p50 = sorted(float(re.search(r"p50=([0-9]+)us", l)[1]) for l in rows)
print(f"    workers {len(rows)}: waiting for a job {sum(s):.2f} s in all, busy {sum(b):.2f} s; jobs {sum(n)}; per-worker median wait {p50[0]:.0f}-{p50[-1]:.0f} us")
PY
    done
  done
done
python3 "$D/now/benchmarks/score_phases.py" --workers 16 --programs 20000 --rounds 3 \
  --tree before=/tmp/before --tree now=/tmp/now --json "$OUT/phases20000.json"
date
