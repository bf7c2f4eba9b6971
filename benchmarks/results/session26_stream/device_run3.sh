#!/usr/bin/env bash
# Session 26, device call 3: where the workers' processes spend their CPU while score judges
# 20,000 programs at 16 workers (main at 857b239): py-spy samples (on-CPU, 100 Hz) of score and
# every process under it (supervisors, templates, programs).
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; uname -r; python3 --version; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
rm -rf /tmp/now
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/before >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now > /dev/null
mkdir -p $OUT
cd /tmp
export PYTHONPATH=/tmp/now:/tmp/site
python3 $D/s26/mk.py 20000 /tmp
ARGS="score /tmp/sp20000.jsonl /tmp/sc20000.jsonl --workers 16 --isolation namespaces --quiet --no-calibrate --timeout 5"
/usr/bin/time -v python3 -c "import sys; from nemo_code_rl.cli import main; sys.exit(main(sys.argv[1:]))" $ARGS -o /tmp/r0.jsonl 2>&1 | grep -E "Elapsed|User time|System time" 
/tmp/site/bin/py-spy record --subprocesses --nonblocking -r 100 -f raw -o $OUT/tree.raw -- python3 -c "import sys; from nemo_code_rl.cli import main; sys.exit(main(sys.argv[1:]))" $ARGS -o /tmp/r1.jsonl 2>&1 | tail -3
ls -la $OUT
date
