"""``python -m nemo_code_rl.run --dry-run``: check a GRPO config without NeMo RL or a GPU, and plan it.

Every check reports findings instead of stopping at the first, so one run lists all there is to fix:

1. Our keys, strictly (``check_config``): every ``env.<name>`` section of our components and every
   data entry of our datasets, with "did you mean" for unknown keys; names that neither we nor NeMo
   RL register; our environments fed by another processor; missing prompt files.
2. NeMo RL's keys against its GRPO schema, where ``nemo_rl.algorithms.grpo`` imports.
3. The arithmetic NeMo RL asserts (or silently gets wrong) only once GPUs are allocated
   (``check_config``): batch sizes, GPUs against parallel sizes, sequence lengths, turns, async
   and validation settings.
4. A few rows of every dataset of ours (a packaged sample where the hub is unreachable), through
   the processor with the configured tokenizer where it is available locally, then through the
   environment: each problem's reference solution where it has one, and an empty answer.

``check_config`` also runs before training, so training never starts on a config the dry run rejects.

The verdict says how much was checked: ``dry run OK`` (exit 0) only when every check ran;
``dry run PARTIAL: N checks skipped`` (exit ``EXIT_PARTIAL``, 4) when some could not run here, each
listed with the reason (NeMo RL not importable, so its registries and schema were not read; hub
data replaced by the packaged sample; no local tokenizer, so the processor did not run; an
environment that could not start; data NeMo RL loads itself); ``dry run FAILED`` (exit 1) when a
check found an error, whatever was skipped.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib.util
import json
import os
import re
import socket
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import islice
from pathlib import Path
from typing import Any, Literal, NamedTuple, TextIO
from urllib.parse import urlparse

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.config_loading import load_resolved, packaged_config_dir
from nemo_code_rl.registration import (
    Component,
    available_components,
    component_for_dataset,
    component_named,
    register,
    resolve,
)

Level = Literal["error", "warning", "note"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_PARTIAL = 4
"""Exit statuses of the dry run: every check ran and passed; an error was found; some checks were
skipped here (and none of those that ran found an error). 2 and 3 are ``run``'s (usage, no NeMo RL)."""

SAMPLE_PATH = Path("samples") / "code_problems.jsonl"
"""The packaged problems (inside ``configs/``) read in place of a hub dataset the dry run cannot reach."""

# NeMo RL's built-in names @ 7ea279a, for machines without NeMo RL (with it, its registries are read).
NEMO_RL_ENVIRONMENTS = tuple(
    "math_default math math_multi_reward code reward_model code_jaccard vlm nemo_gym".split()
)
NEMO_RL_PROCESSORS = tuple(
    "default helpsteer3_data_processor kd_data_processor math_data_processor math_hf_data_processor "
    "multichoice_qa_processor sft_processor vlm_hf_data_processor nemo_gym_data_processor".split()
)
NEMO_RL_DATASETS = tuple(
    "audiomcq arrow_text avqa AIME2024 AIME2025 AIME2026 clevr-cogent daily-omni "
    "general-conversation-jsonl DAPOMath17K DAPOMathAIME2024 DeepScaler GSM8K geometry3k mmpr-tiny "
    "HelpSteer3 intent-train intent-bench open_assistant OpenMathInstruct-2 NuminaMath-1.5 "
    "OpenR1-Math-220k refcoco squad tulu3_sft_mixture gsm8k Nemotron-Cascade-2-SFT-Math openai_format "
    "NemoGymDataset ResponseDataset".split()
)
ASYNC_BACKENDS = ("vllm", "megatron", "trtllm", "dynamo")
"""Generation backends NeMo RL's ``async_grpo_train`` accepts @ 7ea279a."""
_HUB_ID = re.compile(r"^[\w.\-]+/[\w.\-]+$")
_FILE_SUFFIXES = (".jsonl", ".json", ".parquet", ".gz")


@dataclass(frozen=True)
class Finding:
    """One result of a check: an ``error`` fails the dry run, a ``warning`` or ``note`` does not."""

    level: Level
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.level}: {self.where}: {self.message}"


@dataclass(frozen=True)
class Names:
    """The environment, processor and dataset names a config may use."""

    environments: frozenset[str]
    processors: frozenset[str]
    datasets: frozenset[str]
    source: str


class Skipped(NamedTuple):
    """A check the dry run could not run here, and why: the verdict is PARTIAL, not OK."""

    check: str
    reason: str

    def __str__(self) -> str:
        return f"skipped: {self.check}: {self.reason}"


