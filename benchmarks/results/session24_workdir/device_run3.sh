#!/usr/bin/env bash
# Session 24, device call 3: before (main at 5c9d484) against now, on one machine, in turns:
# idle_probe.py (the floor, the engine and the verifier, best of two each, with the machine's
# idle share) at 16 workers, five rounds, then at 2 workers, two rounds; 2,000 programs.
# idle_probe.py is session 23's (benchmarks/results/session23_split/idle_probe.py), copied to $S.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s24
echo "== device"; nproc; uname -r; python3 --version; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before now; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
python3 -m compileall -q -j 16 /tmp/site /tmp/before /tmp/now > /dev/null
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
for round in 1 2 3 4 5; do
  for side in before now; do
    echo "== 16 workers, round $round, $side"
    run $side $S/idle_probe.py 2000 16 16
  done
done
for round in 1 2; do
  for side in before now; do
    echo "== 2 workers, round $round, $side"
    run $side $S/idle_probe.py 2000 2 2
  done
done
