#!/usr/bin/env bash
# Session 22, device call 11: the pool's workers run `python -s -E`, so they import the host's own
# numpy, not the wheel installed for the benchmarks (/tmp/site): which one, and call 10's starts
# with it.
set -uo pipefail
D=${D:-$PWD/final-device-logs}
S=$D/s22
if [ ! -d /tmp/now ]; then
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $D/whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/now $D/now >/dev/null 2>&1 || { echo install failed; exit 1; }
python3 -m compileall -q -j 16 /tmp/site /tmp/now > /dev/null
fi
(cd /tmp && python3 -s -E -c "import numpy; print('worker numpy', numpy.__version__, numpy.__file__)")
(cd /tmp && PYTHONPATH=/tmp/site python3 -c "import numpy; print('benchmark numpy', numpy.__version__, numpy.__file__)")
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
for preload in default numpy; do
for k in 1 16; do
for i in 1 2; do
(cd /tmp && PYTHONPATH=/tmp/now python3 $S/start_phases.py $k namespaces $preload)
done; done; done
