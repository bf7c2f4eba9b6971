#!/usr/bin/env bash
# Device call 1 of 2 for issue 18: the model file is 98 MB, over one call's 64 MiB, so its first
# half travels now and waits in /tmp/model for call 2 (the machine stays warm between the calls).
set -uo pipefail
D=$(cd final-device-logs && pwd)
echo "== device"; nproc; python3 --version; nvidia-smi -L
mkdir -p /tmp/model && cp $D/gguf/part.aa /tmp/model/ && ls -la /tmp/model
