"""A CPU policy for NeMo RL's ``setup(policy_factory=...)``: a real model trained and sampled on CPU.

NeMo RL's GPU workers (DTensor / Megatron training, vLLM generation) cannot run without GPUs. This
policy stands in for them so that NeMo RL's own ``grpo_train`` and ``async_grpo_train`` run end to
end with our environments: everything around the policy (data, rollouts, advantages, ``loss_fn``,
logger, checkpointer, validation) is NeMo RL's. It serves the colocated ``megatron`` generation
route: NeMo RL's ``MegatronGeneration`` generates through the policy's worker group, and its
``MegatronWeightSynchronizer`` refits by calling the workers' ``prepare_for_generation``.

One Ray actor (``CpuPolicyWorker``) per policy, placed in the bundle of NeMo RL's virtual cluster (Ray
must advertise logical GPUs). The worker keeps a training model and a separate generation model:
a refit copies the trained weights into the generation model, so generation after a step uses the
new weights only when NeMo RL refits. When ``NEMO_CODE_RL_CPU_POLICY_LOG`` names a file, the worker
appends one JSON line per event (load, train, refit, generate, save) with a digest of the weights
(generate names the refit version it used), which the tests read to check that training, refit and resumption really happened.

It lives in the tests: 135M parameters on CPU learn nothing useful, and it implements only what
the colocated route calls, so it is a test fixture, not a training backend.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import ray
import torch
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

LOG_ENV = "NEMO_CODE_RL_CPU_POLICY_LOG"
OPTIMIZER_FILE = "optimizer.pt"
BATCH_WINDOW_S = 0.5  # how long concurrent generate_async calls wait to be sampled together


def weights_digest(model: torch.nn.Module) -> str:
    """A digest of every parameter's bytes: equal digests mean equal weights."""
    digest = hashlib.sha1()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().contiguous().view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


