#!/usr/bin/env bash
# Session 23, device call 2: scaling.py with the split floor (jobs kept out of the forking
# process, nothing else), 2 and 16 workers: 2,000 programs in two rounds, 8,000 in one.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
if [ ! -d /tmp/now ]; then
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
fi
rm -rf /tmp/now
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now > /dev/null
mkdir -p $OUT
for round in 1 2; do
  (cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 $D/now/benchmarks/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --json $OUT/scaling_2000_r$round.json | grep workers)
done
(cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 $D/now/benchmarks/scaling.py --workers 2 16 --programs 8000 --repeats 1 --isolation namespaces --json $OUT/scaling_8000.json | grep workers)
