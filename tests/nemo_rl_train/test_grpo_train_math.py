"""NeMo RL's own ``grpo_train`` on CPU with NeMo RL's math environment, as ``grpo_gsm8k_2gpu.yaml`` sets it.

The shipped GSM8K config (NeMo RL's ``math_hf_data_processor``, its ``math`` environment with
``hf_math_verify``, no prompt file) with the CPU overrides of ``training.py``. Only the data
differs: ``openai/gsm8k`` is on the hub, so two grade-school word problems in GSM8K's layout
(``question``, ``answer``) go through NeMo RL's ``ResponseDataset`` instead. Nothing of ours is in the
loop but the launcher; this is the config's sanity run. 3 steps, then validation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nemo_code_rl.run import nemo_rl_problem

if (_problem := nemo_rl_problem()) is not None:  # before importing the CPU policy (torch, Ray)
    pytest.skip(_problem, allow_module_level=True)

from nemo_rl.environments.math_environment import HFVerifyWorker

from nemo_code_rl.config_loading import load_resolved
from tests.nemo_rl_train.code_problems import conversation
from tests.nemo_rl_train.training import assert_trained, cpu_overrides, run_training

pytestmark = pytest.mark.slow

CONFIG = "grpo_gsm8k_2gpu.yaml"
STEPS = 3
# Word problems SmolLM2-135M-Instruct answers right now and then (GSM8K's own are beyond it).
QUESTIONS = {
    "Tom has 2 apples. He buys 3 more apples. How many apples does Tom have now?": "5",
    "A box holds 4 pens. Sara adds 4 more pens to the box. How many pens are in the box now?": "8",
}


def _data_file(folder: Path) -> Path:
    path = folder / "word_problems.jsonl"
    path.write_text("".join(json.dumps({"question": q, "answer": a}) + "\n" for q, a in QUESTIONS.items()))
    return path


def _overrides(model: Path, run_dir: Path, data: Path) -> list[str]:
    dataset = [  # NeMo RL's dataset for local JSONL, both splits on the same file
        f"{prefix}{section}.{key}"
        for section in ("data.train", "data.validation")
        for prefix, key in [
            ("", "dataset_name=ResponseDataset"),
            ("+", f"data_path={data}"),
            ("+", "input_key=question"),
            ("+", "output_key=answer"),
            ("", "split=train"),
        ]
    ]
    return [
        # hf_math_verify takes the answer's last number, and SmolLM2 rambles on after its sum: 24 new
        # tokens end most answers at the sum, right or wrong.
        *cpu_overrides(model, run_dir, STEPS, new_tokens=24, sequence_length=1024),
        *dataset,
        "env.math.num_workers=2",  # of the config's 8 verify actors, what 2 cores hold
        f"grpo.val_period={STEPS}",
        "checkpointing.enabled=false",
    ]


def test_grpo_train_math(smollm_folder: Path, ray_address: str, tmp_path: Path) -> None:
    data = _data_file(tmp_path)
    overrides = _overrides(smollm_folder, tmp_path, data)
    run = run_training(CONFIG, overrides, tmp_path, ray_address)
    assert run.returncode == 0, run.output[-6000:]
    assert_trained(run, STEPS)

    # The rewards NeMo RL trained on are its math environment's verdicts: its verify worker, run here
    # on the same answers with the config's math_verify_impl, gives the same rewards.
    config = load_resolved(CONFIG, overrides)[1]
    steps = {step: run.jsonl(f"train_data_step{step}.jsonl") for step in range(1, STEPS + 1)}
    validation = run.jsonl(f"val_data_step{STEPS}.jsonl")
    rows = [row for step in steps.values() for row in step] + validation
    answers, truths = [], []
    for row in rows:
        prompt, answer, _ = conversation(row)
        (question,) = [q for q in QUESTIONS if q in prompt]
        answers.append(answer)
        truths.append(QUESTIONS[question])
    verifier = HFVerifyWorker.__ray_actor_class__()
    ours = verifier.verify(answers, truths, math_verify_impl=config["env"]["math"]["math_verify_impl"])
    logged = [float(row["rewards"][0]) for row in rows]
    assert logged == ours, list(zip(answers, logged, ours, strict=True))

    # NeMo RL's logger got the loss and the mean reward of each step, and the validation accuracy.
    scalars = run.scalars()
    assert sorted(step for step, _ in scalars["train/loss"]) == [1, 2, 3]
    assert dict(scalars["train/reward"]) == pytest.approx(
        {step: sum(r["rewards"][0] for r in step_rows) / len(step_rows) for step, step_rows in steps.items()}
    )
    assert scalars["validation/accuracy"] == [
        (STEPS, pytest.approx(sum(logged[-len(validation) :]) / len(validation)))
    ]
    train_rewards = logged[: -len(validation)]
    assert 0 < sum(train_rewards) < len(train_rewards), "every answer had the same reward: nothing learnt"
