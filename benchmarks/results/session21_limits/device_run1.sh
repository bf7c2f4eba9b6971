#!/usr/bin/env bash
# Session 21, device call 1: the pool's processes (workers, templates, programs) at a lower CPU
# priority than the routing process (NCR_NICE, a probe-only switch of the probe tree), in
# alternating rounds at 16 and 2 workers; `score` at 16 workers; scaling.py with and without.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s21
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
rm -rf /tmp/now
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
run() { (cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 "$@"); }
run $S/make_inputs.py
echo "== nice A/B, 16 workers"
run $S/nice_ab.py 16 8 0,2,5 2000 $OUT/nice_ab16.json 2>&1 | tail -40
echo "== score, 16 workers"
run $S/score_pairs.py 16 6 0,2,5 $OUT/score16.json 2>&1 | tail -10
echo "== nice A/B, 2 workers"
run $S/nice_ab.py 2 2 0,2,5 2000 $OUT/nice_ab2.json 2>&1 | tail -30
for setting in 0 2; do
  echo "== scaling NCR_NICE=$setting"
  NCR_NICE=$setting run $D/now/benchmarks/scaling.py --workers 2 16 --programs 2000 --isolation namespaces --repeats 2 --json $OUT/scaling_nice$setting.json 2>&1 | grep -i "workers:\|rror"
done
uptime; date
