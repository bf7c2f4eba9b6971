#!/usr/bin/env bash
# Session 22, device call 2: the device sets PYTHONDONTWRITEBYTECODE=1, so every fresh interpreter
# of earlier calls compiled the package and its dependencies from source (pip compiles them at
# install for users). Import time without and with compiled bytecode, then call 1's comparison of
# main (1e331fb, "before") and the working tree ("now") with both compiled as pip would.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s22
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date; env | grep -i bytecode
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for tree in before now; do
  rm -rf /tmp/$tree
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$tree $D/$tree >/dev/null 2>&1 || { echo install $tree failed; exit 1; }
done
imports() { (cd /tmp && for i in 1 2 3; do PYTHONPATH=/tmp/now:/tmp/site python3 -X importtime -c "import nemo_code_rl.score_cli, nemo_code_rl.engine.pool" 2>&1 | grep -E "nemo_code_rl.score_cli$|nemo_code_rl.engine.pool$"; done); }
echo "== import time, no bytecode"; imports
python3 -m compileall -q -j 16 /tmp/site /tmp/before /tmp/now > /dev/null
echo "== import time, compiled"; imports
run() { (cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 "$@"); }
run $S/score_sizes.py 16 2000,8000 3 $OUT/sizes_small.json /tmp/before /tmp/now /tmp/site 2>&1 | tail -8
run $S/score_sizes.py 16 20000 2 $OUT/sizes_20000.json /tmp/before /tmp/now /tmp/site 2>&1 | tail -4
uptime; date
