#!/usr/bin/env bash
# Session 28, device call 1: programs one step nicer than their worker (template.PROGRAM_NICENESS)
# against main (before), score_phases.py on 20,000 programs at 16 workers, four rounds in turns;
# first, what isolation the workers report on this host.
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" before now
PYTHONPATH=/tmp/now:/tmp/site python3 -c "
from nemo_code_rl.engine import ExecutionPool
with ExecutionPool(workers=2, isolation='namespaces') as pool:
    print({k: v for k, v in pool.isolation_report.items() if k not in ('bound', 'preloaded')})
"
python3 "$D/now/benchmarks/score_phases.py" --workers 16 --programs 20000 --rounds 4 \
  --tree before=/tmp/before --tree now=/tmp/now --json "$OUT/phases20000.json"
date
