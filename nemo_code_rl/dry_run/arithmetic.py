"""The arithmetic NeMo RL asserts (or silently gets wrong) only once GPUs are allocated: batch sizes,
GPUs against parallel sizes, sequence lengths, turns, async and validation settings."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from nemo_code_rl.dry_run.findings import Finding, dataset_entries, setting
from nemo_code_rl.families import family_named

ASYNC_BACKENDS = ("vllm", "megatron", "trtllm", "dynamo")
"""Generation backends NeMo RL's ``async_grpo_train`` accepts @ 7ea279a."""


def check_arithmetic(config: Mapping[str, Any]) -> list[Finding]:
    """Batch sizes, GPUs against parallel sizes, sequence lengths, turns, async and validation."""
    findings: list[Finding] = []
    for check in (_batches, _gpus, _sequences, _turns, _async, _validation):
        try:
            findings.extend(check(config))
        except (TypeError, ValueError, ZeroDivisionError) as error:
            findings.append(Finding("error", check.__name__.strip("_"), f"cannot check: {error}"))
    return findings


@dataclass(frozen=True)
class Layout:
    """How the cluster's GPUs are split between training and generation."""

    total: int
    train: int
    generation: int
    colocated: bool
    train_parallel: int
    train_kind: str
    generation_parallel: int
    generation_kind: str


def layout(config: Mapping[str, Any]) -> Layout:
    """GPU counts and parallel sizes as NeMo RL's ``setup`` derives them."""
    per_node = int(setting(config, "cluster.gpus_per_node", 1))
    nodes = int(setting(config, "cluster.num_nodes", 1))
    colocated = bool(setting(config, "policy.generation.colocated.enabled", True))
    generation = train = per_node * nodes
    if not colocated:
        generation_per_node = int(setting(config, "policy.generation.colocated.resources.gpus_per_node", 0))
        generation_nodes = int(setting(config, "policy.generation.colocated.resources.num_nodes", 1))
        if nodes == 1:
            generation, train = generation_per_node, per_node - generation_per_node
        else:
            generation, train = generation_nodes * per_node, (nodes - generation_nodes) * per_node
    if setting(config, "policy.megatron_cfg.enabled", False):
        sizes = [
            setting(config, f"policy.megatron_cfg.{key}", 1)
            for key in ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size")
        ]
        train_kind = "Megatron (TP {}, PP {}, CP {})".format(*sizes)
    else:
        sizes = [
            setting(config, f"policy.dtensor_cfg.{key}", 1)
            for key in ("tensor_parallel_size", "context_parallel_size")
        ]
        train_kind = "DTensor FSDP2 (TP {}, CP {})".format(*sizes)
    backend = setting(config, "policy.generation.backend", "vllm")
    if backend == "vllm":
        generation_sizes = [
            setting(config, f"policy.generation.vllm_cfg.{key}", 1)
            for key in ("tensor_parallel_size", "pipeline_parallel_size")
        ]
        generation_kind = "vLLM (TP {}, PP {})".format(*generation_sizes)
    else:
        generation_sizes, generation_kind = sizes, f"{backend} (the training layout)"
    return Layout(
        total=per_node * nodes,
        train=train,
        generation=generation,
        colocated=colocated,
        train_parallel=_product(sizes),
        train_kind=train_kind,
        generation_parallel=_product(generation_sizes),
        generation_kind=generation_kind,
    )


def _product(values: list[Any]) -> int:
    result = 1
    for value in values:
        result *= int(value)
    return result


