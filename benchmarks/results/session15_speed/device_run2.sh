#!/usr/bin/env bash
# Last device call, on the same warm machine (/tmp/before from the first call): "after" is the
# session's whole tree (early score start and mid-input cancellation merged too), installed to
# /tmp/after3. The realistic mix at 16 workers, then bench's table at 2 workers, before and after
# in turns (no regression at 2 workers: row a and d/a). isolation=namespaces.
set -uo pipefail
D=${D:-final-device-logs}
echo "== device"; nproc; nvidia-smi -L; uptime
[ -d /tmp/before ] || { echo "the first call's install is gone: run device_run1.sh first"; exit 1; }
rm -rf /tmp/after3
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/after3 $D/after >/dev/null 2>&1 || { echo install after failed; exit 1; }
before() { (cd /tmp && PYTHONPATH=/tmp/before:/tmp/site python3 "$@"); }
after() { (cd /tmp && PYTHONPATH=/tmp/after3:/tmp/site python3 "$@"); }
echo "== mix, 16 workers, after"
after -m nemo_code_rl.cli bench --mix --workers 16 --isolation namespaces --json $OUT/mix16_after.json 2>&1 | tail -15
echo "== bench, 2 workers, before / after / after / before"
for side in before after after before; do
  echo "-- $side"
  $side -m nemo_code_rl.cli bench --workers 2 --isolation namespaces --repeats 5 2>&1 | tail -12
done
uptime
