#!/usr/bin/env bash
# Session 28, device call 4: the verifier's batch against the engine's, layer by layer
# (probe_layers.py: engine, judged, planned, verifier), 20,000 programs at 16 workers, four rounds.
set -uo pipefail
D=$PWD/final-device-logs
source "$D/now/benchmarks/device_trees.sh" now
PYTHONPATH=/tmp/now:/tmp/site python3 "$D/probe_layers.py" 20000 16 4
date
