#!/usr/bin/env bash
# Session 17, device call B: machine CPU per program split user/system/irq/softirq, and context
# switches (msplit.py), at 16 and 2 workers, for before (46f6e27), after (a chain's reports read
# together + leaner report path + no kill(-1) when nothing is left) and lean (after without
# reading reports together). isolation=namespaces.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before after lean; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
for round in 1 2; do
  for side in before after lean; do
    layers=verifier,engine; [ $side = before ] && layers=floor,engine,verifier
    run $side $D/msplit.py 16 2000 namespaces $layers 2>&1 | sed "s/^/$side r$round /"
  done
done
for side in before after lean; do
  run $side $D/msplit.py 2 1000 namespaces engine,verifier 2>&1 | sed "s/^/$side /"
done
run before $D/msplit.py 2 1000 namespaces floor 2>&1 | sed "s/^/before /"
uptime; date
