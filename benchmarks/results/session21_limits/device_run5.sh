#!/usr/bin/env bash
# Session 21, device call 5: main (dd3e617) as it is ("before") and with supervisor.py,
# template.py and wire.py compiled by mypyc on the development VM ("mypyc"), from the trees
# themselves (PYTHONPATH): CPU per program by process at 16 workers (worker_cost.py), and the
# engine and verifier in alternating rounds (layers.py).
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s21
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
run() { side=$1; shift; (cd /tmp && PYTHONPATH=$D/$side:/tmp/site python3 "$@"); }
run mypyc -c "import nemo_code_rl.engine.supervisor as s; print(s.__file__)"
for round in 1 2; do
  for side in before mypyc; do
    echo "== worker_cost $side round $round"
    run $side $D/$side/benchmarks/worker_cost.py --workers 16 --programs 2000 --tests 10 --isolation namespaces --verifier --no-floor --repeats 2 2>&1 | grep "tests=10" | tee -a $OUT/worker_cost16_$side.txt
  done
done
echo "== layers, 16 workers, 2000 programs, alternating"
for round in 1 2 3 4 5 6; do
  if [ $((round % 2)) = 1 ]; then order="before mypyc"; else order="mypyc before"; fi
  for side in $order; do
    echo "$round $side $(run $side $S/layers.py 16 2000 2 2>&1 | tail -1)" | tee -a $OUT/layers16.txt
  done
done
uptime; date
