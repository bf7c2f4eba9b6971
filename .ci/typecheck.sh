#!/usr/bin/env bash
# mypy on the package as installed: processors/ and environments/ become nemo_code_rl.processors
# and nemo_code_rl.environments only through the install's folder mapping, which mypy cannot
# follow in the source tree or an editable install.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
python -m pip install -q --no-deps --no-build-isolation --target "$site" .
cd "$site"
python -m mypy --config-file "$root/pyproject.toml" -p nemo_code_rl
