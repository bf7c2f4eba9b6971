#!/usr/bin/env bash
# Session 18, device call B: a 32-core host. How far the verifier and score scale past 16 workers
# with one routing process: scaling.py at 2, 16 and 32 workers (4,000 programs x 10 stdin tests),
# then parent_cost.py at 32 workers. The tree: main plus the pool's hand-out change ("after").
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
side=after
rm -rf /tmp/$side /tmp/bench_$side
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
cp -r $D/$side/benchmarks /tmp/bench_$side
run() { (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
echo "== scaling 2 16 32"
run /tmp/bench_$side/scaling.py --workers 2 16 32 --programs 4000 --isolation namespaces --json $OUT/scaling_32.json 2>&1 | grep -v "^\s*$" | tail -40
echo "== parent_cost 32"
run /tmp/bench_$side/parent_cost.py --programs 4000 --workers 32 --isolation namespaces 2>&1 | tail -12
echo "== parent_cost 16"
run /tmp/bench_$side/parent_cost.py --programs 4000 --workers 16 --isolation namespaces 2>&1 | tail -12
uptime; date
