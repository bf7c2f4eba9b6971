"""Write a feedback message as a new user turn, in the policy's own chat format.

NeMo RL appends an environment observation to the conversation as *raw text* (it tokenizes the
content without a chat template), so a feedback turn must already carry the markup that closes
the assistant's turn, opens a user turn and, after the feedback, opens the next assistant turn.
That markup is read off the tokenizer's chat template once, by rendering a conversation with
marker strings and cutting the text around them, so any template works without knowing its tokens.

The generated assistant tokens already end with the tokenizer's EOS token when the model stopped
by itself (vLLM keeps it in the output ids; only the decoded text drops it), so a leading EOS is
removed from the markup. Templates that close assistant turns with some other token (a base
model's tokenizer with a chat template bolted on) keep it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from nemo_code_rl.environments.config import TokenizerSettings

_USER_MARK = "\u2402USER-MARK\u2402"
_ASSISTANT_MARK = "\u2402ASSISTANT-MARK\u2402"
_FEEDBACK_MARK = "\u2402FEEDBACK-MARK\u2402"
# NeMo RL's ``COMMON_CHAT_TEMPLATES.passthrough_prompt_response``, selected by ``chat_template: null``.
PASSTHROUGH_TEMPLATE = "{% for message in messages %}{{ message['content'] }}{% endfor %}"


class ChatTemplater(Protocol):
    """The part of a Hugging Face tokenizer this module uses."""

    eos_token: str | None

    def apply_chat_template(self, conversation: list[dict[str, str]], **kwargs: Any) -> Any: ...


@dataclass(frozen=True)
class UserTurnFormat:
    """The text around a user message that follows an assistant message and precedes the next one.

    Attributes:
        prefix: closes the assistant turn (less the EOS the model generated) and opens a user turn.
        suffix: closes the user turn and opens the assistant's reply (the generation prompt).
    """

    prefix: str
    suffix: str

    def render(self, content: str) -> str:
        """The raw text to append after the assistant's tokens.

        >>> UserTurnFormat("\\n<|im_start|>user\\n", "<|im_end|>\\n<|im_start|>assistant\\n").render("hi")
        '\\n<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\n'
        """
        return f"{self.prefix}{content}{self.suffix}"


def user_turn_format(
    tokenizer: ChatTemplater, chat_template_kwargs: Mapping[str, Any] | None = None
) -> UserTurnFormat:
    """Derive the markup of a follow-up user turn from ``tokenizer``'s chat template."""
    conversation = [
        {"role": "user", "content": _USER_MARK},
        {"role": "assistant", "content": _ASSISTANT_MARK},
        {"role": "user", "content": _FEEDBACK_MARK},
    ]
    text = tokenizer.apply_chat_template(
        conversation, tokenize=False, add_generation_prompt=True, **dict(chat_template_kwargs or {})
    )
    if not isinstance(text, str) or _ASSISTANT_MARK not in text or _FEEDBACK_MARK not in text:
        raise ValueError(
            "the chat template does not render a user turn after an assistant turn; multi-turn "
            "feedback needs a chat template that supports conversations"
        )
    after_assistant = text[text.index(_ASSISTANT_MARK) + len(_ASSISTANT_MARK) :]
    prefix, _, suffix = after_assistant.partition(_FEEDBACK_MARK)
    eos = tokenizer.eos_token
    if eos and prefix.startswith(eos):
        prefix = prefix[len(eos) :]
    return UserTurnFormat(prefix=prefix, suffix=suffix)


def load_tokenizer(settings: TokenizerSettings) -> Any:
    """Load the tokenizer the way NeMo RL's ``get_tokenizer`` does, including its chat-template options.

    ``transformers`` is imported here, only when multi-turn feedback needs it.
    """
    from transformers import AutoTokenizer

    kwargs: dict[str, Any] = {"trust_remote_code": True}
    if settings.gguf_file:
        kwargs["gguf_file"] = settings.gguf_file
    tokenizer = AutoTokenizer.from_pretrained(settings.name, **kwargs)
    if settings.passthrough:
        tokenizer.chat_template = PASSTHROUGH_TEMPLATE
    elif settings.chat_template is None or settings.chat_template.lower() == "default":
        pass
    elif settings.chat_template.endswith(".jinja"):
        with open(settings.chat_template, encoding="utf-8") as handle:
            tokenizer.chat_template = handle.read()
    else:
        tokenizer.chat_template = settings.chat_template
    return tokenizer
