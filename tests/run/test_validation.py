"""The dry run's config checks: our keys strictly (with "did you mean"), names, pairings and the arithmetic
NeMo RL would only trip over on the GPUs. Shipped configs are changed one key at a time to show each check."""

from __future__ import annotations

import pytest

pytest.importorskip("omegaconf", reason="config loading needs omegaconf: pip install omegaconf")

from nemo_code_rl.config_loading import load_resolved, packaged_configs
from nemo_code_rl.dry_run import Finding, builtin_names, check_config, layout
from nemo_code_rl.families import UNIT_TESTS, available_families

CODE_CONFIGS = ["grpo_code_2gpu", "grpo_code_8gpu", "grpo_code_multiturn_8gpu", "grpo_gsm8k_2gpu"]


def _findings(name: str, *overrides: str) -> list[Finding]:
    return check_config(load_resolved(name, list(overrides))[1], builtin_names())


def _errors(name: str, *overrides: str) -> list[str]:
    return [f"{f.where}: {f.message}" for f in _findings(name, *overrides) if f.level == "error"]


def _one_error(name: str, *overrides: str) -> str:
    errors = _errors(name, *overrides)
    assert len(errors) == 1, errors
    return errors[0]


@pytest.mark.parametrize("name", CODE_CONFIGS)
def test_our_shipped_configs_pass_the_checks(name: str) -> None:
    assert _errors(name) == []
    assert not [f for f in _findings(name) if f.level == "warning"]


def test_the_code_component_is_always_there() -> None:
    assert UNIT_TESTS in available_families()


@pytest.mark.parametrize(
    ("override", "where", "message"),
    [
        ("+env.code_unit_tests.timeout=3", "env.code_unit_tests", "did you mean 'timeout_s'?"),
        ("+env.code_unit_tests.reward.mod=binary", "env.code_unit_tests", "did you mean 'mode'?"),
        ("env.code_unit_tests.isolation=partial", "env.code_unit_tests", "isolation must be one of"),
        ("+data.train.sorce=x", "data.train", "did you mean 'source'?"),
        ("+data.default.id_feld=name", "data.train", "did you mean 'id_field'?"),
        ("+data.train.data_path=/x.jsonl", "data.train", "is not used by our coding-problem dataset"),
        ("data.train.source=null", "data.train", "data.train.source is required"),
        ("data.default.env_name=math", "data.train.env_name", "is 'math': code_unit_tests rows need"),
        (
            "data.default.dataset_name=code_unit_test",
            "data.train.dataset_name",
            "did you mean 'code_unit_tests'?",
        ),
        ("data.default.prompt_file=/no/such/prompt.txt", "data.train.prompt_file", "does not exist"),
    ],
)
def test_our_keys_are_strict(override: str, where: str, message: str) -> None:
    errors = _errors("grpo_code_2gpu", override)
    assert any(e.startswith(where) and message in e for e in errors), errors


def test_names_and_pairings() -> None:
    error = _one_error("grpo_gsm8k_2gpu", "+data.train.processor=math_hf_processor")
    assert error.startswith("data.train.processor") and "did you mean 'math_hf_data_processor'?" in error
    error = _one_error("grpo_gsm8k_2gpu", "+data.train.env_name=maths")
    assert "did you mean 'math'?" in error
    error = _one_error("grpo_gsm8k_2gpu", "+data.train.env_name=code")
    assert "there is no env.code" in error
    # our environment reads what our processor writes, whatever the dataset
    errors = _errors("grpo_gsm8k_2gpu", "+data.train.env_name=code_unit_tests", "+env.code_unit_tests={}")
    assert any("env 'code_unit_tests' reads what processor 'code_unit_tests' writes" in e for e in errors), (
        errors
    )
    notes = [f for f in _findings("grpo_gsm8k_2gpu", "+env.code_unit_tests={}") if f.level == "note"]
    assert [f.where for f in notes] == ["env.code_unit_tests"]


