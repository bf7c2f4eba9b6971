#!/usr/bin/env bash
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" probe
for round in 0 1; do
  for layer in engine verifier; do
    PYTHONPATH=/tmp/probe:/tmp/site python3 "$D/probe_idle.py" $layer 20000 16 2> "$OUT/idle_${layer}_$round.txt"
    python3 - "$OUT/idle_${layer}_$round.txt" <<'PY'
import re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("IDLE")]
s = [float(re.search(r"sum=([0-9.]+)", l)[1]) for l in rows]
b = [float(re.search(r"busy=([0-9.]+)", l)[1]) for l in rows]
n = [int(re.search(r"n=([0-9]+)", l)[1]) for l in rows]
p50 = [l.split()[3] for l in rows]
print(f"  workers {len(rows)}: waiting for a job {sum(s):.2f} s in all, busy {sum(b):.2f} s; jobs {sum(n)}; per-worker p50 {p50[:4]}")
PY
  done
done
date
