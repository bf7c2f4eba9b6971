#!/usr/bin/env bash
# One device call: the merged tree (after) against main at 234c4d0 (before), in turns.
set -uo pipefail
D=final-device-logs
echo "== device"; nproc; python3 --version; nvidia-smi -L; g++ --version | head -1; uptime
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/after . >/dev/null 2>&1 || { echo install after failed; exit 1; }
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/before $D/before >/dev/null 2>&1 || { echo install before failed; exit 1; }
before() { (cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 "$@"); }
after() { (cd /tmp && PYTHONPATH=/tmp/after:/tmp/site python3 "$@"); }
cp -r $D/before/benchmarks /tmp/bench_before; cp -r benchmarks /tmp/bench_after
echo "== bench table, 2 workers, in turns (before, after, after, before)"
before -m nemo_code_rl.cli bench --workers 2 --isolation namespaces --b-programs 10 --repeats 5 --json $OUT/bench2_before_1.json 2>&1 | grep -v "^$"
after -m nemo_code_rl.cli bench --workers 2 --isolation namespaces --b-programs 10 --repeats 5 --json $OUT/bench2_after_1.json 2>&1 | grep -v "^$"
after -m nemo_code_rl.cli bench --workers 2 --isolation namespaces --skip-baselines --repeats 5 2>&1 | grep "^a "
before -m nemo_code_rl.cli bench --workers 2 --isolation namespaces --skip-baselines --repeats 5 2>&1 | grep "^a "
echo "== scaling, 2000 programs, 2 and 16 workers, in turns"
before /tmp/bench_before/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_before.json 2>&1 | grep workers
after /tmp/bench_after/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_after.json 2>&1 | grep workers
echo "== C++ rows, 16 workers (after)"
after -m nemo_code_rl.cli bench --workers 16 --isolation namespaces --skip-baselines --cpp 64 --json $OUT/cpp16.json 2>&1 | grep -v "^$"
uptime
