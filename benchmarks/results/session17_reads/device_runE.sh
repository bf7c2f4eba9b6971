#!/usr/bin/env bash
# Session 17, device call E: a host with many processes, as a NeMo RL node has (Ray, vLLM, data
# loaders): 2,000 idle processes started first. msplit.py at 16 workers (3,000 programs x 10
# tests, namespaces), in turns: before (46f6e27, kill(-1) after every program) and after
# (5a5d053, kill(-1) only when the program left a process).
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
for side in before after; do
  rm -rf /tmp/$side
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/$side $D/$side >/dev/null 2>&1 || { echo install $side failed; exit 1; }
done
run() { side=$1; shift; (cd /tmp && PYTHONPATH=/tmp/$side:/tmp/site python3 "$@"); }
echo "== processes on the host: $(ps -e --no-headers | wc -l)"
for side in before after; do run $side $D/msplit.py 16 3000 namespaces engine,verifier 2>&1 | sed "s/^/$side few /"; done
sleepers=()
for i in $(seq 1 2000); do sleep 900 & sleepers+=($!); done
echo "== processes on the host: $(ps -e --no-headers | wc -l)"
for side in before after after before; do
  run $side $D/msplit.py 16 3000 namespaces engine,verifier 2>&1 | sed "s/^/$side many /"
done
kill "${sleepers[@]}" 2>/dev/null; wait 2>/dev/null
echo "== processes on the host: $(ps -e --no-headers | wc -l)"
uptime; date
