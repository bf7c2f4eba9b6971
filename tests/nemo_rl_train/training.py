"""Running ``python -m nemo_code_rl.run`` with the CPU policy, and reading what the run left behind:
the CPU policy's event log, NeMo RL's logger output (tensorboard events, ``train_data_step*.jsonl``,
``val_data_step*.jsonl``), checkpoints, and our environment's ``metrics_jsonl``."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.nemo_rl_train.cpu_policy import LOG_ENV

REPO = Path(__file__).resolve().parents[2]
FACTORY = "tests.nemo_rl_train.cpu_policy:CpuPolicy"


def cpu_overrides(
    model_folder: Path, run_dir: Path, steps: int, new_tokens: int = 64, sequence_length: int = 768
) -> list[str]:
    """What turns a shipped config into a small CPU run: the CPU policy on NeMo RL's colocated
    ``megatron`` generation route, 2 prompts x 4 generations, short sequences (``new_tokens`` per
    turn, ``sequence_length`` in all), one logical GPU."""
    return [
        f"policy.model_name={model_folder}",
        "policy.generation.backend=megatron",
        "policy.generation.colocated.enabled=true",
        "++policy.generation.mcore_generation_config.expose_http_server=false",  # ARC configs lack it
        f"policy.generation.max_new_tokens={new_tokens}",
        "policy.generation.temperature=1.0",
        f"policy.max_total_sequence_length={sequence_length}",
        "policy.train_global_batch_size=8",
        "policy.train_micro_batch_size=4",
        "policy.sequence_packing.enabled=false",
        "policy.dynamic_batching.enabled=false",
        "policy.optimizer.kwargs.lr=1e-5",
        "policy.scheduler=[]",
        "++grpo.calculate_advantages_on_gpu=false",
        "grpo.num_prompts_per_step=2",
        "grpo.num_generations_per_prompt=4",
        f"grpo.max_num_steps={steps}",
        "grpo.max_num_epochs=100",  # 2 prompts make one step an epoch
        "grpo.val_at_start=false",
        "grpo.val_at_end=true",
        "grpo.max_val_samples=2",
        "grpo.val_batch_size=2",
        "loss_fn.reference_policy_kl_penalty=0",
        "data.max_input_seq_length=512",
        "cluster.gpus_per_node=1",
        "cluster.num_nodes=1",
        f"checkpointing.checkpoint_dir={run_dir / 'checkpoints'}",
        f"logger.log_dir={run_dir / 'logs'}",
        "logger.monitor_gpus=false",
        "logger.tensorboard_enabled=true",
    ]


@dataclass
class Run:
    """One finished training run and what it left."""

    returncode: int
    output: str
    events: list[dict[str, Any]]
    log_dir: Path  # NeMo RL's experiment folder (logger.log_dir/exp_NNN)

    def of(self, event: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == event]

    def jsonl(self, name: str) -> list[dict[str, Any]]:
        return [json.loads(line) for line in (self.log_dir / name).read_text().splitlines() if line]

    def scalars(self) -> dict[str, list[tuple[int, float]]]:
        """Every scalar NeMo RL's logger wrote to tensorboard: tag -> [(step, value)]."""
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        found: dict[str, list[tuple[int, float]]] = {}
        for events_file in sorted(self.log_dir.rglob("events.out.tfevents.*")):
            accumulator = EventAccumulator(str(events_file), size_guidance={"scalars": 0})
            accumulator.Reload()
            for tag in accumulator.Tags()["scalars"]:
                found.setdefault(tag, []).extend((e.step, e.value) for e in accumulator.Scalars(tag))
        return found


def run_training(
    config: str,
    overrides: list[str],
    run_dir: Path,
    ray_address: str,
    timeout_s: float = 900,
    extra_env: dict[str, str] | None = None,
) -> Run:
    """``python -m nemo_code_rl.run --config CONFIG --policy-factory <CPU policy> OVERRIDES``, with
    ``extra_env`` added to the environment."""
    run_dir.mkdir(parents=True, exist_ok=True)
    log = run_dir / f"policy_events_{len(list(run_dir.glob('policy_events_*')))}.jsonl"
    env = {
        **os.environ,
        "RAY_ADDRESS": ray_address,
        LOG_ENV: str(log),
        "PYTHONPATH": os.pathsep.join(p for p in [str(REPO), os.environ.get("PYTHONPATH", "")] if p),
        "TOKENIZERS_PARALLELISM": "false",
        "HF_HUB_OFFLINE": "1",
        **(extra_env or {}),
    }
    before = set((run_dir / "logs").glob("exp_*")) if (run_dir / "logs").exists() else set()
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "nemo_code_rl.run",
            "--config",
            config,
            "--policy-factory",
            FACTORY,
            *overrides,
        ],
        cwd=run_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    output = completed.stdout + completed.stderr
    created = sorted(set((run_dir / "logs").glob("exp_*")) - before)
    events = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return Run(completed.returncode, output, events, created[-1] if created else run_dir / "logs")


def assert_trained(run: Run, steps: int) -> None:
    """The policy's ``train`` ran NeMo RL's ``loss_fn`` with a real optimizer step ``steps`` times (the
    weights moved each step), and every generation after a train step used the latest weights, so
    NeMo RL refit in between."""
    trains = run.of("train")
    assert len(trains) == steps, trains
    assert all(t["digest_before"] != t["digest_after"] for t in trains)
    first = run.of("load")[0]["optimizer_steps"]
    assert [t["optimizer_steps"] for t in trains] == list(range(first + 1, first + steps + 1))
    assert all(a["digest_after"] == b["digest_before"] for a, b in itertools.pairwise(trains))
    latest, refit = run.of("load")[0]["digest"], None
    for event in run.events:
        if event["event"] == "train":
            latest, refit = event["digest_after"], None
        elif event["event"] == "refit":
            refit = event if event["digest"] == latest else None
        elif event["event"] == "generate":
            assert refit is not None and event["version"] == refit["version"], event
    assert any(e["event"] == "generate" for e in run.events[run.events.index(trains[0]) :])