@ray.remote
class CpuPolicyWorker:
    """The model, its optimizer and its generation copy, in one Ray actor."""

    def __init__(
        self,
        config: dict[str, Any],
        tokenizer: Any,
        weights_path: str | None,
        optimizer_path: str | None,
        log_path: str | None,
    ) -> None:
        from transformers import AutoModelForCausalLM

        torch.manual_seed(config.get("seed", 42) if isinstance(config.get("seed"), int) else 42)
        torch.set_num_threads(max(1, int(os.environ.get("NEMO_CODE_RL_CPU_POLICY_THREADS", "2"))))
        self.config = config
        self.tokenizer = tokenizer
        self.log_path = log_path
        source = weights_path or config["model_name"]
        self.model = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32)
        self.generator = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32)
        self.generator.eval()
        kwargs = dict(config["optimizer"]["kwargs"])
        self.optimizer = torch.optim.AdamW(
            self.model.parameters(),
            lr=kwargs["lr"],
            weight_decay=kwargs.get("weight_decay", 0.0),
            betas=tuple(kwargs.get("betas", (0.9, 0.999))),
            eps=kwargs.get("eps", 1e-8),
        )
        if optimizer_path is not None:
            self.optimizer.load_state_dict(torch.load(Path(optimizer_path) / OPTIMIZER_FILE))
        self.version = 0
        self._pending: list[tuple[Any, bool, asyncio.Future]] = []
        self._log(
            "load",
            source=str(source),
            optimizer_path=None if optimizer_path is None else str(optimizer_path),
            optimizer_steps=self._optimizer_steps(),
            digest=weights_digest(self.model),
        )

    def _optimizer_steps(self) -> int:
        states = list(self.optimizer.state.values())
        return int(states[0]["step"]) if states else 0

    def _log(self, event: str, **fields: Any) -> None:
        if self.log_path is None:
            return
        with open(self.log_path, "a") as stream:
            stream.write(json.dumps({"event": event, "time": time.time(), **fields}) + "\n")

    # --- generation (called by NeMo RL's MegatronGeneration through the worker group) ---

    def prepare_for_generation(self, tags: list[str] | None = None, **_: Any) -> bool:
        """Wake for generation; a refit tag copies the trained weights into the generation model."""
        if tags and ("colocated_refit" in tags or "weights" in tags):
            self.generator.load_state_dict(self.model.state_dict())
            self.version += 1
            self._log("refit", version=self.version, digest=weights_digest(self.generator))
        return True

    def finish_generation(self, **_: Any) -> bool:
        return True

    def generate(self, data: Any, greedy: bool = False) -> Any:
        """NeMo RL's ``GenerationOutputSpec`` for a right-padded batch, sampled with the config's settings."""
        from nemo_rl.distributed.batched_data_dict import BatchedDataDict

        generation = self.config["generation"]
        if any(s for s in (data.get("stop_strings") or []) if s) or generation.get("stop_strings"):
            raise ValueError("the CPU policy does not implement stop strings")
        pad = generation["_pad_token_id"]
        input_ids, lengths = data["input_ids"], data["input_lengths"]
        batch = input_ids.shape[0]
        width = int(lengths.max())
        max_new = min(generation["max_new_tokens"], self.config["max_total_sequence_length"] - width)
        left = torch.full((batch, width), pad, dtype=torch.long)
        mask = torch.zeros((batch, width), dtype=torch.long)
        for i in range(batch):
            n = int(lengths[i])
            left[i, width - n :] = input_ids[i, :n]
            mask[i, width - n :] = 1
        stop_ids = list(generation.get("stop_token_ids") or []) or [self.tokenizer.eos_token_id]
        with torch.no_grad():
            out = self.generator.generate(
                input_ids=left,
                attention_mask=mask,
                max_new_tokens=max_new,
                do_sample=not greedy,
                temperature=generation["temperature"] if not greedy else None,
                top_p=generation.get("top_p") or 1.0 if not greedy else None,
                top_k=generation.get("top_k") if not greedy else None,
                eos_token_id=stop_ids,
                pad_token_id=pad,
            )
        new_tokens = out[:, width:]
        total = width + max_new
        output_ids = torch.full((batch, total), pad, dtype=torch.long)
        gen_lengths = torch.zeros(batch, dtype=torch.long)
        truncated = torch.zeros(batch, dtype=torch.bool)
        for i in range(batch):
            n = int(lengths[i])
            row = new_tokens[i].tolist()
            end = next((k + 1 for k, t in enumerate(row) if t in stop_ids), None)
            truncated[i] = end is None
            kept = row[: end if end is not None else len(row)]
            output_ids[i, :n] = input_ids[i, :n]
            output_ids[i, n : n + len(kept)] = torch.tensor(kept, dtype=torch.long)
            gen_lengths[i] = len(kept)
        unpadded = lengths.to(torch.long) + gen_lengths
        logprobs = self._token_logprobs(self.generator, output_ids, unpadded)
        for i in range(batch):  # only the generated tokens carry logprobs
            logprobs[i, : int(lengths[i])] = 0.0
            logprobs[i, int(unpadded[i]) :] = 0.0
        self._log("generate", version=self.version, samples=batch)  # the refit event has the digest
        return BatchedDataDict(
            {
                "output_ids": output_ids,
                "logprobs": logprobs,
                "generation_lengths": gen_lengths,
                "unpadded_sequence_lengths": unpadded,
                "truncated": truncated,
            }
        )

    async def generate_async(self, data: Any, greedy: bool = False) -> AsyncIterator[tuple[int, Any]]:
        """Streaming generation, which NeMo RL's rollouts use with the Megatron backend: one call per
        sample, all at once. Calls arriving within ``BATCH_WINDOW_S`` are sampled as one batch (as an
        inference engine batches requests), then each gets its own rows back as ``(index, output)``."""
        future = asyncio.get_running_loop().create_future()
        self._pending.append((data, greedy, future))
        await asyncio.sleep(BATCH_WINDOW_S)
        if self._pending:
            batch, self._pending = self._pending, []
            await asyncio.to_thread(self._generate_together, batch)
        output = await future
        for index in range(output.size):
            yield index, output.get_batch(index, 1)

    def _generate_together(self, requests: list[tuple[Any, bool, asyncio.Future]]) -> None:
        from nemo_rl.distributed.batched_data_dict import BatchedDataDict

        pad = self.config["generation"]["_pad_token_id"]
        width = max(int(data["input_lengths"].max()) for data, _, _ in requests)
        rows, lengths, stops, sizes = [], [], [], []
        for data, _, _ in requests:
            ids = data["input_ids"]
            rows.append(torch.nn.functional.pad(ids, (0, width - ids.shape[1]), value=pad))
            lengths.append(data["input_lengths"])
            stops.extend(data.get("stop_strings") or [None] * ids.shape[0])
            sizes.append(ids.shape[0])
        together = BatchedDataDict(
            {"input_ids": torch.cat(rows), "input_lengths": torch.cat(lengths), "stop_strings": stops}
        )
        output = self.generate(together, greedy=all(greedy for _, greedy, _ in requests))
        start = 0
        for (_, _, future), size in zip(requests, sizes, strict=True):
            future.get_loop().call_soon_threadsafe(future.set_result, output.slice(start, start + size))
            start += size

    # --- training ---

    @staticmethod
    def _token_logprobs(
        model: torch.nn.Module, input_ids: torch.Tensor, lengths: torch.Tensor
    ) -> torch.Tensor:
        """Position t holds log p(token t | tokens < t); position 0 is 0 (NeMo RL's convention)."""
        mask = (torch.arange(input_ids.shape[1])[None, :] < lengths[:, None]).long()
        logits = model(input_ids=input_ids, attention_mask=mask).logits.float()
        picked = torch.log_softmax(logits[:, :-1], dim=-1).gather(-1, input_ids[:, 1:, None]).squeeze(-1)
        return torch.cat([torch.zeros_like(picked[:, :1]), picked], dim=1) * mask

    def get_logprobs(self, data: Any) -> torch.Tensor:
        with torch.no_grad():
            return self._token_logprobs(self.model, data["input_ids"], data["input_lengths"])

    def train(self, data: Any, loss_fn: Any, micro_batch_size: int, max_grad_norm: float | None) -> dict:
        """One optimizer step over the batch, the loss being NeMo RL's ``loss_fn`` on each microbatch."""
        from nemo_rl.algorithms.loss.interfaces import LossInputType

        if loss_fn.input_type != LossInputType.LOGPROB:
            raise ValueError(f"the CPU policy feeds token log probabilities, not {loss_fn.input_type}")
        before = weights_digest(self.model)
        self.model.train()
        self.optimizer.zero_grad()
        sample_mask = data["sample_mask"]
        global_valid_seqs = sample_mask.sum()
        global_valid_toks = (data["token_mask"][:, 1:] * sample_mask.unsqueeze(-1)).sum()
        total_loss = torch.zeros(())
        metrics: dict[str, list] = {}
        size = data["input_ids"].shape[0]
        for start in range(0, size, micro_batch_size):
            micro = data.slice(start, min(size, start + micro_batch_size))
            lengths = micro["input_lengths"]
            mask = (torch.arange(micro["input_ids"].shape[1])[None, :] < lengths[:, None]).long()
            logits = self.model(input_ids=micro["input_ids"], attention_mask=mask).logits.float()
            # What NeMo RL's prepare_loss_input computes for a LOGPROB loss without top-k/top-p; its own
            # code moves the token ids to CUDA unconditionally, so it cannot run here.
            ids = micro["input_ids"][:, 1:, None]
            next_token_logprobs = torch.log_softmax(logits[:, :-1], dim=-1).gather(-1, ids).squeeze(-1)
            loss, loss_metrics = loss_fn(
                next_token_logprobs=next_token_logprobs,
                data=micro,
                global_valid_seqs=global_valid_seqs,
                global_valid_toks=global_valid_toks,
            )
            loss.backward()
            total_loss += loss.detach()
            loss_metrics = {  # what NeMo RL's own workers add to each microbatch's metrics
                **loss_metrics,
                "lr": self.optimizer.param_groups[0]["lr"],
                "global_valid_seqs": float(global_valid_seqs),
                "global_valid_toks": float(global_valid_toks),
            }
            for key, value in loss_metrics.items():
                metrics.setdefault(key, []).append(float(value))
        grad_norm = torch.nn.utils.clip_grad_norm_(
            self.model.parameters(), max_grad_norm if max_grad_norm else float("inf")
        )
        self.optimizer.step()
        self.model.eval()
        after = weights_digest(self.model)
        self._log(
            "train",
            loss=float(total_loss),
            grad_norm=float(grad_norm),
            digest_before=before,
            digest_after=after,
            optimizer_steps=self._optimizer_steps(),
            samples=size,
        )
        return {"global_loss": total_loss, "grad_norm": grad_norm.detach(), "all_mb_metrics": metrics}

    def save_checkpoint(self, weights_path: str, optimizer_path: str | None) -> None:
        self.model.save_pretrained(weights_path)
        if optimizer_path is not None:
            Path(optimizer_path).mkdir(parents=True, exist_ok=True)
            torch.save(self.optimizer.state_dict(), Path(optimizer_path) / OPTIMIZER_FILE)
        self._log(
            "save",
            weights_path=str(weights_path),
            digest=weights_digest(self.model),
            optimizer_steps=self._optimizer_steps(),
        )


