#!/usr/bin/env bash
# Submit a multi-node GRPO run on code through NeMo RL's ray.sub: one Ray cluster over the whole
# allocation, the trainer on its head node.
#
#   CONTAINER=/path/to/nemo-rl.sqsh NEMO_RL_DIR=/path/to/RL ACCOUNT=acct PARTITION=batch \
#       slurm/launch_multinode.sh --nodes 4 --gpus-per-node 8 [--config FILE] [--] [OVERRIDE...]
#
# Every node's container gets this package installed (editable, from REPO) by ray.sub's
# SETUP_COMMAND, which ray.sub runs on the head and on each worker before `ray start`: the
# environment actors and their sandbox workers are Ray actors that may land on any node, and they
# import nemo_code_rl with the container's Python. The head installs first; the workers only once
# the head is up. COMMAND, run on the head once every node has joined, starts the trainer with
# the cluster size set to the allocation.
#
# Before anything is submitted (also with PRINT_ONLY=1), the pre-flight runs the dry run's checks
# on this node for this shape (python -m nemo_code_rl.launch_check): a misspelled override or a
# shape NeMo RL cannot place fails here in seconds, not after the allocation. It also fits
# non-colocated generation to the shape (whole nodes on several nodes, half of them; half the GPUs
# on one node) where the config's own placement does not fit, and adds those overrides.
#
# Environment (flags win over the variables they mirror):
#   CONTAINER      (required) NeMo RL container image
#   NEMO_RL_DIR    NeMo RL checkout holding ray.sub; or RAY_SUB, the path of ray.sub itself
#   ACCOUNT, PARTITION  (required) Slurm account and partition (ray.sub's own are placeholders)
#   NUM_NODES      nodes (--nodes, default 2)
#   GPUS_PER_NODE  GPUs per node (--gpus-per-node, default 8)
#   CONFIG         training config (--config, default grpo_code_8gpu.yaml)
#   REPO           this repository (default: the folder above this script); it is also the
#                  submit folder, so ray.sub writes its <job id>-logs there (or in BASE_LOG_DIR)
#   MOUNTS         container mounts (default: REPO at the same path); REPO must be visible inside
#   WALLTIME       job time limit (default 4:00:00); JOB_NAME (default nemo-code-rl)
#   GRES           the sbatch --gres value (default gpu:GPUS_PER_NODE); empty on clusters without GRES
#   PIP_ARGS       extra install arguments, e.g. "--no-deps --no-build-isolation" on offline nodes
#   DEDICATED_RAY_HEAD=1  ray.sub keeps the first node GPU-free: the trainer gets one node less
#   PRINT_ONLY=1   print the submission instead of running it
#   PYTHON         the Python that runs the pre-flight on this node (default python3); it needs this
#                  package and omegaconf: $PYTHON -m pip install -e REPO omegaconf
#   PREFLIGHT=0    skip the pre-flight (the trainer still checks the config when it starts)
# Other ray.sub variables (BASE_LOG_DIR, HF_HOME, HF_TOKEN, WANDB_API_KEY, ...) and sbatch's own
# SBATCH_* input variables pass through the environment.
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

die() {
    echo "launch_multinode.sh: error: $*" >&2
    exit 2
}

# One shell word, readable: bare when safe, else in single quotes.
quote() {
    local closed="'\\''"
    if [[ "$1" =~ ^[A-Za-z0-9_./:=,+@%^-]+$ ]]; then
        printf '%s' "$1"
    else
        printf "'%s'" "${1//\'/$closed}"
    fi
}

# A command line from words, each quoted as needed.
join_quoted() {
    local word line=""
    for word in "$@"; do
        line+="${line:+ }$(quote "$word")"
    done
    printf '%s' "$line"
}

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
NUM_NODES=${NUM_NODES:-2}
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
CONFIG=${CONFIG:-grpo_code_8gpu.yaml}
CONTAINER=${CONTAINER:-}
MOUNTS=${MOUNTS:-$REPO:$REPO}
ACCOUNT=${ACCOUNT:-}
PARTITION=${PARTITION:-}
WALLTIME=${WALLTIME:-4:00:00}
JOB_NAME=${JOB_NAME:-nemo-code-rl}
PIP_ARGS=${PIP_ARGS:-}
DEDICATED_RAY_HEAD=${DEDICATED_RAY_HEAD:-0}
PRINT_ONLY=${PRINT_ONLY:-0}
PYTHON=${PYTHON:-python3}
PREFLIGHT=${PREFLIGHT:-1}

