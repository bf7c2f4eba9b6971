#!/usr/bin/env bash
# Session 20, device call 6: the final tree (a164625): bench --mix at 16 workers (the realistic
# mix's targets and pass/fail); bench at 2 workers (row d/a: no regression), before and now in turns.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before now; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
echo "== bench --mix, 16 workers (now)"
timeout 200 bash -c "cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 -m nemo_code_rl.cli bench --mix --workers 16 --isolation namespaces --json $OUT/mix16_now.json" 2>&1 | grep -v "^$" | tail -30
echo "== bench, 2 workers, rows a and d (before, now, before, now)"
for side in before now before now; do
  timeout 100 bash -c "cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 -m nemo_code_rl.cli bench --workers 2 --isolation namespaces --programs 400 --b-programs 10 --json $OUT/bench2_$side.json" > /tmp/bench_$side.txt 2>&1
  python3 -c "import json; r=json.load(open('$OUT/bench2_$side.json')); print('$side', r['ratios'])" 2>&1 | cut -c1-600
done
uptime; date