@dataclass(frozen=True)
class Sample:
    """A dataset row of ours, with what the dry run needs without running the processor.

    Attributes:
        row: the row as our NeMo RL dataset class builds it.
        messages: the chat messages of the prompt (before the chat template).
        env_info: the ``extra_env_info`` the processor writes for this row.
        reference: a complete answer known to be right, if the data has one.
    """

    row: dict[str, Any]
    messages: list[dict[str, str]]
    env_info: dict[str, Any]
    reference: str | None


# --------------------------------------------------------------------------------------------------
# 1 and 3: keys, names and arithmetic
# --------------------------------------------------------------------------------------------------


def check_config(config: Mapping[str, Any], names: Names) -> list[Finding]:
    """Our keys strictly, every name, and the arithmetic; no data, model or NeMo RL import needed."""
    return [*_check_data_entries(config, names), *_check_env_sections(config), *check_arithmetic(config)]


def dataset_entries(config: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Every train and validation entry, merged with ``data.default`` as NeMo RL merges it.

    An entry that is not a mapping is returned as it is, for the checks to report.
    """
    data = config.get("data") or {}
    default = data.get("default") or {}
    entries = []
    for key in ("train", "validation"):
        value = data.get(key)
        items = value if isinstance(value, list) else [] if value is None else [value]
        for index, item in enumerate(items):
            where = f"data.{key}[{index}]" if isinstance(value, list) else f"data.{key}"
            entries.append((where, {**default, **item} if isinstance(item, Mapping) else item))
    return entries


def names_for_checks() -> tuple[Names, str | None]:
    """NeMo RL's live registries where it imports, else our copy of its built-in names and why.

    Raises:
        ValueError: one of our names is registered to something else (see ``register``).
    """
    names, reason = nemo_rl_names()
    return (names, None) if names is not None else (builtin_names(), reason)


def added_key_findings(
    config_name: str, overrides: list[str], reported: Sequence[Finding] = ()
) -> list[Finding]:
    """``+a.b=...`` / ``++a.b=...`` overrides that add a key next to one it nearly spells.

    Adding a key is allowed (``+``), so ``+grpo.max_num_step=5`` loads; NeMo RL would ignore the new
    key and keep ``grpo.max_num_steps``. Checked against the config itself, so it needs no NeMo RL.
    A key inside a section an error of ``reported`` already names (our strict sections) is left to it.
    """
    errors = [f"{f.where}." for f in reported if f.level == "error"]
    _, base = load_resolved(config_name, [])
    findings = []
    for override in overrides:
        key = override.lstrip("+").partition("=")[0]
        if not override.startswith("+") or not key or any(key.startswith(where) for where in errors):
            continue
        *parents, leaf = key.split(".")
        node: Any = base
        for part in parents:
            node = node.get(part) if isinstance(node, Mapping) else None
        if not isinstance(node, Mapping) or leaf in node:
            continue
        close = difflib.get_close_matches(leaf, [str(k) for k in node], n=1, cutoff=0.8)
        if close:
            where = ".".join([*parents, close[0]])
            findings.append(
                Finding(
                    "error",
                    key,
                    f"{override!r} adds a key beside {where!r}, which it nearly spells: a typo? "
                    f"(to change that key: {where}=...)",
                )
            )
    return findings


def builtin_names() -> Names:
    """Our components' names and NeMo RL's built-in ones, as of the NeMo RL commit we pin."""
    ours = frozenset(c.name for c in available_components())
    return Names(
        environments=ours | set(NEMO_RL_ENVIRONMENTS),
        processors=ours | set(NEMO_RL_PROCESSORS),
        datasets=ours | set(NEMO_RL_DATASETS),
        source="NeMo RL's built-in names @ 7ea279a (NeMo RL is not importable here)",
    )


def _check_data_entries(config: Mapping[str, Any], names: Names) -> Iterator[Finding]:
    env_sections = config.get("env") or {}
    if "train" not in (config.get("data") or {}):
        yield Finding("error", "data.train", "missing: NeMo RL needs at least one training dataset")
    for where, entry in dataset_entries(config):
        if not isinstance(entry, Mapping):
            yield Finding("error", where, f"must be a mapping, got {type(entry).__name__}")
            continue
        dataset_name = entry.get("dataset_name")
        processor = entry.get("processor", "default")
        env_name = entry.get("env_name")
        component = component_for_dataset(dataset_name)
        if component is not None:
            yield from _strict(component.dataset_config, entry, where)
            for key, value in (("processor", processor), ("env_name", env_name)):
                if value != component.name:
                    yield Finding(
                        "error",
                        f"{where}.{key}",
                        f"is {value!r}: {component.name} rows need {component.name!r}",
                    )
        elif not isinstance(dataset_name, str) or not (
            dataset_name in names.datasets or ("." in dataset_name and _importable_path(dataset_name))
        ):
            yield _unknown_name(where, "dataset_name", dataset_name, names.datasets, names.source)
        if processor not in names.processors:
            yield _unknown_name(where, "processor", processor, names.processors, names.source)
        if env_name is None:
            yield Finding("error", f"{where}.env_name", "missing: NeMo RL routes samples to env.<env_name>")
        elif env_name not in names.environments:
            yield _unknown_name(where, "env_name", env_name, names.environments, names.source)
        elif env_name not in env_sections:
            yield Finding("error", f"{where}.env_name", f"names {env_name!r}, but there is no env.{env_name}")
        env_component = component_named(env_name)
        if env_component is not None and processor != env_component.name:
            yield Finding(
                "error",
                f"{where}.processor",
                f"is {processor!r}, but env {env_name!r} reads what processor {env_component.name!r} writes",
            )
        for key in ("prompt_file", "system_prompt_file"):
            path = entry.get(key)
            if path is not None and not Path(str(path)).is_file():
                yield Finding(
                    "error",
                    f"{where}.{key}",
                    f"{path!r} does not exist (NeMo RL opens it relative to the working directory)",
                )


def _check_env_sections(config: Mapping[str, Any]) -> Iterator[Finding]:
    used = {entry.get("env_name") for _, entry in dataset_entries(config) if isinstance(entry, Mapping)}
    for name, section in (config.get("env") or {}).items():
        component = component_named(name)
        if component is not None:
            yield from _strict(component.env_config, section, f"env.{name}")
        if name not in used:
            yield Finding("note", f"env.{name}", "no data entry uses it, so NeMo RL will not create it")


def _strict(validator: str, data: Any, where: str) -> Iterator[Finding]:
    if not isinstance(data, Mapping):
        yield Finding("error", where, f"must be a mapping, got {type(data).__name__}")
        return
    try:
        resolve(validator)(data, where)
    except (ConfigError, ValueError, TypeError) as error:
        key, _, detail = str(error).partition(": ")
        named = key.startswith(where) and " " not in key and detail  # the error names its full key
        yield Finding("error", key, detail) if named else Finding("error", where, str(error))


def _unknown_name(where: str, key: str, value: Any, known: frozenset[str], source: str) -> Finding:
    close = difflib.get_close_matches(str(value), sorted(known), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return Finding(
        "error", f"{where}.{key}", f"{value!r} is registered neither by us nor by NeMo RL{hint} ({source})"
    )


def _importable_path(path: str) -> bool:
    try:
        return importlib.util.find_spec(path.rpartition(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def check_arithmetic(config: Mapping[str, Any]) -> list[Finding]:
    """Batch sizes, GPUs against parallel sizes, sequence lengths, turns, async and validation."""
    findings: list[Finding] = []
    for check in (_batches, _gpus, _sequences, _turns, _async, _validation):
        try:
            findings.extend(check(config))
        except (TypeError, ValueError, ZeroDivisionError) as error:
            findings.append(Finding("error", check.__name__.strip("_"), f"cannot check: {error}"))
    return findings


def _get(config: Mapping[str, Any], dotted: str, default: Any = None) -> Any:
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return default
        node = node[part]
    return default if node is None else node


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
    per_node = int(_get(config, "cluster.gpus_per_node", 1))
    nodes = int(_get(config, "cluster.num_nodes", 1))
    colocated = bool(_get(config, "policy.generation.colocated.enabled", True))
    generation = train = per_node * nodes
    if not colocated:
        generation_per_node = int(_get(config, "policy.generation.colocated.resources.gpus_per_node", 0))
        generation_nodes = int(_get(config, "policy.generation.colocated.resources.num_nodes", 1))
        if nodes == 1:
            generation, train = generation_per_node, per_node - generation_per_node
        else:
            generation, train = generation_nodes * per_node, (nodes - generation_nodes) * per_node
    if _get(config, "policy.megatron_cfg.enabled", False):
        sizes = [
            _get(config, f"policy.megatron_cfg.{key}", 1)
            for key in ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size")
        ]
        train_kind = "Megatron (TP {}, PP {}, CP {})".format(*sizes)
    else:
        sizes = [
            _get(config, f"policy.dtensor_cfg.{key}", 1)
            for key in ("tensor_parallel_size", "context_parallel_size")
        ]
        train_kind = "DTensor FSDP2 (TP {}, CP {})".format(*sizes)
    backend = _get(config, "policy.generation.backend", "vllm")
    if backend == "vllm":
        generation_sizes = [
            _get(config, f"policy.generation.vllm_cfg.{key}", 1)
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
    prompts = int(_get(config, "grpo.num_prompts_per_step", 32))
    generations = int(_get(config, "grpo.num_generations_per_prompt", 16))
    samples = prompts * generations
    global_batch = int(_get(config, "policy.train_global_batch_size", 0))
    micro = int(_get(config, "policy.train_micro_batch_size", 1))
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
        _get(config, "policy.megatron_cfg.tensor_model_parallel_size", 1)
        if _get(config, "policy.megatron_cfg.enabled", False)
        else _get(config, "policy.dtensor_cfg.tensor_parallel_size", 1)
    )
    logprob = _get(config, "policy.logprob_batch_size", micro)
    if tensor_parallel >= 4 and logprob != micro and not _get(config, "loss_fn.force_on_policy_ratio", False):
        yield Finding(
            "error",
            "policy.logprob_batch_size",
            f"with tensor parallel {tensor_parallel}, NeMo RL asserts it equals train_micro_batch_size "
            f"(got {logprob} and {micro})",
        )


def _gpus(config: Mapping[str, Any]) -> Iterator[Finding]:
    per_node = int(_get(config, "cluster.gpus_per_node", 1))
    nodes = int(_get(config, "cluster.num_nodes", 1))
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
            _get(config, f"{resources}.gpus_per_node") != per_node or not 0 < gpus.generation < gpus.total
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
    tensor_parallel = int(_get(config, "policy.generation.vllm_cfg.tensor_parallel_size", 1))
    if tensor_parallel > per_node:
        yield Finding(
            "warning",
            "policy.generation.vllm_cfg.tensor_parallel_size",
            f"{tensor_parallel} > the {per_node} GPUs of a node: tensor parallelism would cross nodes",
        )


def _sequences(config: Mapping[str, Any]) -> Iterator[Finding]:
    total = int(_get(config, "policy.max_total_sequence_length", 0))
    new_tokens = int(_get(config, "policy.generation.max_new_tokens", total))
    prompt = int(_get(config, "data.max_input_seq_length", total))
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
    if _get(config, "policy.generation.backend", "vllm") == "vllm":
        model_len = int(_get(config, "policy.generation.vllm_cfg.max_model_len", total))
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
    turns = int(_get(config, "grpo.max_rollout_turns", 1))
    used = {entry.get("env_name") for _, entry in dataset_entries(config) if isinstance(entry, Mapping)}
    for name in sorted(filter(None, used)):
        section = _get(config, f"env.{name}")
        if component_named(name) is None or not isinstance(section, Mapping):
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
        total = int(_get(config, "policy.max_total_sequence_length", 0))
        prompt = int(_get(config, "data.max_input_seq_length", total))
        new_tokens = int(_get(config, "policy.generation.max_new_tokens", total))
        if prompt + turns * new_tokens > total:
            yield Finding(
                "note",
                "policy.max_total_sequence_length",
                f"{total} < prompt {prompt} + {turns} x {new_tokens} new tokens: long episodes are cut",
            )


def _async(config: Mapping[str, Any]) -> Iterator[Finding]:
    if not _get(config, "grpo.async_grpo.enabled", False):
        return
    backend = _get(config, "policy.generation.backend", "vllm")
    if backend not in ASYNC_BACKENDS:
        yield Finding("error", "policy.generation.backend", f"async GRPO does not support {backend!r}")
    if backend == "vllm":
        if not _get(config, "policy.generation.vllm_cfg.async_engine", False):
            yield Finding("error", "policy.generation.vllm_cfg.async_engine", "async GRPO needs true")
        if _get(config, "policy.generation.colocated.enabled", True):
            yield Finding("error", "policy.generation.colocated.enabled", "async GRPO with vLLM needs false")
    if not _get(config, "loss_fn.use_importance_sampling_correction", False):
        yield Finding("error", "loss_fn.use_importance_sampling_correction", "async GRPO needs true")
    for key in (
        "grpo.use_dynamic_sampling",
        "grpo.reward_scaling.enabled",
        "grpo.reward_shaping.enabled",
        "data.use_multiple_dataloader",
    ):
        if _get(config, key, False):
            yield Finding("error", key, "not supported with async GRPO")


def _validation(config: Mapping[str, Any]) -> Iterator[Finding]:
    if "use_multiple_dataloader" not in (config.get("data") or {}):
        yield Finding(
            "error", "data.use_multiple_dataloader", "missing: NeMo RL's setup reads it (set false)"
        )
    validates = int(_get(config, "grpo.val_period", 0)) > 0 or any(
        _get(config, key, False) for key in ("grpo.val_at_start", "grpo.val_at_end")
    )
    has_data = _get(config, "data.validation") is not None or any(
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
        samples = int(_get(config, "grpo.max_val_samples", 256))
        batch = int(_get(config, "grpo.val_batch_size", 256))
        if samples < batch:
            yield Finding(
                "error",
                "grpo.max_val_samples",
                f"{samples} < val_batch_size {batch}: max_val_samples // val_batch_size = 0 batches",
            )
    metric = str(_get(config, "checkpointing.metric_name", ""))
    if _get(config, "checkpointing.enabled", False) and metric.startswith("val:") and not validates:
        yield Finding(
            "warning", "checkpointing.metric_name", f"{metric} without validation: checkpoints have no metric"
        )


# --------------------------------------------------------------------------------------------------
# 2 and 4: NeMo RL's schema, data, processor and environment
# --------------------------------------------------------------------------------------------------


def nemo_rl_names() -> tuple[Names | None, str]:
    """NeMo RL's live registries with ours registered, or ``None`` and why not.

    Raises:
        ValueError: one of our names is registered to something else (see ``register``).
    """
    if importlib.util.find_spec("nemo_rl") is None:
        return None, "NeMo RL is not installed"
    try:
        from nemo_code_rl import nemo_rl_glue
    except Exception as error:  # any import failure means: no NeMo RL here
        return None, f"{type(error).__name__}: {error}"
    registered = register()
    names = nemo_rl_glue.registry_names()
    return (
        Names(
            environments=frozenset(names["environment"]),
            processors=frozenset(names["processor"]),
            datasets=frozenset(names["dataset"]),
            source="NeMo RL's registries",
        ),
        f"registered with NeMo RL: {', '.join(registered)}",
    )


def schema_findings(config: dict[str, Any]) -> tuple[list[Finding], str | None]:
    """NeMo RL's GRPO schema check: its findings, and ``None`` or why it could not run."""
    if importlib.util.find_spec("nemo_rl") is None:
        return [], "NeMo RL is not installed"
    try:
        from nemo_code_rl import nemo_rl_glue

        errors = nemo_rl_glue.schema_errors(config)
        near_misses = nemo_rl_glue.schema_near_misses(config)
    except Exception as error:  # NeMo RL absent, or its GRPO module not importable on this Python
        return [], f"NeMo RL's GRPO schema is not importable here ({type(error).__name__}: {error})"
    findings = [Finding("error", "NeMo RL schema", message) for message in errors]
    findings += [
        Finding(
            "error", path, f"not in NeMo RL's schema, which would ignore it; did you mean {suggestion!r}?"
        )
        for path, suggestion in near_misses
    ]
    return findings, None


@cache
def hub_unavailable() -> str | None:
    """Why the Hugging Face hub cannot be used here, or ``None`` when it can."""
    for variable in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if os.environ.get(variable, "").lower() in ("1", "true", "yes", "on"):
            return f"{variable} is set"
    if importlib.util.find_spec("datasets") is None:
        return "the datasets package is not installed"
    host = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co")).hostname or "huggingface.co"
    try:
        socket.create_connection((host, 443), timeout=3).close()
    except OSError as error:
        return f"{host} is unreachable ({error})"
    return None


class Loaded(NamedTuple):
    """A few rows of a dataset, where they came from, and why a stand-in was read instead, if so."""

    samples: list[Sample]
    origin: str
    stand_in: str | None = None


def code_samples(settings: Any, limit: int) -> Loaded:
    """A few rows of a coding-problem dataset, and where they came from."""
    from nemo_code_rl.problem_loading import load_code_dataset
    from nemo_code_rl.problem_rows import prompt_messages, to_dataset_rows
    from nemo_code_rl.problems import load_problems
    from nemo_code_rl.processors import env_info_for_problem

    source = settings.source
    is_hub = not Path(source).exists() and _HUB_ID.match(source) and not source.endswith(_FILE_SUFFIXES)
    reason: str | None = None
    if not is_hub:
        problems = load_code_dataset(
            source, split=settings.split, subset=settings.subset, id_field=settings.id_field
        )
        origin = f"{min(limit, len(problems))} of the {len(problems)} problems in {source}"
        problems = problems[:limit]
    elif (reason := hub_unavailable()) is None:
        rows = hub_head(source, settings.subset, settings.split, limit)
        problems = load_problems(rows, id_field=settings.id_field)
        origin = f"the first {len(problems)} problems of {source} (split {settings.split}) on the hub"
    else:
        sample = packaged_config_dir() / SAMPLE_PATH
        problems = load_problems(sample)[:limit]
        origin = f"{len(problems)} problems of the packaged sample {sample} in place of {source}: {reason}"
    rows = to_dataset_rows(problems, settings.resolved_task_name)
    samples = [
        Sample(row, prompt_messages(problem), env_info_for_problem(problem), problem.reference_solution)
        for row, problem in zip(rows, problems, strict=True)
    ]
    stand_in = f"{source} is on the hub, which is out of reach ({reason}): the packaged sample was read"
    return Loaded(samples, origin, stand_in if reason is not None else None)


def hub_head(dataset_id: str, subset: str | None, split: str, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` rows of a hub dataset's split, streamed: a dataset kept in one file per
    split (``problem_loading.SPLIT_FILES``) is read from that file alone, as training reads it."""
    from nemo_code_rl.problem_loading import split_file

    filename = split_file(dataset_id, split)
    if filename is not None:
        from huggingface_hub import HfFileSystem

        with HfFileSystem().open(f"datasets/{dataset_id}/{filename}", "r", encoding="utf-8") as handle:
            return [json.loads(line) for line in islice(handle, limit)]
    import datasets

    return list(islice(datasets.load_dataset(dataset_id, subset, split=split, streaming=True), limit))


def arc_samples(settings: Any, limit: int) -> Loaded:
    """A few ARC tasks as our dataset rows (without augmentation or prompt-length filtering)."""
    from nemo_code_rl.arc.dataset import build_dataset_rows, datum_from_row
    from nemo_code_rl.arc.prompts import build_messages
    from nemo_code_rl.processors.arc_processors import env_info_for_task

    arc = dataclasses.replace(settings.arc, augmentations=0, max_prompt_tokens=None)
    rows = build_dataset_rows(arc)
    samples = []
    for row in rows[:limit]:
        datum = datum_from_row(row)
        samples.append(
            Sample(
                row,
                build_messages(datum.task, datum.prompt),
                env_info_for_task(datum.task, datum.augmentation),
                None,
            )
        )
    return Loaded(
        samples,
        f"{len(samples)} of the {len(rows)} tasks of {arc.source} (no augmentation, no length filter)",
    )


SAMPLERS: dict[str, Callable[[Any, int], Loaded]] = {
    "code_unit_tests": code_samples,
    "arc_programs": arc_samples,
}


@dataclass(frozen=True)
class _TaskSpec:
    """The fields of NeMo RL's ``TaskDataSpec`` our processors read (its files already read)."""

    task_name: str
    prompt: str | None
    system_prompt: str | None


def local_tokenizer(tokenizer_config: Any) -> tuple[Any, str]:
    """The tokenizer if it is a local folder or in the Hugging Face cache (never downloaded), and a note."""
    from nemo_code_rl.environments.chat_turns import load_tokenizer
    from nemo_code_rl.environments.config import TokenizerSettings

    if importlib.util.find_spec("transformers") is None:
        return None, "transformers is not installed"
    try:
        settings = TokenizerSettings.from_dict(tokenizer_config, "tokenizer")
    except ConfigError as error:
        return None, f"no usable tokenizer config ({error})"
    if not Path(settings.name).is_dir():
        from huggingface_hub import try_to_load_from_cache

        if not isinstance(try_to_load_from_cache(settings.name, "tokenizer_config.json"), str):
            return (
                None,
                f"tokenizer {settings.name} is not available locally (no folder, not in the HF cache)",
            )
    try:
        return load_tokenizer(settings), f"tokenizer {settings.name}"
    except (OSError, ValueError) as error:
        return None, f"tokenizer {settings.name} did not load ({error})"


def _sample_id(sample: Sample) -> str:
    info = sample.env_info
    return str(info.get("problem_id") or info.get("task_id") or sample.row.get("task_name"))


def _read_prompt_file(path: Any) -> str | None:
    return Path(str(path)).read_text(encoding="utf-8") if path else None


class DryRun:
    """One dry run: the checks of the module doc, with their findings and the plan text."""

    def __init__(
        self, config_path: Path, overrides: list[str], config: dict[str, Any], rows: int, out: TextIO
    ):
        self.path = config_path
        self.overrides = overrides
        self.config = config
        self.rows = rows
        self.out = out
        self.findings: list[Finding] = []
        self.skipped: list[Skipped] = []

    def run(self) -> int:
        """Print the plan and every finding; ``EXIT_OK``, ``EXIT_PARTIAL`` or ``EXIT_FAILED`` (module doc)."""
        if hub_unavailable() is not None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never wait on retries to an unreachable hub
        self._write(
            f"nemo_code_rl dry run: {self.path}" + (f" {' '.join(self.overrides)}" if self.overrides else "")
        )
        self._plan()
        try:
            names, registration = nemo_rl_names()
        except ValueError as error:
            self.findings.append(Finding("error", "register()", str(error)))
            names, registration = None, "registration failed"
        if names is None:
            self._skip(
                "NeMo RL's registries", f"{registration}; names checked against {builtin_names().source}"
            )
        self._write(
            f"NeMo RL registries: {registration if names else 'not importable here (' + registration + ')'}"
        )
        self.findings.extend(check_config(self.config, names or builtin_names()))
        self.findings.extend(added_key_findings(str(self.path), self.overrides, self.findings))
        schema, schema_skipped = schema_findings(self.config)
        self.findings.extend(schema)
        if schema_skipped is not None:
            self._skip("NeMo RL's schema (types, required keys, misspelled keys)", schema_skipped)
        schema_status = (
            "failed" if schema else "passed (NeMo RL's MasterConfig: types, required and known keys)"
        )
        self._write(f"NeMo RL schema: {schema_status if schema_skipped is None else 'skipped'}")
        if not any(f.level == "error" for f in self.findings):
            self._samples()
        else:
            self._skip("data, processor and environment", "not run: fix the errors first")
        return self._verdict()

    def _write(self, line: str = "") -> None:
        self.out.write(line + "\n")

    def _skip(self, check: str, reason: str) -> None:
        self.skipped.append(Skipped(check, reason))

    def _plan(self) -> None:
        def get(key: str, default: Any = None) -> Any:
            return _get(self.config, key, default)

        gpus = layout(self.config)
        algorithm = "async GRPO" if get("grpo.async_grpo.enabled", False) else "GRPO"
        placement = "the same GPUs (colocated)" if gpus.colocated else f"{gpus.generation} dedicated GPUs"
        period = get("grpo.val_period", 0)
        self._write("plan:")
        for label, text in (
            ("model", f"{get('policy.model_name')} (tokenizer {get('policy.tokenizer.name')})"),
            ("cluster", f"{get('cluster.num_nodes')} node(s) x {get('cluster.gpus_per_node')} GPUs"),
            ("training", f"{gpus.train} GPUs, {gpus.train_kind}"),
            ("generation", f"{gpus.generation_kind} on {placement}"),
            (
                "algorithm",
                f"{algorithm}, {get('grpo.max_num_steps')} steps of {get('grpo.num_prompts_per_step')} "
                f"prompts x {get('grpo.num_generations_per_prompt')} generations, "
                f"{get('grpo.max_rollout_turns', 1)} turn(s); global batch "
                f"{get('policy.train_global_batch_size')}, micro {get('policy.train_micro_batch_size')}",
            ),
            (
                "sequences",
                f"{get('policy.max_total_sequence_length')} tokens in all; prompts under "
                f"{get('data.max_input_seq_length')}; up to {get('policy.generation.max_new_tokens')} "
                "new tokens per turn",
            ),
            (
                "validation",
                f"every {period} steps, {get('grpo.max_val_samples')} prompts in batches of "
                f"{get('grpo.val_batch_size')}"
                if period
                else "off during training",
            ),
        ):
            self._write(f"  {label}: {text}")
        for where, entry in dataset_entries(self.config):
            if isinstance(entry, Mapping):
                source = entry.get("source") or entry.get("data_path") or entry.get("split") or ""
                self._write(
                    f"  {where}: dataset {entry.get('dataset_name')} {source} -> processor "
                    f"{entry.get('processor', 'default')} -> env {entry.get('env_name')}"
                )

    def _samples(self) -> None:
        tokenizer, tokenizer_note = local_tokenizer(_get(self.config, "policy.tokenizer", {}))
        self._write(f"processor: {tokenizer_note}")
        by_env: dict[str, list[Sample]] = {}
        for where, entry in dataset_entries(self.config):
            component = component_for_dataset(entry.get("dataset_name"))
            if component is None:
                self._skip(f"{where} data", "not ours: NeMo RL loads it when training starts")
                continue
            samples = self._load(where, component, entry)
            if tokenizer is None and samples:
                self._skip(f"{where} processor", tokenizer_note)
            if tokenizer is not None:
                samples = [
                    self._process(where, component, entry, s, i, tokenizer) for i, s in enumerate(samples)
                ]
            by_env.setdefault(component.name, []).extend(samples)
        for name, samples in by_env.items():
            self._environment(name, samples)

    def _load(self, where: str, component: Component, entry: Mapping[str, Any]) -> list[Sample]:
        try:
            settings = resolve(component.dataset_config)(entry, where)
            loaded = SAMPLERS[component.name](settings, self.rows)
        except Exception as error:  # a data source that cannot be read is this config's error
            self.findings.append(
                Finding("error", where, f"cannot load rows: {type(error).__name__}: {error}")
            )
            return []
        self._write(f"{where}: loaded {loaded.origin}")
        if loaded.stand_in is not None:
            self._skip(f"{where} data", loaded.stand_in)
        return loaded.samples

    def _process(
        self,
        where: str,
        component: Component,
        entry: Mapping[str, Any],
        sample: Sample,
        index: int,
        tokenizer: Any,
    ) -> Sample:
        spec = _TaskSpec(
            task_name=sample.row["task_name"],
            prompt=_read_prompt_file(entry.get("prompt_file")),
            system_prompt=_read_prompt_file(entry.get("system_prompt_file")),
        )
        limit = _get(self.config, "data.max_input_seq_length")
        try:
            datum = resolve(component.processor)(sample.row, spec, tokenizer, limit, index)
        except Exception as error:  # what the processor rejects would stop a data-loader worker
            self.findings.append(Finding("error", f"{where} row {index}", f"the processor raised: {error}"))
            return sample
        tokens = datum["length"]
        if datum["loss_multiplier"] == 0:
            self.findings.append(
                Finding(
                    "warning", f"{where} row {index}", f"prompt of {tokens} tokens >= {limit}: masked out"
                )
            )
        self._write(f"{where} row {index}: prompt of {tokens} tokens")
        return dataclasses.replace(
            sample,
            messages=[{"role": "user", "content": datum["message_log"][0]["content"]}],
            env_info=datum["extra_env_info"],
        )

    def _environment(self, name: str, samples: list[Sample]) -> None:
        component = component_named(name)
        assert component is not None
        section = dict(_get(self.config, f"env.{name}", {}))
        if (section.get("max_rollout_turns") or 1) > 1:
            tokenizer, note = local_tokenizer(section.get("tokenizer"))
            if tokenizer is None:
                self._skip(f"env.{name}", f"not run: its feedback turns need the {note}")
                return
        section["workers"] = min(2, section.get("workers") or 2)  # a few rows need no more
        section.pop("metrics_jsonl", None)  # a check must not append rows to the run's metrics
        try:
            environment = resolve(component.environment).__ray_actor_class__(section)
        except Exception as error:  # the sandbox may be unavailable on this host only
            from nemo_code_rl.sandbox_probe import environments_problem

            level = str(section.get("isolation") or "full")
            cause = environments_problem(level, [name]) or f"{type(error).__name__}: {error}"
            self._skip(f"env.{name}", f"could not start here: {cause}")
            return
        try:
            self._step(name, environment, samples)
        except Exception as error:  # an environment must never raise out of step
            self.findings.append(
                Finding("error", f"env.{name}", f"step raised {type(error).__name__}: {error}")
            )
        finally:
            environment.shutdown()

    def _step(self, name: str, environment: Any, samples: list[Sample]) -> None:
        unique = list({_sample_id(sample): sample for sample in samples}.values())
        answers = [("reference", s, f"```python\n{s.reference}\n```") for s in unique if s.reference]
        answers += [("empty answer", s, "") for s in unique]
        result = environment.step(
            [[*s.messages, {"role": "assistant", "content": text}] for _, s, text in answers],
            [json.loads(json.dumps(s.env_info)) for _, s, _ in answers],
        )
        outcomes: dict[str, list[str]] = {}
        for (kind, sample, _), reward, observation, done in zip(
            answers, result.rewards.tolist(), result.observations, result.terminateds.tolist(), strict=True
        ):
            where = f"env {name} ({_sample_id(sample)})"
            ending = "ends" if done else f"feedback turn of {len(observation['content'])} characters"
            outcomes.setdefault(_sample_id(sample), []).append(f"{kind} {round(reward, 3)} ({ending})")
            if kind == "reference" and reward < 1.0:
                self.findings.append(
                    Finding(
                        "warning", where, f"the reference scored {reward}: {observation['content'][:200]}"
                    )
                )
            if kind == "empty answer" and reward > 0:
                self.findings.append(Finding("error", where, f"an empty answer scored {reward}"))
        for sample_id, texts in outcomes.items():
            self._write(f"env {name}: {sample_id}: {', '.join(texts)}")

    def _verdict(self) -> int:
        errors = [f for f in self.findings if f.level == "error"]
        for line in [*self.findings, *self.skipped]:
            self._write(str(line))
        warnings = sum(f.level == "warning" for f in self.findings)
        if errors:
            skipped = len(self.skipped)
            self._write(f"dry run FAILED: {len(errors)} error(s), {warnings} warning(s), {skipped} skipped")
            return EXIT_FAILED
        if self.skipped:
            self._write(f"dry run PARTIAL: {len(self.skipped)} checks skipped, {warnings} warning(s)")
            return EXIT_PARTIAL
        self._write(f"dry run OK: every check ran, {warnings} warning(s)")
        return EXIT_OK
