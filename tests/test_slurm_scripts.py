"""The Slurm scripts: they parse, pass shellcheck, and the multi-node launcher builds the submission
NeMo RL's ``ray.sub`` expects (checked on its ``PRINT_ONLY=1`` output, parsed as a shell would)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SLURM = REPO_ROOT / "slurm"
SCRIPTS = sorted(path for path in SLURM.iterdir() if path.suffix in {".sh", ".sbatch"})
LAUNCHER = SLURM / "launch_multinode.sh"
CONTAINER = "/lustre/images/nemo-rl v0.6.0.sqsh"  # a space, to check quoting
MOUNTS = f"{REPO_ROOT}:{REPO_ROOT},/lustre/hf:/root/.cache/huggingface"


def test_scripts_are_found():
    assert {path.name for path in SCRIPTS} >= {"grpo_2gpu.sbatch", "launch_multinode.sh"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_bash_syntax(script):
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_shellcheck(script):
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (apt-get install shellcheck)")
    result = subprocess.run(["shellcheck", "--shell=bash", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_single_node_job_asks_for_two_gpus_and_the_2gpu_config():
    text = (SLURM / "grpo_2gpu.sbatch").read_text()
    directives = dict(re.findall(r"^#SBATCH --([a-z-]+)=(\S+)$", text, re.MULTILINE))
    assert directives["nodes"] == "1" and directives["gpus-per-node"] == "2"
    assert "CONFIG=${CONFIG:-grpo_code_2gpu.yaml}" in text
    assert 'exec python -m nemo_code_rl.run --config "$config" "$@"' in text


def launch(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in {"NUM_NODES", "GPUS_PER_NODE", "CONFIG", "GRES"}}
    variables = {
        "PRINT_ONLY": "1",
        "CONTAINER": CONTAINER,
        "MOUNTS": MOUNTS,
        "ACCOUNT": "acct",
        "PARTITION": "batch",
        "NEMO_RL_DIR": "/opt/nemo-rl",
        **env,
    }
    return subprocess.run(
        ["bash", str(LAUNCHER), *args], capture_output=True, text=True, env={**base, **variables}
    )


def submission(stdout: str) -> tuple[list[str], dict[str, str], list[str]]:
    """The printed submission as a shell reads it: the folder it runs in, the variables, sbatch's argv."""
    words = shlex.split(stdout.replace("\\\n", " "))
    assert words[0] == "cd" and words[2] == "&&", stdout
    assignments = [word for word in words[3:] if re.match(r"^[A-Z_]+=", word)]
    variables = dict(word.split("=", 1) for word in assignments)
    return words[:2], variables, words[3 + len(assignments) :]


def test_print_only_shows_the_ray_sub_submission():
    result = launch(
        "--nodes", "4", "--gpus-per-node=8", "--", "grpo.max_num_steps=20", "++logger.name=it's mine"
    )
    assert result.returncode == 0, result.stderr

    cd, variables, sbatch = submission(result.stdout)

    assert cd == ["cd", str(REPO_ROOT)]
    assert variables["CONTAINER"] == CONTAINER
    assert variables["MOUNTS"] == MOUNTS
    assert variables["GPUS_PER_NODE"] == "8"
    assert sbatch == [
        "sbatch",
        "--nodes=4",
        "--account=acct",
        "--partition=batch",
        "--time=4:00:00",
        "--job-name=nemo-code-rl",
        "--gres=gpu:8",
        "/opt/nemo-rl/ray.sub",
    ]
    assert shlex.split(variables["COMMAND"]) == [
        "cd",
        str(REPO_ROOT),
        "&&",
        "python",
        "-m",
        "nemo_code_rl.run",
        "--config",
        "grpo_code_8gpu.yaml",
        "cluster.num_nodes=4",
        "cluster.gpus_per_node=8",
        "grpo.max_num_steps=20",
        "++logger.name=it's mine",
    ]
    setup = variables["SETUP_COMMAND"]
    assert f'uv pip install --python "$(command -v python)" -e {REPO_ROOT}' in setup
    assert f"python -m pip install -e {REPO_ROOT}" in setup
    for command in (setup, variables["COMMAND"]):
        check = subprocess.run(["bash", "-n", "-c", command], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
    assert "/opt/nemo-rl/ray.sub does not exist" in result.stderr


def test_environment_variables_and_a_dedicated_head():
    result = launch(
        NUM_NODES="3",
        GPUS_PER_NODE="4",
        CONFIG="grpo_code_multiturn_8gpu.yaml",
        GRES="",
        DEDICATED_RAY_HEAD="1",
        PIP_ARGS="--no-deps --no-build-isolation",
    )
    assert result.returncode == 0, result.stderr

    _, variables, sbatch = submission(result.stdout)

    assert "--nodes=3" in sbatch and not any(word.startswith("--gres") for word in sbatch)
    assert variables["DEDICATED_RAY_HEAD"] == "1"
    command = shlex.split(variables["COMMAND"])
    assert command[command.index("--config") + 1] == "grpo_code_multiturn_8gpu.yaml"
    assert "cluster.num_nodes=2" in command and "cluster.gpus_per_node=4" in command
    assert "python -m pip install --no-deps --no-build-isolation -e" in variables["SETUP_COMMAND"]


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        ((), {"CONTAINER": ""}, "set CONTAINER"),
        ((), {"ACCOUNT": ""}, "set ACCOUNT and PARTITION"),
        ((), {"NEMO_RL_DIR": ""}, "set NEMO_RL_DIR"),
        (("--nodes", "0"), {}, "positive integer"),
        (("--frobnicate",), {}, "unknown option --frobnicate"),
    ],
)
def test_launcher_refuses_bad_input(args, env, message):
    result = launch(*args, **env)
    assert result.returncode == 2
    assert message in result.stderr


def test_launcher_help():
    result = subprocess.run(["bash", str(LAUNCHER), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "PRINT_ONLY=1" in result.stdout and "#" not in result.stdout.splitlines()[0]


def test_launcher_is_executable():
    """The README runs it as ``slurm/launch_multinode.sh``."""
    assert LAUNCHER.stat().st_mode & 0o111