def _batches(config: Mapping[str, Any]) -> Iterator[Finding]:
    prompts = int(setting(config, "grpo.num_prompts_per_step", 32))
    generations = int(setting(config, "grpo.num_generations_per_prompt", 16))
    samples = prompts * generations
    global_batch = int(setting(config, "policy.train_global_batch_size", 0))
    micro = int(setting(config, "policy.train_micro_batch_size", 1))
    where = "policy.train_global_batch_size"
    if global_batch < 1:
        yield Finding("error", where, f"must be positive, got {global_batch}")
        return
    if global_batch > samples:
        yield Finding(
            "error",
            where,
            f"{global_batch} > {prompts} prompts x {generations} generations = {samples}: no training step",
        )
    elif samples % global_batch:
        yield Finding(
            "error",
            where,
            f"{prompts} x {generations} = {samples} samples per step is not a multiple of {global_batch}: "
            f"NeMo RL trains {samples // global_batch} batches and drops {samples % global_batch} samples",
        )
    elif samples != global_batch:
        yield Finding(
            "note", where, f"{samples // global_batch} optimizer steps per GRPO step (later ones off-policy)"
        )
    gpus = layout(config)
    if gpus.train > 0 and gpus.train_parallel > 0 and gpus.train % gpus.train_parallel == 0:
        data_parallel = gpus.train // gpus.train_parallel
        if global_batch % data_parallel:
            yield Finding(
                "error", where, f"{global_batch} does not split over data parallel size {data_parallel}"
            )
        elif (global_batch // data_parallel) % micro:
            yield Finding(
                "warning",
                "policy.train_micro_batch_size",
                f"{micro} does not divide the per-GPU batch {global_batch // data_parallel}",
            )
    tensor_parallel = int(
        setting(config, "policy.megatron_cfg.tensor_model_parallel_size", 1)
        if setting(config, "policy.megatron_cfg.enabled", False)
        else setting(config, "policy.dtensor_cfg.tensor_parallel_size", 1)
    )
    logprob = setting(config, "policy.logprob_batch_size", micro)
    if (
        tensor_parallel >= 4
        and logprob != micro
        and not setting(config, "loss_fn.force_on_policy_ratio", False)
    ):
        yield Finding(
            "error",
            "policy.logprob_batch_size",
            f"with tensor parallel {tensor_parallel}, NeMo RL asserts it equals train_micro_batch_size "
            f"(got {logprob} and {micro})",
        )


def _gpus(config: Mapping[str, Any]) -> Iterator[Finding]:
    per_node = int(setting(config, "cluster.gpus_per_node", 1))
    nodes = int(setting(config, "cluster.num_nodes", 1))
    gpus = layout(config)
    if not gpus.colocated:
        resources = "policy.generation.colocated.resources"
        if nodes == 1 and not 0 < gpus.generation < per_node:
            yield Finding(
                "error",
                f"{resources}.gpus_per_node",
                f"non-colocated generation on one node needs 1 to {per_node - 1} GPUs, got {gpus.generation}",
            )
            return
        if nodes > 1 and (
            setting(config, f"{resources}.gpus_per_node") != per_node or not 0 < gpus.generation < gpus.total
        ):
            yield Finding(
                "error",
                resources,
                "on several nodes, generation takes whole nodes: gpus_per_node must equal "
                "cluster.gpus_per_node and num_nodes must leave nodes for training",
            )
            return
    if gpus.train % gpus.train_parallel:
        yield Finding(
            "error",
            "policy",
            f"{gpus.train} training GPUs do not split into {gpus.train_kind} groups of {gpus.train_parallel}",
        )
    if gpus.generation % gpus.generation_parallel:
        yield Finding(
            "error",
            "policy.generation",
            f"{gpus.generation} generation GPUs do not split into {gpus.generation_kind} engines of "
            f"{gpus.generation_parallel}",
        )
    tensor_parallel = int(setting(config, "policy.generation.vllm_cfg.tensor_parallel_size", 1))
    if tensor_parallel > per_node:
        yield Finding(
            "warning",
            "policy.generation.vllm_cfg.tensor_parallel_size",
            f"{tensor_parallel} > the {per_node} GPUs of a node: tensor parallelism would cross nodes",
        )


def _sequences(config: Mapping[str, Any]) -> Iterator[Finding]:
    total = int(setting(config, "policy.max_total_sequence_length", 0))
    new_tokens = int(setting(config, "policy.generation.max_new_tokens", total))
    prompt = int(setting(config, "data.max_input_seq_length", total))
    if new_tokens > total:
        yield Finding(
            "error",
            "policy.generation.max_new_tokens",
            f"{new_tokens} > policy.max_total_sequence_length {total}: answers stop at {total} tokens",
        )
    if prompt >= total:
        yield Finding(
            "warning",
            "data.max_input_seq_length",
            f"{prompt} >= max_total_sequence_length {total}: a prompt that long leaves no room to answer",
        )
    if setting(config, "policy.generation.backend", "vllm") == "vllm":
        model_len = int(setting(config, "policy.generation.vllm_cfg.max_model_len", total))
        if model_len > total:
            yield Finding(
                "error",
                "policy.generation.vllm_cfg.max_model_len",
                f"{model_len} > max_total_sequence_length {total}: rollouts would outgrow training",
            )
        elif model_len < total:
            yield Finding(
                "warning",
                "policy.generation.vllm_cfg.max_model_len",
                f"{model_len} < max_total_sequence_length {total}: generation stops at {model_len} tokens",
            )


def _turns(config: Mapping[str, Any]) -> Iterator[Finding]:
    turns = int(setting(config, "grpo.max_rollout_turns", 1))
    used = {entry.get("env_name") for _, entry in dataset_entries(config) if isinstance(entry, Mapping)}
    for name in sorted(filter(None, used)):
        section = setting(config, f"env.{name}")
        if family_named(name) is None or not isinstance(section, Mapping):
            continue
        env_turns = section.get("max_rollout_turns", 1)
        if env_turns != turns:
            yield Finding(
                "error",
                f"env.{name}.max_rollout_turns",
                f"is {env_turns}, grpo.max_rollout_turns is {turns}: the environment must know the "
                "turn limit (set it to ${grpo.max_rollout_turns})",
            )
    if turns > 1:
        total = int(setting(config, "policy.max_total_sequence_length", 0))
        prompt = int(setting(config, "data.max_input_seq_length", total))
        new_tokens = int(setting(config, "policy.generation.max_new_tokens", total))
        if prompt + turns * new_tokens > total:
            yield Finding(
                "note",
                "policy.max_total_sequence_length",
                f"{total} < prompt {prompt} + {turns} x {new_tokens} new tokens: long episodes are cut",
            )


def _async(config: Mapping[str, Any]) -> Iterator[Finding]:
    if not setting(config, "grpo.async_grpo.enabled", False):
        return
    backend = setting(config, "policy.generation.backend", "vllm")
    if backend not in ASYNC_BACKENDS:
        yield Finding("error", "policy.generation.backend", f"async GRPO does not support {backend!r}")
    if backend == "vllm":
        if not setting(config, "policy.generation.vllm_cfg.async_engine", False):
            yield Finding("error", "policy.generation.vllm_cfg.async_engine", "async GRPO needs true")
        if setting(config, "policy.generation.colocated.enabled", True):
            yield Finding("error", "policy.generation.colocated.enabled", "async GRPO with vLLM needs false")
    if not setting(config, "loss_fn.use_importance_sampling_correction", False):
        yield Finding("error", "loss_fn.use_importance_sampling_correction", "async GRPO needs true")
    for key in (
        "grpo.use_dynamic_sampling",
        "grpo.reward_scaling.enabled",
        "grpo.reward_shaping.enabled",
        "data.use_multiple_dataloader",
    ):
        if setting(config, key, False):
            yield Finding("error", key, "not supported with async GRPO")


def _validation(config: Mapping[str, Any]) -> Iterator[Finding]:
    if "use_multiple_dataloader" not in (config.get("data") or {}):
        yield Finding(
            "error", "data.use_multiple_dataloader", "missing: NeMo RL's setup reads it (set false)"
        )
    validates = int(setting(config, "grpo.val_period", 0)) > 0 or any(
        setting(config, key, False) for key in ("grpo.val_at_start", "grpo.val_at_end")
    )
    has_data = setting(config, "data.validation") is not None or any(
        isinstance(entry, Mapping) and (entry.get("split_validation_size") or 0) > 0
        for _, entry in dataset_entries(config)
    )
    if validates and not has_data:
        yield Finding(
            "error",
            "data.validation",
            "validation is on (grpo.val_period / val_at_start / val_at_end) without data",
        )
    if validates and has_data:
        samples = int(setting(config, "grpo.max_val_samples", 256))
        batch = int(setting(config, "grpo.val_batch_size", 256))
        if samples < batch:
            yield Finding(
                "error",
                "grpo.max_val_samples",
                f"{samples} < val_batch_size {batch}: max_val_samples // val_batch_size = 0 batches",
            )
    metric = str(setting(config, "checkpointing.metric_name", ""))
    if setting(config, "checkpointing.enabled", False) and metric.startswith("val:") and not validates:
        yield Finding(
            "warning", "checkpointing.metric_name", f"{metric} without validation: checkpoints have no metric"
        )
