# Sourced by a device call's script (benchmarks/results/*/device_run*.sh) that compares trees:
#     D=$PWD/final-device-logs; source $D/now/benchmarks/device_trees.sh before now
# installs the carried wheels ($D/whl) into /tmp/site and each named tree ($D/<name>, a copy of
# the repository) into /tmp/<name>, compiles them all (an uncompiled tree pays its compiling in
# every fresh interpreter it times), exports PYTHONPATH=/tmp/site, makes $OUT and enters /tmp.
D=${D:-$PWD/final-device-logs}
echo "== device"; nproc; uname -r; python3 --version; date
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$D"/whl/*.whl || exit 1
for side in "$@"; do
  rm -rf "/tmp/$side"
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target "/tmp/$side" "$D/$side" >/dev/null 2>&1 || { echo "install $side failed"; exit 1; }
done
python3 -m compileall -q -j 16 /tmp/site "${@/#//tmp/}" > /dev/null
export PYTHONPATH=/tmp/site
mkdir -p "$OUT"
cd /tmp || exit 1
