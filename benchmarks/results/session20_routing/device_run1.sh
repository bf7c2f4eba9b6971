#!/usr/bin/env bash
# Session 20, device call 1: where score's fixed cost goes at 16 workers (main at dd4eea0).
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s20
echo "== device"; nproc; python3 --version; nvidia-smi -L; uptime; date; uname -r
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
rm -rf /tmp/now; python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
export PYTHONPATH=/tmp/now:/tmp/site
cd /tmp
python3 $S/make_inputs.py
echo "== interpreter and imports"
for i in 1 2 3; do /usr/bin/time -f "python -c pass %e" python3 -c pass; /usr/bin/time -f "import score path %e" python3 -c "import nemo_code_rl.cli, nemo_code_rl.score_cli, nemo_code_rl.unit_tests.verification"; done
python3 -X importtime -c "import nemo_code_rl.cli, nemo_code_rl.score_cli, nemo_code_rl.unit_tests.verification, nemo_code_rl.unit_tests.scoring" 2> $OUT/importtime.txt
sort -t'|' -k2 -n $OUT/importtime.txt | tail -12
echo "== pool start"
python3 $S/pool_start.py $OUT/pool_start.json
echo "== worker phases"
rm -rf /tmp/ptree; mkdir /tmp/ptree; cp -r $D/now/nemo_code_rl /tmp/ptree/
python3 $S/worker_phases.py /tmp/ptree $OUT/worker_phases.json
echo "== score timeline"
for n in 20 2000; do for w in 2 16; do for rep in 1 2 3; do
  python3 $S/score_timeline.py $(date +%s.%N) score /tmp/p$n.jsonl /tmp/c$n.jsonl --workers $w --isolation namespaces --quiet --no-calibrate --timeout 5 -o /tmp/r.jsonl | sed "s/^/n=$n w=$w /" | tee -a $OUT/score_timeline.txt
done; done; done
uptime; date
