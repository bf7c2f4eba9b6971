#!/usr/bin/env bash
# Session 22, device call 6: each preload's import time inside a sandboxed program, namespaces and
# none (call 5: under namespaces the preloads cost a worker 0.22 s, without them 0.06 s).
set -uo pipefail
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; python3 --version; uptime; date
if [ ! -d /tmp/now ]; then
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now > /dev/null
fi
for isolation in namespaces none namespaces; do
(cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 $D/s22/preload_imports.py $isolation)
done
(cd /tmp && PYTHONPATH=/tmp/now:/tmp/site python3 -X importtime -c "import numpy" 2>&1 | sort -t'|' -k2 -n | tail -5)
ls /tmp/site/numpy/__pycache__ | head -3
