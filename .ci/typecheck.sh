#!/usr/bin/env bash
# mypy on the package as installed: processors/ and environments/ become nemo_code_rl.processors
# and nemo_code_rl.environments only through the install's folder mapping, which mypy cannot
# follow in the source tree or an editable install. The build runs on a copy, so the checkout
# gains no build/ folder.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python - "$root" "$work/src" <<'PY'
import shutil, sys
shutil.copytree(sys.argv[1], sys.argv[2], ignore=shutil.ignore_patterns(
    ".git", ".venv*", "build", "*.egg-info", "__pycache__", "logs", "*-logs"))
PY
python -m pip install -q --no-deps --target "$work/site" "$work/src"
cd "$work/site"
python -m mypy --config-file "$root/pyproject.toml" -p nemo_code_rl
