#!/usr/bin/env bash
# Second device call, on the final tree (after the percost and gymfam merges): the mix, and
# scaling before (main at 234c4d0) and after, in turns, twice.
set -uo pipefail
D=final-device-logs
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/after . >/dev/null 2>&1 || { echo install after failed; exit 1; }
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/before $D/before >/dev/null 2>&1 || { echo install before failed; exit 1; }
before() { (cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 "$@"); }
after() { (cd /tmp && PYTHONPATH=/tmp/after:/tmp/site python3 "$@"); }
cp -r $D/before/benchmarks /tmp/bench_before; cp -r benchmarks /tmp/bench_after
echo "== bench --mix (after), 16 workers"
after -m nemo_code_rl.cli bench --mix --workers 16 --isolation namespaces --json $OUT/mix16_after.json 2>&1 | grep -v "^$"
for round in 1 2; do
echo "== scaling round $round, 2000 programs, 2 and 16 workers"
before /tmp/bench_before/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_before_$round.json 2>&1 | grep workers | sed 's/^/before /'
after /tmp/bench_after/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_after_$round.json 2>&1 | grep workers | sed 's/^/after  /'
done
uptime
