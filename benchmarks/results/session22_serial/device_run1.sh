#!/usr/bin/env bash
# Session 22, device call 1: score of main (1e331fb, "before") against the working tree ("now":
# the collector paused for the whole score command, stdio tests read without a name per test),
# 16 workers, alternating rounds over 2,000, 8,000 and 20,000 programs, each with its timeline;
# then read_problems alone on 20,000 problems, both trees.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s22
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for tree in before now; do
  rm -rf /tmp/$tree
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$tree $D/$tree >/dev/null 2>&1 || { echo install $tree failed; exit 1; }
done
run() { (cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 "$@"); }
run $S/score_sizes.py 16 2000,8000 3 $OUT/sizes_small.json /tmp/before /tmp/now /tmp/site 2>&1 | tail -8
run $S/score_sizes.py 16 20000 3 $OUT/sizes_20000.json /tmp/before /tmp/now /tmp/site 2>&1 | tail -4
echo "== read_problems alone, 20000"
for tree in before now now before; do
(cd /tmp && PYTHONPATH=/tmp/$tree:/tmp/site python3 -c "
import time
from nemo_code_rl.unit_tests.problems import read_problems
best = min((lambda t: (read_problems('/tmp/sp20000.jsonl'), time.perf_counter() - t)[1])(time.perf_counter()) for _ in range(3))
print('$tree', 'read_problems best of 3', round(best, 3))
") 2>&1 | tail -1
done
uptime; date
