"""Our keys strictly, every name a config uses, and NeMo RL's own registries and GRPO schema.

``check_config`` is what runs before training too: our ``env.<name>`` sections and data entries with
"did you mean" for unknown keys, names that neither we nor NeMo RL register, our environments fed
by another processor, missing prompt files, and the arithmetic (``arithmetic``).
"""

from __future__ import annotations

import difflib
import importlib.util
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.config_loading import load_resolved
from nemo_code_rl.dry_run.arithmetic import check_arithmetic
from nemo_code_rl.dry_run.findings import Finding, dataset_entries
from nemo_code_rl.families import available_families, family_for_dataset, family_named, resolve
from nemo_code_rl.registration import register

# NeMo RL's built-in names @ 7ea279a, for machines without NeMo RL (with it, its registries are read).
NEMO_RL_ENVIRONMENTS = tuple(
    ["math_default", "math", "math_multi_reward", "code", "reward_model", "code_jaccard", "vlm", "nemo_gym"]
)
NEMO_RL_PROCESSORS = tuple(
    [
        "default",
        "helpsteer3_data_processor",
        "kd_data_processor",
        "math_data_processor",
        "math_hf_data_processor",
        "multichoice_qa_processor",
        "sft_processor",
        "vlm_hf_data_processor",
        "nemo_gym_data_processor",
    ]
)
NEMO_RL_DATASETS = tuple(
    [
        "audiomcq",
        "arrow_text",
        "avqa",
        "AIME2024",
        "AIME2025",
        "AIME2026",
        "clevr-cogent",
        "daily-omni",
        "general-conversation-jsonl",
        "DAPOMath17K",
        "DAPOMathAIME2024",
        "DeepScaler",
        "GSM8K",
        "geometry3k",
        "mmpr-tiny",
        "HelpSteer3",
        "intent-train",
        "intent-bench",
        "open_assistant",
        "OpenMathInstruct-2",
        "NuminaMath-1.5",
        "OpenR1-Math-220k",
        "refcoco",
        "squad",
        "tulu3_sft_mixture",
        "gsm8k",
        "Nemotron-Cascade-2-SFT-Math",
        "openai_format",
        "NemoGymDataset",
        "ResponseDataset",
    ]
)


@dataclass(frozen=True)
class Names:
    """The environment, processor and dataset names a config may use."""

    environments: frozenset[str]
    processors: frozenset[str]
    datasets: frozenset[str]
    source: str


def check_config(config: Mapping[str, Any], names: Names) -> list[Finding]:
    """Our keys strictly, every name, and the arithmetic; no data, model or NeMo RL import needed."""
    return [*_check_data_entries(config, names), *_check_env_sections(config), *check_arithmetic(config)]


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
    """Our families' names and NeMo RL's built-in ones, as of the NeMo RL commit we pin."""
    ours = frozenset(c.name for c in available_families())
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
        family = family_for_dataset(dataset_name)
        if family is not None:
            yield from _strict(family.dataset_config, entry, where)
            for key, value in (("processor", processor), ("env_name", env_name)):
                if value != family.name:
                    yield Finding(
                        "error",
                        f"{where}.{key}",
                        f"is {value!r}: {family.name} rows need {family.name!r}",
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
        env_family = family_named(env_name)
        if env_family is not None and processor != env_family.name:
            yield Finding(
                "error",
                f"{where}.processor",
                f"is {processor!r}, but env {env_name!r} reads what processor {env_family.name!r} writes",
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
        family = family_named(name)
        if family is not None:
            yield from _strict(family.env_config, section, f"env.{name}")
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


def nemo_rl_names() -> tuple[Names | None, str]:
    """NeMo RL's live registries with ours registered, or ``None`` and why not.

    Raises:
        ValueError: one of our names is registered to something else (see ``register``).
    """
    if importlib.util.find_spec("nemo_rl") is None:
        return None, "NeMo RL is not installed"
    try:
        from nemo_code_rl import nemo_rl_glue
    except Exception as error:  # noqa: BLE001 - any import failure means: no NeMo RL here
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
    except Exception as error:  # noqa: BLE001 - NeMo RL absent, or its GRPO module not importable on this Python
        return [], f"NeMo RL's GRPO schema is not importable here ({type(error).__name__}: {error})"
    findings = [Finding("error", "NeMo RL schema", message) for message in errors]
    findings += [
        Finding(
            "error", path, f"not in NeMo RL's schema, which would ignore it; did you mean {suggestion!r}?"
        )
        for path, suggestion in near_misses
    ]
    return findings, None
