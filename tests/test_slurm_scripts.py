"""The Slurm scripts: they parse, pass shellcheck, and the multi-node launcher builds the submission
NeMo RL's ``ray.sub`` expects (checked on its ``PRINT_ONLY=1`` output, parsed as a shell would).

The launcher's pre-flight (``nemo_code_rl.launch_check``) is checked over a table of cluster shapes,
and every example command line of the README, docs/training.md and slurm/README.md is run with
stand-in ``sbatch`` / ``srun`` / ``uv`` / ``python`` executables on ``PATH`` that record what they
were asked to run: the training command each example would start is checked word by word."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("omegaconf", reason="the launcher's pre-flight loads configs: pip install omegaconf")

from nemo_code_rl.config_loading import load_resolved
from nemo_code_rl.dry_run import builtin_names, check_config, layout
from nemo_code_rl.launch_check import check_launch

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
        "PYTHON": sys.executable,
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
        "grpo.max_num_steps=20",
        "++logger.name=it's mine",
        "cluster.num_nodes=4",
        "cluster.gpus_per_node=8",
        # the 8-GPU config puts generation on 4 GPUs of one node; on 4 nodes it takes 2 whole nodes
        "policy.generation.colocated.resources.gpus_per_node=8",
        "policy.generation.colocated.resources.num_nodes=2",
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


# --------------------------------------------------------------------------------------------------
# The pre-flight over a table of cluster shapes
# --------------------------------------------------------------------------------------------------

MULTI_TURN_COLOCATED = ["grpo.max_rollout_turns=3", "++env.code_unit_tests.tokenizer=${policy.tokenizer}"]
SETUPS = {
    # name: (config, overrides, colocated)
    "colocated single-turn": ("grpo_code_2gpu.yaml", [], True),
    "colocated multi-turn": ("grpo_code_2gpu.yaml", MULTI_TURN_COLOCATED, True),
    "dedicated single-turn": ("grpo_code_8gpu.yaml", [], False),
    "dedicated multi-turn": ("grpo_code_multiturn_8gpu.yaml", [], False),
}
SHAPES = [(nodes, gpus) for nodes in (1, 2, 4) for gpus in (2, 8)]


def expected_split(nodes: int, gpus: int, colocated: bool) -> tuple[int, int]:
    """NeMo RL's placement (``grpo.setup``), written out: (training GPUs, generation GPUs).

    Colocated: both use every GPU. Dedicated: on one node, generation gets the GPUs the config
    names if they leave some to train (the 8-GPU configs: 4 of 8), else half; on several nodes,
    whole nodes, half of them (the 8-GPU configs name one node's GPUs, which no longer fit).
    """
    total = nodes * gpus
    if colocated:
        return total, total
    if nodes == 1:
        generation = 4 if gpus == 8 else gpus // 2
        return total - generation, generation
    return total - (nodes // 2) * gpus, (nodes // 2) * gpus


@pytest.mark.parametrize("setup", SETUPS)
@pytest.mark.parametrize(("nodes", "gpus"), SHAPES, ids=[f"{n}x{g}" for n, g in SHAPES])
def test_every_shape_gets_a_placement_nemo_rl_accepts(setup: str, nodes: int, gpus: int) -> None:
    config_name, overrides, colocated = SETUPS[setup]

    added, errors, _ = check_launch(config_name, nodes, gpus, overrides)

    assert errors == []
    _, config = load_resolved(config_name, [*overrides, *added])
    assert (config["cluster"]["num_nodes"], config["cluster"]["gpus_per_node"]) == (nodes, gpus)
    placed = layout(config)
    assert (placed.train, placed.generation) == expected_split(nodes, gpus, colocated)
    # the batch splits over the data-parallel ranks NeMo RL makes of the training GPUs
    assert config["policy"]["train_global_batch_size"] % (placed.train // placed.train_parallel) == 0
    assert [f for f in check_config(config, builtin_names()) if f.level == "error"] == []
    assert config["grpo"]["max_rollout_turns"] == (3 if "multi" in setup else 1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--gpus-per-node", "1"), "non-colocated generation on one node needs 1 to 0 GPUs"),
        (("--", "+grpo.max_num_step=5"), "adds a key beside 'grpo.max_num_steps'"),
        (("--", "grpo.max_num_step=5"), "did you mean 'grpo.max_num_steps'?"),
        (("--", "policy.train_global_batch_size=500"), "is not a multiple of 500"),
        (("--", "+env.code_unit_tests.timeout=3"), "did you mean 'timeout_s'?"),
    ],
)
def test_the_pre_flight_stops_a_bad_run_before_sbatch(args, message, tmp_path) -> None:
    bin_dir = stand_ins(tmp_path)
    record = tmp_path / "record.jsonl"
    result = launch(
        "--nodes", "1", *args, PRINT_ONLY="0", PATH=f"{bin_dir}:{os.environ['PATH']}", RECORD=str(record),
        NEMO_RL_DIR=str(fake_nemo_rl(tmp_path)),
    )  # fmt: skip

    assert result.returncode == 1, result.stdout + result.stderr
    assert message in result.stderr and "nothing was submitted" in result.stderr
    assert not record.exists()  # sbatch never ran


def test_without_the_package_on_the_login_node_the_launcher_says_how_to_get_it(tmp_path) -> None:
    result = launch("--nodes", "2", PYTHON="/usr/bin/false")
    assert result.returncode == 2
    assert "pip install -e" in result.stderr and "PREFLIGHT=0" in result.stderr
    skipped = launch("--nodes", "2", PYTHON="/usr/bin/false", PREFLIGHT="0")
    assert skipped.returncode == 0, skipped.stderr
    assert "cluster.num_nodes=2 cluster.gpus_per_node=8" in submission(skipped.stdout)[1]["COMMAND"]


# --------------------------------------------------------------------------------------------------
# Every documented example, with stand-in Slurm executables
# --------------------------------------------------------------------------------------------------

DOCUMENTS = [REPO_ROOT / "README.md", REPO_ROOT / "docs" / "training.md", SLURM / "README.md"]
STAND_IN = """#!{python}
import json, os, subprocess, sys
name = os.path.basename(sys.argv[0])
keep = ("COMMAND", "SETUP_COMMAND", "CONTAINER", "MOUNTS", "GPUS_PER_NODE", "DEDICATED_RAY_HEAD", "VIRTUAL_ENV")
with open(os.environ["RECORD"], "a") as handle:
    handle.write(json.dumps({{"tool": name, "argv": sys.argv[1:], "cwd": os.getcwd(),
                             "env": {{k: os.environ[k] for k in keep if k in os.environ}}}}) + "\\n")
words = sys.argv[1:]
while words and words[0].startswith("--"):
    words = words[1:]  # sbatch's and srun's own options
if name == "sbatch":  # what Slurm does later: run the job script on a node
    env = {{**os.environ, "SLURM_SUBMIT_DIR": os.getcwd(), "SLURM_JOB_ID": "42"}}
    raise SystemExit(subprocess.run(["bash", *words], env=env).returncode)
if name == "srun":
    os.execvp(words[0], words)
"""


def stand_ins(tmp_path: Path) -> Path:
    """``sbatch``, ``srun``, ``uv`` and ``python`` that record their arguments (sbatch runs the job
    script, srun runs its command; ``python`` is the trainer, which only records here)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in ("sbatch", "srun", "uv", "python"):
        path = bin_dir / name
        path.write_text(STAND_IN.format(python=sys.executable))
        path.chmod(0o755)
    return bin_dir


def fake_nemo_rl(tmp_path: Path) -> Path:
    """A NeMo RL checkout whose ``ray.sub`` records the variables it got instead of starting Ray."""
    folder = tmp_path / "RL"
    folder.mkdir(exist_ok=True)
    (folder / "ray.sub").write_text("#!/bin/bash\nexit 0\n")  # the stand-in sbatch records its variables
    return folder


def documented_commands() -> list[tuple[str, str]]:
    """``(document, command line)`` for every example that runs one of the Slurm scripts."""
    found = []
    for document in DOCUMENTS:
        blocks = re.findall(r"```bash\n(.*?)```", document.read_text(), re.DOTALL)
        for block in blocks:
            for line in block.replace("\\\n", " ").splitlines():
                line = line.split(" # ")[0].strip()
                if "slurm/launch_multinode.sh" in line or "slurm/grpo_2gpu.sbatch" in line:
                    found.append((document.relative_to(REPO_ROOT).as_posix(), line))
    return found


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_the_documents_hold_examples_of_both_scripts() -> None:
    commands = " ".join(line for _, line in documented_commands())
    assert commands.count("launch_multinode.sh") >= 4 and commands.count("grpo_2gpu.sbatch") >= 4


@pytest.mark.parametrize(("document", "line"), documented_commands(), ids=lambda value: value[:60])
def test_every_documented_example_starts_the_training_it_describes(document, line, tmp_path) -> None:
    words = shlex.split(line)
    variables = {}
    while "=" in words[0] and not words[0].startswith("-"):
        key, _, value = words.pop(0).partition("=")
        variables[key] = value
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "activate").write_text("export VIRTUAL_ENV=" + str(venv) + "\n")
    placeholders = {"NEMO_RL_DIR": str(fake_nemo_rl(tmp_path)), "VENV": str(venv)}
    variables = {key: placeholders.get(key, value) for key, value in variables.items()}
    record = tmp_path / "record.jsonl"
    unset = {"NUM_NODES", "GPUS_PER_NODE", "CONFIG", "GRES", "PRINT_ONLY", "CONTAINER", "VENV"}
    env = {k: v for k, v in os.environ.items() if k not in unset}
    if "launch_multinode.sh" in line:  # what its README section exports first
        env.update(CONTAINER="/images/nemo-rl.sqsh", ACCOUNT="acct", PARTITION="batch", **placeholders)
    env = {
        **env,
        **variables,
        "PYTHON": sys.executable,
        "PATH": f"{stand_ins(tmp_path)}:{os.environ['PATH']}",
        "RECORD": str(record),
    }

    result = subprocess.run(words, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)

    assert result.returncode == 0, f"{document}: {line}\n{result.stdout}\n{result.stderr}"
    calls = records(record)
    if variables.get("PRINT_ONLY") == "1":
        assert calls == [] and "sbatch --nodes=" in result.stdout
        return
    tools = [call["tool"] for call in calls]
    if "launch_multinode.sh" in line:
        assert tools[0] == "sbatch" and calls[0]["argv"][-1].endswith("ray.sub")
        command = shlex.split(calls[0]["env"]["COMMAND"])
        assert command[:6] == ["cd", str(REPO_ROOT), "&&", "python", "-m", "nemo_code_rl.run"]
        trainer = command[6:]
        nodes = int(words[words.index("--nodes") + 1])
        assert f"cluster.num_nodes={nodes}" in trainer
    else:
        assert tools[0] == "sbatch" and "srun" in tools and tools[-1] == "python"
        srun = calls[tools.index("srun")]
        image = f"--container-image={variables.get('CONTAINER')}"
        assert (image in srun["argv"]) == ("CONTAINER" in variables)
        if "VENV" in variables:
            assert calls[-1]["env"]["VIRTUAL_ENV"] == str(venv)
        assert calls[tools.index("uv")]["argv"][-2:] == ["-e", str(REPO_ROOT)]
        python = calls[-1]["argv"]
        assert python[:2] == ["-m", "nemo_code_rl.run"]
        trainer = python[2:]
        assert trainer[2:] == words[words.index("slurm/grpo_2gpu.sbatch") + 1 :]
        # the job's config and overrides pass the same checks for its one node of 2 GPUs
        _, errors, _ = check_launch(trainer[1], 1, 2, trainer[2:])
        assert errors == []
    assert trainer[0] == "--config"
