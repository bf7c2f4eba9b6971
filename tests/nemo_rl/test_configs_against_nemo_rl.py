"""Our configs and documented command lines, checked by NeMo RL itself (the snapshot on ``PYTHONPATH``):
its loader and override parser give the same config as ours, its ``MasterConfig`` accepts it, and a
misspelled NeMo RL key fails. Each fact the dry run copies from NeMo RL is checked against the
snapshot's code, so an upgrade that changes one fails the test naming it. Skipped where NeMo RL's
GRPO module does not import (it needs Python >= 3.12)."""

from __future__ import annotations

import inspect
import re
import shlex
from pathlib import Path

import pytest

try:
    from nemo_rl.algorithms import grpo
    from nemo_rl.models.policy import lm_policy
    from nemo_rl.utils.config import load_config, parse_hydra_overrides, register_omegaconf_resolvers
    from omegaconf import OmegaConf
except Exception as error:  # noqa: BLE001 - absent, or present without its dependencies
    pytest.skip(
        f"nemo_rl.algorithms.grpo is not importable here ({type(error).__name__}: {error}); it needs "
        "Python >= 3.12 and NeMo RL's source on PYTHONPATH",
        allow_module_level=True,
    )

from nemo_code_rl import dry_run
from nemo_code_rl.config_loading import load_resolved, packaged_configs, resolve_config_path
from nemo_code_rl.launch_check import check_launch
from nemo_code_rl.nemo_rl_glue import schema_errors, schema_near_misses

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO_ROOT / "README.md", REPO_ROOT / "docs" / "training.md", REPO_ROOT / "slurm" / "README.md"]


def nemo_rl_loads(name: str, overrides: list[str]) -> dict:
    """The config as NeMo RL's ``examples/run_grpo.py`` loads it."""
    register_omegaconf_resolvers()
    config = load_config(str(resolve_config_path(name)))
    if overrides:
        config = parse_hydra_overrides(config, overrides)
    return OmegaConf.to_container(config, resolve=True)


def documented_runs() -> list[tuple[str, list[str]]]:
    """``(config, overrides)`` of every ``python -m nemo_code_rl.run`` line in the documents, and of
    every Slurm example, as the training command each starts (the launcher adds the shape's keys)."""
    runs = []
    for document in DOCUMENTS:
        for block in re.findall(r"```bash\n(.*?)```", document.read_text(), re.DOTALL):
            for line in block.replace("\\\n", " ").splitlines():
                words = shlex.split(line.split(" # ")[0])
                if "nemo_code_rl.run" in words:
                    words = words[words.index("nemo_code_rl.run") + 1 :]
                    config = (
                        words[words.index("--config") + 1] if "--config" in words else "grpo_code_2gpu.yaml"
                    )
                    runs.append((config, [w for w in words if "=" in w and not w.startswith("-")]))
                elif "slurm/launch_multinode.sh" in words:
                    args = words[words.index("slurm/launch_multinode.sh") + 1 :]
                    config = args[args.index("--config") + 1] if "--config" in args else "grpo_code_8gpu.yaml"
                    nodes, gpus = (
                        int(args[args.index("--nodes") + 1]),
                        int(args[args.index("--gpus-per-node") + 1]),
                    )
                    overrides = args[args.index("--") + 1 :] if "--" in args else []
                    added, errors, _ = check_launch(config, nodes, gpus, overrides)
                    assert errors == [], line
                    runs.append((config, [*overrides, *added]))
                elif "slurm/grpo_2gpu.sbatch" in words:
                    runs.append(("grpo_code_2gpu.yaml", words[words.index("slurm/grpo_2gpu.sbatch") + 1 :]))
    return runs


RUNS = [(name, []) for name in packaged_configs()] + documented_runs()


def test_the_documents_were_read() -> None:
    assert len(RUNS) >= len(packaged_configs()) + 12


@pytest.mark.parametrize(
    ("name", "overrides"), RUNS, ids=lambda v: v if isinstance(v, str) else " ".join(v)[:50]
)
def test_nemo_rl_loads_what_we_load_and_its_schema_accepts_it(name: str, overrides: list[str]) -> None:
    ours = load_resolved(name, overrides)[1]
    assert nemo_rl_loads(name, overrides) == ours
    assert schema_errors(ours) == []
    assert schema_near_misses(ours) == []


def test_a_misspelled_nemo_rl_key_fails_the_dry_runs_checks() -> None:
    config = load_resolved("grpo_code_2gpu", ["+grpo.max_num_step=5", "+policy.train_micro_batch_sise=1"])[1]
    findings, skipped = dry_run.schema_findings(config)
    assert skipped is None
    errors = {f.where: f.message for f in findings if f.level == "error"}
    assert "did you mean 'max_num_steps'" in errors["grpo.max_num_step"]
    assert "did you mean 'train_micro_batch_size'" in errors["policy.train_micro_batch_sise"]
    _, launch_errors, _ = check_launch("grpo_code_8gpu.yaml", 2, 8, ["+grpo.max_num_step=5"])
    assert any("grpo.max_num_step" in error for error in launch_errors)


# --------------------------------------------------------------------------------------------------
# The facts the dry run copies, against the snapshot's code
# --------------------------------------------------------------------------------------------------

SETUP = inspect.getsource(grpo.setup)
ASYNC_TRAIN = inspect.getsource(grpo.async_grpo_train)


def test_async_grpo_accepts_the_backends_the_dry_run_lists() -> None:
    (listed,) = re.findall(r"assert backend in \(([^)]*)\)", ASYNC_TRAIN)
    assert tuple(re.findall(r'"(\w+)"', listed)) == dry_run.ASYNC_BACKENDS
    assert "master_config.loss_fn.use_importance_sampling_correction" in ASYNC_TRAIN  # dry run: _async


def test_placement_rules_the_dry_runs_layout_copies() -> None:
    # one node, dedicated generation: its GPUs come off the node's; the rest train (layout, _gpus)
    assert "train_gpus_per_node -= inference_gpus_per_node" in SETUP
    assert "when policy_nodes = 1 and inference is non-colocated" in SETUP
    # several nodes: generation takes whole nodes of cluster.gpus_per_node each (layout, _gpus)
    assert 'inference_gpus_per_node == cluster_config["gpus_per_node"]' in SETUP
    assert "train_nodes -= inference_nodes" in SETUP
    # the policy's workers split into model-parallel groups (_gpus)
    assert "must be divisible by PP * CP * TP" in inspect.getsource(lm_policy)


def test_batch_rule_the_dry_run_copies() -> None:
    source = inspect.getsource(grpo)
    assert "must be divisible by data_parallel size" in source  # _batches: global batch over DP
    assert "force_on_policy_ratio requires train_global_batch_size == num_prompts_per_step" in source