while (($#)); do
    case $1 in
        --nodes) NUM_NODES=${2:?--nodes needs a value}; shift 2 ;;
        --nodes=*) NUM_NODES=${1#*=}; shift ;;
        --gpus-per-node) GPUS_PER_NODE=${2:?--gpus-per-node needs a value}; shift 2 ;;
        --gpus-per-node=*) GPUS_PER_NODE=${1#*=}; shift ;;
        --config) CONFIG=${2:?--config needs a value}; shift 2 ;;
        --config=*) CONFIG=${1#*=}; shift ;;
        -h | --help) usage; exit 0 ;;
        --) shift; break ;;
        -*) die "unknown option $1 (trainer overrides go after --)" ;;
        *) break ;;
    esac
done
GRES=${GRES-gpu:$GPUS_PER_NODE}
RAY_SUB=${RAY_SUB:-${NEMO_RL_DIR:+$NEMO_RL_DIR/ray.sub}}

[[ "$NUM_NODES" =~ ^[1-9][0-9]*$ ]] || die "the number of nodes must be a positive integer, got '$NUM_NODES'"
[[ "$GPUS_PER_NODE" =~ ^[1-9][0-9]*$ ]] || die "GPUs per node must be a positive integer, got '$GPUS_PER_NODE'"
[[ -n "$CONTAINER" ]] || die "set CONTAINER to a NeMo RL container image"
[[ -n "$ACCOUNT" && -n "$PARTITION" ]] || die "set ACCOUNT and PARTITION"
[[ -n "$RAY_SUB" ]] || die "set NEMO_RL_DIR to a NeMo RL checkout (or RAY_SUB to its ray.sub)"
[[ -f "$REPO/pyproject.toml" ]] || die "REPO=$REPO is not the nemo-code-rl repository"

TRAIN_NODES=$NUM_NODES
if [[ "$DEDICATED_RAY_HEAD" == 1 ]]; then
    ((NUM_NODES > 1)) || die "DEDICATED_RAY_HEAD=1 needs at least 2 nodes"
    TRAIN_NODES=$((NUM_NODES - 1))
fi

# The pre-flight: the dry run's checks for this shape; it prints the overrides the trainer gets.
if [[ "$PREFLIGHT" == 1 ]]; then
    if ! (cd "$REPO" && "$PYTHON" -c 'import nemo_code_rl.launch_check' >/dev/null 2>&1); then
        die "the pre-flight needs this package and omegaconf in $PYTHON: $PYTHON -m pip install -e $REPO omegaconf (or PYTHON=... a Python that has them; PREFLIGHT=0 skips the pre-flight)"
    fi
    if ! added=$(cd "$REPO" && "$PYTHON" -m nemo_code_rl.launch_check --config "$CONFIG" \
        --nodes "$TRAIN_NODES" --gpus-per-node "$GPUS_PER_NODE" -- "$@"); then
        echo "launch_multinode.sh: the pre-flight rejected this run (see above); nothing was submitted" >&2
        exit 1
    fi
    mapfile -t shape <<<"$added"
else
    shape=("cluster.num_nodes=$TRAIN_NODES" "cluster.gpus_per_node=$GPUS_PER_NODE")
fi

# uv first: NeMo RL's container keeps its environment with uv, which may leave pip out.
read -r -a pip_args <<<"$PIP_ARGS"
install=$(join_quoted "${pip_args[@]}" -e "$REPO")
SETUP_COMMAND="if command -v uv >/dev/null 2>&1; then uv pip install --python \"\$(command -v python)\" $install; else python -m pip install $install; fi"
COMMAND="cd $(quote "$REPO") && $(join_quoted python -m nemo_code_rl.run --config "$CONFIG" "$@" "${shape[@]}")"

submit=(sbatch --nodes="$NUM_NODES" --account="$ACCOUNT" --partition="$PARTITION"
    --time="$WALLTIME" --job-name="$JOB_NAME")
if [[ -n "$GRES" ]]; then
    submit+=(--gres="$GRES")
fi
submit+=("$RAY_SUB")
variables=("CONTAINER=$CONTAINER" "MOUNTS=$MOUNTS" "GPUS_PER_NODE=$GPUS_PER_NODE"
    "DEDICATED_RAY_HEAD=$DEDICATED_RAY_HEAD" "SETUP_COMMAND=$SETUP_COMMAND" "COMMAND=$COMMAND")

if [[ "$PRINT_ONLY" == 1 ]]; then
    [[ -f "$RAY_SUB" ]] || echo "launch_multinode.sh: warning: $RAY_SUB does not exist" >&2
    printf 'cd %s && \\\n' "$(quote "$REPO")"
    for variable in "${variables[@]}"; do
        printf '%s=%s \\\n' "${variable%%=*}" "$(quote "${variable#*=}")"
    done
    printf '%s\n' "$(join_quoted "${submit[@]}")"
    exit 0
fi

[[ -f "$RAY_SUB" ]] || die "$RAY_SUB does not exist"
command -v sbatch >/dev/null 2>&1 || die "sbatch not found: run this on a Slurm login node"
cd "$REPO"
exec env "${variables[@]}" "${submit[@]}"
