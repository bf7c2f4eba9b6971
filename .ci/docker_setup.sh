#!/usr/bin/env bash
# CI: Docker for the engine's Docker backend. Installs docker.io and debootstrap, starts dockerd
# without a bridge or iptables (containers run with --network none anyway), and builds the
# minimal test image (Debian with python3, python3-numpy and g++ for C++ programs). Idempotent:
# every step is skipped when its result is already there (an image without g++, built before
# C++ support, is rebuilt). Prints how long it took.
set -euo pipefail
started=$(date +%s)
image="${NEMO_CODE_RL_DOCKER_IMAGE:-nemo-code-rl-test:latest}"

if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
    nohup dockerd --bridge=none --iptables=false >/var/log/nemo-code-rl-dockerd.log 2>&1 &
    for _ in $(seq 60); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    docker info >/dev/null 2>&1 || { tail -n 30 /var/log/nemo-code-rl-dockerd.log; exit 1; }
fi

if ! docker image inspect "$image" >/dev/null 2>&1 \
    || ! docker run --rm --network none "$image" g++ --version >/dev/null 2>&1; then
    root=$(mktemp -d)
    debootstrap --variant=minbase --include=python3,python3-numpy,g++ bookworm "$root" >/dev/null
    tar -C "$root" -c . | docker import - "$image" >/dev/null
    rm -rf "$root"
fi

echo "docker setup: $(($(date +%s) - started)) s (image $image)"
