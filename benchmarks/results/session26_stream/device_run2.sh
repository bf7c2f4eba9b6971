#!/usr/bin/env bash
# Session 26, device call 2: where score's routing process spends its CPU at 16 workers
# (main at 857b239): py-spy samples of the process (on-CPU only, 250 Hz) while it scores
# 20,000 programs, after a timeline run of the same job without the profiler.
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
python3 $D/s26/score_timeline.py $(python3 -c 'import time; print(time.time())') $ARGS -o /tmp/r0.jsonl | tail -1 > $OUT/timeline.json
cat $OUT/timeline.json
/tmp/site/bin/py-spy record --nonblocking -r 250 -f raw -o $OUT/score.raw -- python3 -c "import sys; from nemo_code_rl.cli import main; sys.exit(main(sys.argv[1:]))" $ARGS -o /tmp/r1.jsonl 2>&1 | tail -3
ls -la $OUT
date
