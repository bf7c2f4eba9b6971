"""One dry run: the plan, every check of the package doc, and the verdict with its exit status."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from nemo_code_rl.dry_run.arithmetic import layout
from nemo_code_rl.dry_run.findings import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_PARTIAL,
    Finding,
    Skipped,
    dataset_entries,
    setting,
)
from nemo_code_rl.dry_run.keys import (
    added_key_findings,
    builtin_names,
    check_config,
    nemo_rl_names,
    schema_findings,
)
from nemo_code_rl.dry_run.samples import (
    Loaded,
    Sample,
    family_samples,
    hub_unavailable,
    local_tokenizer,
    processed_sample,
)
from nemo_code_rl.families import TaskFamily, family_for_dataset, family_named, resolve


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
            return setting(self.config, key, default)

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
        tokenizer, tokenizer_note = local_tokenizer(setting(self.config, "policy.tokenizer", {}))
        self._write(f"processor: {tokenizer_note}")
        by_env: dict[str, list[Sample]] = {}
        for where, entry in dataset_entries(self.config):
            family = family_for_dataset(entry.get("dataset_name"))
            if family is None:
                self._skip(f"{where} data", "not ours: NeMo RL loads it when training starts")
                continue
            loaded = self._load(where, family, entry)
            if tokenizer is None and loaded.rows:
                self._skip(f"{where} processor", tokenizer_note)
            samples = by_env.setdefault(family.name, [])
            for index, (row, reference) in enumerate(zip(loaded.rows, loaded.references, strict=True)):
                sample = self._process(where, family, entry, row, reference, index, tokenizer)
                if sample is not None:
                    samples.append(sample)
        for name, samples in by_env.items():
            self._environment(name, samples)

    def _load(self, where: str, family: TaskFamily, entry: Mapping[str, Any]) -> Loaded:
        try:
            settings = resolve(family.dataset_config)(entry, where)
            loaded = family_samples(family, settings, self.rows)
        except Exception as error:  # noqa: BLE001 - a data source that cannot be read is this config's error
            self.findings.append(
                Finding("error", where, f"cannot load rows: {type(error).__name__}: {error}")
            )
            return Loaded([], [], "nothing")
        self._write(f"{where}: loaded {loaded.origin}")
        if loaded.stand_in is not None:
            self._skip(f"{where} data", loaded.stand_in)
        if loaded.raw is not None:
            self._skip(f"{where} rows through Arrow", loaded.raw)
        return loaded

    def _process(
        self,
        where: str,
        family: TaskFamily,
        entry: Mapping[str, Any],
        row: dict[str, Any],
        reference: str | None,
        index: int,
        tokenizer: Any,
    ) -> Sample | None:
        limit = setting(self.config, "data.max_input_seq_length")
        try:
            processed = processed_sample(family, entry, row, reference, index, tokenizer, limit)
        except Exception as error:  # noqa: BLE001 - what the processor rejects would stop a data-loader worker
            self.findings.append(Finding("error", f"{where} row {index}", f"the processor raised: {error}"))
            return None
        if processed.tokens is not None:
            if processed.masked:
                self.findings.append(
                    Finding(
                        "warning",
                        f"{where} row {index}",
                        f"prompt of {processed.tokens} tokens >= {limit}: masked out",
                    )
                )
            self._write(f"{where} row {index}: prompt of {processed.tokens} tokens")
        return processed.sample

    def _environment(self, name: str, samples: list[Sample]) -> None:
        family = family_named(name)
        assert family is not None
        section = dict(setting(self.config, f"env.{name}", {}))
        if (section.get("max_rollout_turns") or 1) > 1:
            tokenizer, note = local_tokenizer(section.get("tokenizer"))
            if tokenizer is None:
                self._skip(f"env.{name}", f"not run: its feedback turns need the {note}")
                return
        section["workers"] = min(2, section.get("workers") or 2)  # a few rows need no more
        section.pop("metrics_jsonl", None)  # a check must not append rows to the run's metrics
        try:
            environment = resolve(family.environment).__ray_actor_class__(section)
        except Exception as error:  # noqa: BLE001 - the sandbox may be unavailable on this host only
            from nemo_code_rl.sandbox_probe import environments_problem

            level = str(section.get("isolation") or "full")
            cause = environments_problem(level, [name]) or f"{type(error).__name__}: {error}"
            self._skip(f"env.{name}", f"could not start here: {cause}")
            return
        try:
            self._step(name, environment, samples)
        except Exception as error:  # noqa: BLE001 - an environment must never raise out of step
            self.findings.append(
                Finding("error", f"env.{name}", f"step raised {type(error).__name__}: {error}")
            )
        finally:
            environment.shutdown()

    def _step(self, name: str, environment: Any, samples: list[Sample]) -> None:
        unique = list({sample.id: sample for sample in samples}.values())
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
            where = f"env {name} ({sample.id})"
            ending = "ends" if done else f"feedback turn of {len(observation['content'])} characters"
            outcomes.setdefault(sample.id, []).append(f"{kind} {round(reward, 3)} ({ending})")
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
