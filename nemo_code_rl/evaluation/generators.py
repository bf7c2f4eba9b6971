"""Where an evaluation's completions come from: transformers, an OpenAI-compatible server, or vLLM.

Every generator takes the prompt as the processor's token ids (so no server or engine adds or
drops a BOS token on its own) and the same ``Sampling``: greedy at temperature 0, the same token
budget, generation ends at the same stop texts (``prompts.stop_texts``), which are cut off the
completion, special tokens are left out of it, and ``FinishReason`` says whether it stopped or
ran out of tokens. So one model gives the same greedy completions through any of them.

- ``transformers``: always available (``--model``: a hub id, a local folder, or a ``.gguf`` file
  read through the ``gguf`` package); on the GPU when there is one.
- ``openai``: any server with OpenAI's ``/v1/completions`` (vLLM's ``serve``, NeMo RL's or NeMo
  Gym's OpenAI server, hosted models), spoken with the standard library; ``$OPENAI_API_KEY`` is
  sent when set.
- ``vllm``: vLLM's offline engine, when vLLM is installed (GPU nodes).
"""

from __future__ import annotations

import json
import math
import os
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from nemo_code_rl.outcomes import FinishReason

GeneratorKind = Literal["transformers", "openai", "vllm"]
GGUF_SUFFIX = ".gguf"
REQUEST_TIMEOUT_S = 600.0


class GenerationError(RuntimeError):
    """The generator cannot produce completions: a server that cannot be reached or answers
    something else than completions, a missing engine; the message says which and where."""


@dataclass(frozen=True)
class Sampling:
    """How every generator samples.

    Attributes:
        temperature: 0 is greedy decoding.
        max_new_tokens: the most tokens of one completion.
        stop: texts that end a completion (cut off it).
    """

    temperature: float = 0.0
    max_new_tokens: int = 512
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not (math.isfinite(self.temperature) and self.temperature >= 0):
            raise ValueError(f"the temperature must be a number >= 0, got {self.temperature:g}")
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be at least 1, got {self.max_new_tokens}")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0


@dataclass(frozen=True)
class Generation:
    """One completion and why it ended."""

    text: str
    finish_reason: FinishReason


class Generator(Protocol):
    """Makes ``n`` completions of one prompt (token ids) with ``sampling``."""

    def generate(self, prompt_ids: Sequence[int], n: int, sampling: Sampling) -> list[Generation]: ...


def cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """``text`` up to the first stop text, and whether one was found.

    >>> cut_at_stop("x = 1<|im_end|>junk", ["<|im_end|>"])
    ('x = 1', True)
    """
    ends = [at for at in (text.find(s) for s in stop if s) if at >= 0]
    return (text[: min(ends)], True) if ends else (text, False)


def model_location(model: str) -> tuple[str, dict[str, Any]]:
    """What transformers' ``from_pretrained`` takes for ``model``: a ``.gguf`` file is its folder
    plus ``gguf_file=``; anything else (a hub id, a folder) as it is."""
    path = Path(model)
    if path.suffix == GGUF_SUFFIX:
        if not path.is_file():
            raise FileNotFoundError(f"no such GGUF file: {path}")
        return str(path.parent), {"gguf_file": path.name}
    return model, {}


def load_tokenizer(model: str) -> Any:
    """The model's tokenizer (its chat template makes the prompts, whatever the generator)."""
    from transformers import AutoTokenizer

    name, extra = model_location(model)
    return AutoTokenizer.from_pretrained(name, **extra)


