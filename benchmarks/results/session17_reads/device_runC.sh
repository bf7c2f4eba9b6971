#!/usr/bin/env bash
# Session 17, device call C: does reading a chain's reports together save machine CPU at 16
# workers? msplit.py (3,000 programs x 10 tests, 16 workers, namespaces), four rounds in turns:
# before (46f6e27), after (reports read together, leaner report path, no kill(-1) when nothing
# is left) and lean (after without reading reports together); the floor each round.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before after lean; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
for round in 1 2 3 4; do
  order="before after lean"; [ $((round % 2)) = 0 ] && order="lean after before"
  for side in $order; do
    layers=engine,verifier; [ $side = before ] && layers=floor,engine,verifier
    run $side $D/msplit.py 16 3000 namespaces $layers 2>&1 | sed "s/^/$side r$round /"
  done
done
uptime; date
