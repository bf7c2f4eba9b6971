#!/usr/bin/env bash
# Session 22, device call 7: main (1e331fb, "before") against the final working tree ("now": call
# 4's tree, and a pool that is ready once its first worker has started, the others joining its
# batches as they start), both compiled: score at 16 workers, alternating rounds on 2,000 (four)
# and 8,000 programs (two), each with its timeline; then scaling.py on 2,000 programs (now).
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s22
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for tree in before now; do
  rm -rf /tmp/$tree
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$tree $D/$tree >/dev/null 2>&1 || { echo install $tree failed; exit 1; }
done
python3 -m compileall -q -j 16 /tmp/site /tmp/before /tmp/now $D/now/benchmarks > /dev/null
run() { (cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 "$@"); }
run $S/score_sizes.py 16 2000 4 $OUT/sizes_2000.json /tmp/before /tmp/now /tmp/site 2>&1 | tail -4
run $S/score_sizes.py 16 8000 2 $OUT/sizes_8000.json /tmp/before /tmp/now /tmp/site 2>&1 | tail -2
echo "== scaling, 2000 programs (now)"
run $D/now/benchmarks/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling2000.json 2>&1 | grep -i "workers:\|rror\|warning"
uptime; date