class TransformersGenerator:
    """Generation with transformers' ``generate``, on the GPU when there is one.

    Args:
        model: a loaded causal LM (``from_pretrained`` loads one).
        tokenizer: its tokenizer.
    """

    def __init__(self, model: Any, tokenizer: Any) -> None:
        self.model = model.eval()
        self.tokenizer = tokenizer

    @classmethod
    def from_pretrained(cls, model: str, tokenizer: str | None = None) -> TransformersGenerator:
        """Load ``model`` (see ``model_location``): bfloat16 on a GPU, float32 on the CPU; its
        tokenizer from ``tokenizer`` (default: ``model``)."""
        import torch
        from transformers import AutoModelForCausalLM

        name, extra = model_location(model)
        device = "cuda" if torch.cuda.is_available() else "cpu"
        dtype = torch.bfloat16 if device == "cuda" else torch.float32
        loaded: Any = AutoModelForCausalLM.from_pretrained(name, dtype=dtype, **extra)
        return cls(loaded.to(device), load_tokenizer(tokenizer or model))

    def generate(self, prompt_ids: Sequence[int], n: int, sampling: Sampling) -> list[Generation]:
        import torch

        stop_ids = self._stop_token_ids(sampling.stop)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else stop_ids[0]
        options: dict[str, Any] = {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        if not sampling.greedy:
            options = {"do_sample": True, "temperature": sampling.temperature, "top_p": 1.0, "top_k": 0}
        inputs = torch.tensor([list(prompt_ids)], device=self.model.device)
        with torch.inference_mode():
            output = self.model.generate(
                input_ids=inputs,
                attention_mask=torch.ones_like(inputs),
                max_new_tokens=sampling.max_new_tokens,
                num_return_sequences=n,
                eos_token_id=stop_ids,
                pad_token_id=pad,
                **options,
            )
        return [
            self._completion(row.tolist(), stop_ids, sampling.stop) for row in output[:, inputs.shape[1] :]
        ]

    def _completion(self, tokens: list[int], stop_ids: list[int], stop: Sequence[str]) -> Generation:
        """The text before the first stop token or stop text, special tokens left out (as vLLM does)."""
        end = next((i for i, token in enumerate(tokens) if token in stop_ids), None)
        text = self.tokenizer.decode(tokens[:end], skip_special_tokens=True)
        text, stopped = cut_at_stop(text, stop)
        return Generation(text, FinishReason.STOP if end is not None or stopped else FinishReason.LENGTH)

    def _stop_token_ids(self, stop: Sequence[str]) -> list[int]:
        """The stop texts that are one token each (ended on the token; longer ones are cut from
        the text), else the model's own EOS."""
        ids = []
        for text in stop:
            encoded = self.tokenizer(text, add_special_tokens=False)["input_ids"]
            if len(encoded) == 1:
                ids.append(encoded[0])
        if not ids and self.tokenizer.eos_token_id is not None:
            ids.append(self.tokenizer.eos_token_id)
        if not ids:
            raise GenerationError("the tokenizer has no end-of-sequence token and no stop text is one token")
        return ids


class OpenAIGenerator:
    """Completions from an OpenAI-compatible server's ``/v1/completions``, the prompt sent as token ids.

    Args:
        base_url: the API root, e.g. ``http://localhost:8000/v1``.
        model: the model name the server serves.
        timeout_s: seconds to wait for one reply.
    """

    def __init__(self, base_url: str, model: str, timeout_s: float = REQUEST_TIMEOUT_S) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout_s = timeout_s

    def check(self) -> None:
        """Fail now, with the address, when the server cannot be reached (``GET /models``)."""
        self._request("GET", "/models")

    def generate(self, prompt_ids: Sequence[int], n: int, sampling: Sampling) -> list[Generation]:
        body = {
            "model": self.model,
            "prompt": list(prompt_ids),
            "n": n,
            "max_tokens": sampling.max_new_tokens,
            "temperature": sampling.temperature,
            "stop": list(sampling.stop),
        }
        reply = self._request("POST", "/completions", body)
        choices = reply.get("choices") if isinstance(reply, dict) else None
        if not isinstance(choices, list) or len(choices) != n:
            raise GenerationError(
                f"{self.base_url}/completions: expected {n} choices, got {str(reply)[:200]}"
            )
        generations = []
        for choice in sorted(choices, key=lambda c: c.get("index", 0)):
            text, stopped = cut_at_stop(str(choice.get("text", "")), sampling.stop)
            reason = choice.get("finish_reason")
            if reason not in set(FinishReason):
                raise GenerationError(f"{self.base_url}/completions: unknown finish_reason {reason!r}")
            generations.append(Generation(text, FinishReason.STOP if stopped else FinishReason(reason)))
        return generations

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        url = self.base_url + path
        headers = {"Content-Type": "application/json"}
        if os.environ.get("OPENAI_API_KEY"):
            headers["Authorization"] = f"Bearer {os.environ['OPENAI_API_KEY']}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")[:300]
            raise GenerationError(f"{method} {url}: HTTP {error.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise GenerationError(f"cannot reach the OpenAI-compatible server at {url}: {reason}") from None
        except ValueError as error:
            raise GenerationError(f"{method} {url}: the reply is not JSON ({error})") from None


class VLLMGenerator:
    """vLLM's offline engine (``vllm.LLM``) on this machine's GPUs; the prompt given as token ids."""

    def __init__(self, model: str, tokenizer: str | None = None) -> None:
        try:
            from vllm import LLM
        except ImportError as error:
            raise GenerationError("--generator vllm needs vLLM installed (pip install vllm)") from error
        self.llm = LLM(model=model, tokenizer=tokenizer or model)

    def generate(self, prompt_ids: Sequence[int], n: int, sampling: Sampling) -> list[Generation]:
        from vllm import SamplingParams

        params = SamplingParams(
            n=n,
            temperature=sampling.temperature,
            max_tokens=sampling.max_new_tokens,
            stop=list(sampling.stop),
        )
        (output,) = self.llm.generate([{"prompt_token_ids": list(prompt_ids)}], params, use_tqdm=False)
        generations = []
        for choice in output.outputs:
            text, stopped = cut_at_stop(choice.text, sampling.stop)
            reason = (
                FinishReason.LENGTH if choice.finish_reason == "length" and not stopped else FinishReason.STOP
            )
            generations.append(Generation(text, reason))
        return generations


def make_generator(
    kind: GeneratorKind, model: str, *, tokenizer: str | None = None, base_url: str | None = None
) -> Generator:
    """The generator of ``kind`` for ``model`` (``tokenizer``: where transformers' or vLLM's comes from);
    an OpenAI server is checked for reachability here, before anything is loaded."""
    if kind == "openai":
        if not base_url:
            raise ValueError("--generator openai needs --base-url (e.g. http://localhost:8000/v1)")
        generator = OpenAIGenerator(base_url, model)
        generator.check()
        return generator
    if base_url:
        raise ValueError(f"--base-url is for --generator openai, not {kind}")
    if kind == "vllm":
        return VLLMGenerator(model, tokenizer)
    return TransformersGenerator.from_pretrained(model, tokenizer)
