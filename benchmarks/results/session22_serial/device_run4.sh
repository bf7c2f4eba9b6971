#!/usr/bin/env bash
# Session 22, device call 4: call 2 again (both trees compiled, as pip compiles them at install)
# with the final working tree ("now"): the collector paused from judging to the summary, no longer
# from reading on; stdio tests read as in calls 1-3. 20,000 programs in three rounds.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s22
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date; env | grep -i bytecode
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for tree in before now; do
  rm -rf /tmp/$tree
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$tree $D/$tree >/dev/null 2>&1 || { echo install $tree failed; exit 1; }
done
python3 -m compileall -q -j 16 /tmp/site /tmp/before /tmp/now > /dev/null
run() { (cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 "$@"); }
run $S/score_sizes.py 16 2000,8000 3 $OUT/sizes_small.json /tmp/before /tmp/now /tmp/site 2>&1 | tail -8
run $S/score_sizes.py 16 20000 3 $OUT/sizes_20000.json /tmp/before /tmp/now /tmp/site 2>&1 | tail -4
uptime; date
