"""The prompt an evaluation gives the model: the one a training run gives it.

Each problem's dataset row goes through its family's ``prompt`` (``family_pieces.FamilyPieces``:
the family's messages with NeMo RL's ``TaskDataSpec`` prompt settings applied, the first half of
the NeMo RL processor), then through the policy's chat template with the generation prompt and
no added special tokens, as the processor's datum (``processors.datum.chat_datum``) does; the
tests hold the two to the same token ids. So an evaluated checkpoint sees exactly what it was
trained on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nemo_code_rl.evaluation.problem_set import ProblemSet
from nemo_code_rl.families import resolve


@dataclass(frozen=True)
class PromptSpec:
    """NeMo RL's ``TaskDataSpec`` prompt settings, as a training config sets them.

    Attributes:
        system_prompt: replaces the row's system message (``None``: the row's own, if any).
        prompt: a ``str.format`` template with one ``{}`` wrapping the user message.
    """

    system_prompt: str | None = None
    prompt: str | None = None


@dataclass(frozen=True)
class Prompt:
    """A problem's prompt as the processor makes it: the templated text and its token ids."""

    text: str
    token_ids: list[int]


def build_prompts(
    problem_set: ProblemSet, tokenizer: Any, spec: PromptSpec | None = None
) -> dict[str, Prompt]:
    """Per problem id, the prompt the family's NeMo RL processor makes with ``tokenizer``."""
    pieces = resolve(problem_set.family.pieces)
    prompts = {}
    for idx, (problem_id, row) in enumerate(zip(problem_set.ids, problem_set.rows, strict=True)):
        messages, _ = pieces.prompt(row, spec or PromptSpec(), idx)
        text = tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True, add_special_tokens=False
        )
        prompts[problem_id] = Prompt(text, list(tokenizer(text, add_special_tokens=False)["input_ids"]))
    return prompts


def stop_texts(tokenizer: Any) -> list[str]:
    """The texts that end a completion whatever the generator: the tokenizer's end-of-sequence
    token and the chat template's end of an assistant turn (read from the template itself, so a
    tokenizer whose EOS names another token, as some GGUF conversions do, still stops there)."""
    marker = "\x00ANSWER\x00"
    rendered = tokenizer.apply_chat_template(
        [{"role": "user", "content": "?"}, {"role": "assistant", "content": marker}], tokenize=False
    )
    after = rendered.partition(marker)[2].strip()
    end_of_turn = after.split()[0] if after else ""
    candidates = [tokenizer.eos_token, end_of_turn]
    return list(dict.fromkeys(text for text in candidates if text))
