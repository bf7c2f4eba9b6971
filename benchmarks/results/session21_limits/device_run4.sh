#!/usr/bin/env bash
# Session 21, device call 4: main (dd3e617): score's timeline at 16 workers on 2,000, 8,000 and
# 20,000 programs (where score's time over the verifier's goes as batches grow).
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s21
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
rm -rf /tmp/before
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/before $D/before >/dev/null 2>&1 || { echo install failed; exit 1; }
(cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 $S/timeline_sizes.py 16 2000,8000,20000 2 $OUT/timeline16.json) 2>&1 | tail -8
echo "== read_problems alone, 20000"
(cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 -c "
import time
from nemo_code_rl.unit_tests.problems import read_problems
from nemo_code_rl import results_files
for _ in range(3):
    t = time.perf_counter(); read_problems('/tmp/tp20000.jsonl'); a = time.perf_counter() - t
    t = time.perf_counter(); results_files.read_completions('/tmp/tc20000.jsonl'); b = time.perf_counter() - t
    print('read_problems', round(a, 3), 'read_completions', round(b, 3))
") 2>&1 | tail -4
uptime; date