class CpuWorkerGroup:
    """What ``MegatronGeneration`` asks of a policy's worker group, over one worker."""

    def __init__(self, worker: Any) -> None:
        self.workers = [worker]

    def run_single_worker_single_data(
        self, method_name: str, worker_idx: int, *args: Any, **kwargs: Any
    ) -> Any:
        return getattr(self.workers[worker_idx], method_name).remote(*args, **kwargs)

    def run_all_workers_single_data(self, method_name: str, *args: Any, **kwargs: Any) -> list:
        kwargs.pop("run_rank_0_only_axes", None)
        return [getattr(worker, method_name).remote(*args, **kwargs) for worker in self.workers]


class CpuPolicy:
    """The driver's side: the calls ``grpo_train`` and ``async_grpo_train`` make on a policy."""

    def __init__(
        self,
        cluster: Any,
        config: dict[str, Any],
        tokenizer: Any,
        processor: Any = None,
        weights_path: str | None = None,
        optimizer_path: str | None = None,
        init_optimizer: bool = True,
        init_reference_model: bool = True,
        **_: Any,
    ) -> None:
        if init_reference_model:
            raise ValueError(
                "the CPU policy has no reference model: set loss_fn.reference_policy_kl_penalty=0"
            )
        self.cfg = config
        placement_group = cluster.get_placement_groups()[0]
        worker = CpuPolicyWorker.options(
            num_cpus=1,
            num_gpus=1,
            scheduling_strategy=PlacementGroupSchedulingStrategy(
                placement_group=placement_group, placement_group_bundle_index=0
            ),
        ).remote(config, tokenizer, weights_path, optimizer_path, os.environ.get(LOG_ENV))
        self.worker_group = CpuWorkerGroup(worker)
        self._worker = worker
        from nemo_rl.distributed.named_sharding import NamedSharding

        # One worker, so data parallel size 1 (async_grpo_train checks the batch divides by it).
        self.sharding_annotations = NamedSharding(layout=[0], names=["data_parallel"])
        ray.get(worker.finish_generation.remote())  # raises here if the worker failed to start

    def get_logprobs(self, data: Any, timer: Any = None, **_: Any) -> dict:
        from nemo_rl.distributed.batched_data_dict import BatchedDataDict

        return BatchedDataDict({"logprobs": ray.get(self._worker.get_logprobs.remote(data))})

    def train(self, data: Any, loss_fn: Any, eval_mode: bool = False, timer: Any = None, **_: Any) -> dict:
        if eval_mode:
            raise ValueError("the CPU policy does not evaluate losses without training")
        result = ray.get(
            self._worker.train.remote(
                data, loss_fn, self.cfg["train_micro_batch_size"], self.cfg.get("max_grad_norm")
            )
        )
        return {
            "loss": result["global_loss"],
            "grad_norm": result["grad_norm"],
            "all_mb_metrics": result["all_mb_metrics"],
        }

    def save_checkpoint(
        self,
        weights_path: str,
        optimizer_path: str | None = None,
        tokenizer_path: str | None = None,
        **_: Any,
    ) -> None:
        ray.get(self._worker.save_checkpoint.remote(weights_path, optimizer_path))

    def finalize_async_save(self) -> None:
        """Saving is synchronous."""

    def prepare_for_training(self, *_: Any, **__: Any) -> None:
        """Nothing to move: training and generation share the CPU."""

    def prepare_for_lp_inference(self, *_: Any, **__: Any) -> None:
        """Nothing to move."""

    def finish_training(self, *_: Any, **__: Any) -> None:
        """Nothing to move."""

    def offload_before_refit(self) -> None:
        """Nothing to offload on CPU."""

    def offload_after_refit(self) -> None:
        """Nothing to offload on CPU."""

    def print_node_ip_and_gpu_id(self) -> None:
        """No GPUs to report."""

    def shutdown(self) -> bool:
        ray.kill(self._worker)
        return True
