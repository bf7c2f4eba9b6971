#!/usr/bin/env bash
# Session 21, device call 2: main (dd3e617) on longer batches: scaling.py at 8,000 programs (the
# verifier's 2 -> 16 share with the per-batch costs amortized), and score / verifier / floor at 16
# workers over batch sizes 2,000, 8,000 and 20,000 (score's fixed cost against its cost per program).
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s21
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
rm -rf /tmp/now
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
run() { (cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 "$@"); }
echo "== batch sizes, 16 workers"
run $S/batch_sizes.py 16 2000,8000,20000 2 $OUT/batch_sizes16.json 2>&1 | tail -5
for round in 1 2; do
  echo "== scaling, 8000 programs, round $round"
  run $D/now/benchmarks/scaling.py --workers 2 16 --programs 8000 --isolation namespaces --repeats 1 --json $OUT/scaling8000_$round.json 2>&1 | grep -i "workers:\|rror"
done
uptime; date
