#!/usr/bin/env bash
# Session 27, device call 2: call 1 with 50,000 programs in two rounds; then scaling.py on now at
# 2 and 16 workers (2,000 programs).
set -uo pipefail
bash "$(dirname "$0")/device_run1.sh" 2
cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 "$OLDPWD/final-device-logs/now/benchmarks/scaling.py" --workers 2 16 \
  --programs 2000 --isolation namespaces --json "$OUT/scaling_now.json" 2>&1 | tail -25
date
