#!/usr/bin/env bash
# Session 24, device call 4: before (main at 5c9d484) against now (f028e21), in turns:
# scaling.py at 16 workers on 20,000 programs, one run per layer.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; uname -r; python3 --version; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before now; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
python3 -m compileall -q -j 16 /tmp/site /tmp/before /tmp/now > /dev/null
mkdir -p $OUT
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
for side in before now; do
  echo "== 20000 $side"
  run $side $D/$side/benchmarks/scaling.py --workers 16 --programs 20000 --repeats 1 --isolation namespaces --json $OUT/scaling20000_${side}.json 2>&1 | grep -i "workers:\|error"
done