@pytest.mark.parametrize(
    ("overrides", "where", "message"),
    [
        (["policy.train_global_batch_size=96"], "policy.train_global_batch_size", "drops 32 samples"),
        (["policy.train_global_batch_size=256"], "policy.train_global_batch_size", "no training step"),
        (
            ["cluster.gpus_per_node=3", "policy.train_global_batch_size=64"],
            "policy.train_global_batch_size",
            "does not split over data parallel size 3",
        ),
        (["policy.dtensor_cfg.tensor_parallel_size=2", "cluster.gpus_per_node=3"], "policy", "do not split"),
        (
            [
                "policy.dtensor_cfg.tensor_parallel_size=4",
                "cluster.gpus_per_node=4",
                "policy.logprob_batch_size=4",
            ],
            "policy.logprob_batch_size",
            "with tensor parallel 4",
        ),
        (
            ["policy.generation.vllm_cfg.tensor_parallel_size=4"],
            "policy.generation",
            "do not split into vLLM",
        ),
        (
            ["policy.generation.max_new_tokens=4096"],
            "policy.generation.max_new_tokens",
            "4096 > policy.max_total",
        ),
        (
            ["policy.generation.vllm_cfg.max_model_len=4096"],
            "policy.generation.vllm_cfg.max_model_len",
            "outgrow",
        ),
        (["grpo.val_batch_size=128"], "grpo.max_val_samples", "0 batches"),
        (["data.validation=null"], "data.validation", "validation is on"),
        (["~data.use_multiple_dataloader"], "data.use_multiple_dataloader", "NeMo RL's setup reads it"),
        (
            ["grpo.async_grpo.enabled=true"],
            "policy.generation.vllm_cfg.async_engine",
            "async GRPO needs true",
        ),
        (
            ["policy.generation.colocated.enabled=false"],
            "policy.generation.colocated.resources.gpus_per_node",
            "needs 1 to 1 GPUs, got 0",
        ),
    ],
)
def test_arithmetic_of_the_2gpu_config(overrides: list[str], where: str, message: str) -> None:
    errors = _errors("grpo_code_2gpu", *overrides)
    assert any(e.startswith(where) and message in e for e in errors), errors


def test_arithmetic_of_the_8gpu_config() -> None:
    gpus = layout(load_resolved("grpo_code_8gpu")[1])
    assert (gpus.total, gpus.train, gpus.generation, gpus.colocated) == (8, 4, 4, False)
    assert (gpus.train_parallel, gpus.generation_parallel) == (1, 1)

    assert "does not split over data parallel size 4" in _one_error(
        "grpo_code_8gpu",
        "policy.train_global_batch_size=2",
        "grpo.num_generations_per_prompt=1",
        "grpo.num_prompts_per_step=2",
    )
    assert "async GRPO with vLLM needs false" in _one_error(
        "grpo_code_8gpu", "policy.generation.colocated.enabled=true"
    )
    assert "async GRPO needs true" in _one_error(
        "grpo_code_8gpu", "loss_fn.use_importance_sampling_correction=false"
    )
    assert "not supported with async GRPO" in _one_error("grpo_code_8gpu", "grpo.use_dynamic_sampling=true")
    assert "4 generation GPUs do not split into vLLM (TP 3, PP 1)" in _one_error(
        "grpo_code_8gpu", "policy.generation.vllm_cfg.tensor_parallel_size=3"
    )
    assert "needs 1 to 7 GPUs, got 8" in _one_error(
        "grpo_code_8gpu", "policy.generation.colocated.resources.gpus_per_node=8"
    )
    notes = [
        f.message
        for f in _findings("grpo_code_8gpu", "policy.train_global_batch_size=256")
        if f.level == "note"
    ]
    assert notes == ["2 optimizer steps per GRPO step (later ones off-policy)"]


def test_arithmetic_of_multi_turn_and_several_nodes() -> None:
    assert "is 1, grpo.max_rollout_turns is 3" in _one_error(
        "grpo_code_multiturn_8gpu", "env.code_unit_tests.max_rollout_turns=1"
    )
    budget = [
        f.message
        for f in _findings("grpo_code_multiturn_8gpu", "policy.generation.max_new_tokens=4096")
        if f.where == "policy.max_total_sequence_length"
    ]
    assert budget == ["8192 < prompt 2048 + 3 x 4096 new tokens: long episodes are cut"]
    two_nodes = ["cluster.num_nodes=2", "policy.generation.colocated.resources.num_nodes=1"]
    assert "generation takes whole nodes" in _one_error("grpo_code_8gpu", *two_nodes)
    assert (
        _errors("grpo_code_8gpu", *two_nodes, "policy.generation.colocated.resources.gpus_per_node=8") == []
    )
    gpus = layout(
        load_resolved(
            "grpo_code_8gpu", [*two_nodes, "policy.generation.colocated.resources.gpus_per_node=8"]
        )[1]
    )
    assert (gpus.train, gpus.generation) == (8, 8)


def test_every_shipped_config_loads() -> None:
    for name in packaged_configs():
        assert load_resolved(name)[1]["grpo"]["num_prompts_per_step"] > 0
