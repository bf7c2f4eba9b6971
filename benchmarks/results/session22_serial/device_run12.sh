#!/usr/bin/env bash
# Session 22, device call 12: a real pool's start, each worker's phases timed (worker_timeline.py,
# boot_probe/): where the 16-worker start's 0.41-0.49 s go, against call 10-11's replica.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s22
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
rm -rf /tmp/now
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now $S/boot_probe > /dev/null
for spec in "16 namespaces" "16 namespaces" "16 namespaces" "1 namespaces" "1 namespaces" "16 none" "16 none"; do
  (cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 $S/worker_timeline.py $spec > /tmp/wt.all 2>&1)
  echo -n "$spec: "; python3 $S/timeline_summary.py /tmp/wt.all
done
