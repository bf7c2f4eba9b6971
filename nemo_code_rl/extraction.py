"""Find the program inside a raw model completion.

Extraction never raises on model output: a completion without code is a *format failure*, which
is a legitimate (zero-reward) outcome of the policy, not an error of the pipeline. Reasoning in
``<think>`` sections is dropped first by default, so code the model drafted while thinking is not
mistaken for its answer.

Modes:
    ``fenced`` (default): the last non-empty fenced block labelled ``python`` / ``py`` /
        ``python3`` / ``py3`` (any case); when there is none, the last non-empty unlabelled fence.
        Blocks in other languages (```` ```cpp ````) never count, unless a preferred
        ``language`` is given (as the verifier does): then every language the engine runs counts
        (``engine.languages.FENCE_NAMES``: ```` ```cpp ````, ```` ```c++ ````, ```` ```cc ```` ...),
        in this order: the last block of the preferred language, the last unlabelled block (taken
        to be in the preferred language), the last block of another language. The result says
        which language the code is in.
    ``gym``: NeMo Gym ``code_gen`` (and LiveCodeBench ``LMStyle.OpenAIChat``): take every line
        that *contains* a triple backtick, and return the lines between the last two of them; fewer
        than two such lines, or nothing between them, is a failure. Use it to reproduce Gym's rewards
        on Gym's data (with a preferred ``language``, a label on the first of those lines,
        ```` ```cpp ````, gives the code's language). Gym applies it to the response's
        ``output_text``, from which the server has already removed reasoning, which is what
        ``strip_think`` reproduces on raw completions.
    ``code_tags``: the last ``<code>...</code>`` section.
    ``regex``: the last match of ``ExtractionConfig.pattern`` (compiled with ``re.DOTALL``); its
        first group is the code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from nemo_code_rl.config_keys import ConfigSection, config_section
from nemo_code_rl.engine.languages import FENCE_NAMES, Language

ExtractionMode = Literal["fenced", "gym", "code_tags", "regex"]

PYTHON_LABELS = frozenset(name for name, language in FENCE_NAMES.items() if language is Language.PYTHON)

_THINK_PAIR = re.compile(r"<think>.*?</think>", re.DOTALL)
_THINK_OPEN = "<think>"
_THINK_CLOSE = "</think>"
_FENCE_OPEN = re.compile(r"^[ \t]{0,3}(`{3,})[ \t]*([\w+#-]*)[^`]*$")
_FENCE_CLOSE = re.compile(r"^\s*(`{3,})\s*$")
_FENCE_MARK = re.compile("```")  # a literal: found by the regex engine's prefix scan, faster than str.find
_CODE_TAGS = re.compile(r"<code>(.*?)</code>", re.DOTALL)


@config_section
class ExtractionConfig(ConfigSection):
    """How to find the code in a completion.

    Args:
        mode: one of ``fenced`` (default), ``gym``, ``code_tags``, ``regex`` (see the module doc).
        pattern: the regular expression for ``regex`` mode; it must have at least one group.
        strip_think: drop ``<think>`` sections before extracting (see ``strip_think_sections``).
    """

    WHERE = "extraction"

    mode: ExtractionMode = "fenced"
    pattern: str | None = None
    strip_think: bool = True

    def __post_init__(self) -> None:
        if self.mode == "regex":
            if not self.pattern:
                raise ValueError("extraction mode 'regex' needs a pattern")
            try:
                groups = re.compile(self.pattern, re.DOTALL).groups
            except re.error as error:
                raise ValueError(
                    f"extraction pattern {self.pattern!r} is not a regular expression: {error}"
                ) from None
            if groups < 1:
                raise ValueError(f"extraction pattern {self.pattern!r} has no group to hold the code")
        elif self.pattern is not None:
            raise ValueError(f"a pattern is only used by mode 'regex', not {self.mode!r}")


@dataclass(frozen=True)
class ExtractionResult:
    """The code found in a completion, or why there is none.

    Attributes:
        code: the program text, or ``None`` on a format failure.
        reason: where the code came from, or ``"format failure: ..."`` saying what was missing.
        language: what the code is written in: its block's label, else the preferred language.
    """

    code: str | None
    reason: str
    language: Language = Language.PYTHON

    @property
    def format_ok(self) -> bool:
        return self.code is not None


def strip_think_sections(text: str) -> str:
    """Remove reasoning so that only the final answer is searched for code.

    Removes every ``<think>...</think>`` pair; then, if a stray ``</think>`` is left (the chat
    template opened the section in the prompt), everything up to it; then, if a ``<think>`` is
    left unclosed (reasoning cut off), everything from it on.

    >>> strip_think_sections("<think>try ```python\\nx```</think>answer")
    'answer'
    >>> strip_think_sections("draft...</think>final")
    'final'
    """
    text = _THINK_PAIR.sub("", text)
    close = text.rfind(_THINK_CLOSE)
    if close != -1:
        text = text[close + len(_THINK_CLOSE) :]
    opened = text.find(_THINK_OPEN)
    if opened != -1:
        text = text[:opened]
    return text


def extract_code(
    completion: str, config: ExtractionConfig | None = None, language: Language | None = None
) -> ExtractionResult:
    """Extract the program from ``completion`` according to ``config`` (default: ``fenced``).

    ``language``: the language expected (the problem's, or the verifier's default); with it,
    fenced blocks of every language the engine runs count (see the module doc), and code
    without a label is taken to be in it. ``None``: Python blocks only.

    >>> extract_code("Here:\\n```python\\nprint(1)\\n```\\n").code
    'print(1)'
    >>> extract_code("no code here").reason
    'format failure: no ```python or unlabelled ``` block'
    >>> extract_code("```c++\\nint main() {}\\n```", language=Language.PYTHON).language
    <Language.CPP: 'cpp'>
    """
    config = config or ExtractionConfig()
    text = strip_think_sections(completion) if config.strip_think else completion
    if config.mode == "fenced":
        return _extract_fenced(text) if language is None else _extract_fenced_any(text, language)
    if config.mode == "gym":
        result = _extract_gym(text)
        if language is not None and result.code is not None:  # the opening ``` line's label, if any
            return ExtractionResult(result.code, result.reason, _gym_label(text) or language)
    elif config.mode == "code_tags":
        result = _extract_last_group(text, _CODE_TAGS, "<code>...</code> section", strip_newlines=True)
    else:
        assert config.pattern is not None
        pattern = re.compile(config.pattern, re.DOTALL)
        result = _extract_last_group(text, pattern, f"match of {config.pattern!r}", strip_newlines=False)
    return result if language is None else ExtractionResult(result.code, result.reason, language)


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """All closed fenced blocks as ``(label, code)`` pairs, in order; the label is lower-cased.

    A block opens on a line starting with three or more backticks (optionally followed by a
    label) and closes on a line of at least as many backticks, or on a line that ends with them
    (a common slip of models: ``print(x)```). A block never closed is not a block. ``\r\n``
    counts as a line break.

    >>> fenced_blocks("```py\\na\\n```\\ntext\\n```\\nb\\n```")
    [('py', 'a'), ('', 'b')]
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    blocks: list[tuple[str, str]] = []
    fence = ""
    label = ""
    body = 0  # where the open block's code begins
    for start, end in _lines_with_fences(text):
        line = text[start:end]
        if not fence:
            opening = _FENCE_OPEN.match(line)
            if opening:
                fence, label, body = opening.group(1), opening.group(2).lower(), end + 1
            continue
        closing = _FENCE_CLOSE.match(line)
        if closing and len(closing.group(1)) >= len(fence):
            blocks.append((label, text[body : start - 1]))
            fence = ""
        elif line.rstrip().endswith(fence) and not line.strip().startswith("`"):
            blocks.append((label, text[body:start] + line.rstrip()[: -len(fence)]))
            fence = ""
    return blocks


def _lines_with_fences(text: str) -> Iterator[tuple[int, int]]:
    """Where each line holding three backticks begins and ends (its ``\\n``), in order: no other
    line can open or close a block. A model's answer is mostly prose and reasoning, and ``score``
    reads every answer before its first program starts: on a 35 KB answer this took 120 us a
    line at a time, 30 us this way."""
    end = -1
    for mark in _FENCE_MARK.finditer(text):
        if mark.start() <= end:  # on the line found last
            continue
        end = text.find("\n", mark.start())
        if end == -1:
            end = len(text)
        yield text.rfind("\n", 0, mark.start()) + 1, end


def _extract_fenced(text: str) -> ExtractionResult:
    blocks = [(label, code) for label, code in fenced_blocks(text) if code.strip()]
    for wanted, description in ((PYTHON_LABELS, "```python"), (frozenset({""}), "unlabelled ```")):
        chosen = [code for label, code in blocks if label in wanted]
        if chosen:
            return ExtractionResult(chosen[-1], f"last {description} block of {len(chosen)}")
    return ExtractionResult(None, "format failure: no ```python or unlabelled ``` block")


def _extract_fenced_any(text: str, language: Language) -> ExtractionResult:
    """Fenced extraction where every language the engine runs counts, ``language`` first."""
    blocks = [(label, code) for label, code in fenced_blocks(text) if code.strip()]
    preferred = [code for label, code in blocks if FENCE_NAMES.get(label) is language]
    if preferred:
        return ExtractionResult(preferred[-1], f"last ```{language} block of {len(preferred)}", language)
    unlabelled = [code for label, code in blocks if not label]
    if unlabelled:
        return ExtractionResult(unlabelled[-1], f"last unlabelled ``` block of {len(unlabelled)}", language)
    other = [(FENCE_NAMES[label], code) for label, code in blocks if label in FENCE_NAMES]
    if other:
        found, code = other[-1]
        return ExtractionResult(code, f"last ```{found} block (another language than {language})", found)
    return ExtractionResult(None, f"format failure: no ```{language} or unlabelled ``` block", language)


def _extract_gym(text: str) -> ExtractionResult:
    lines = text.split("\n")
    fence_lines = [index for index, line in enumerate(lines) if "```" in line]
    if len(fence_lines) < 2:
        return ExtractionResult(None, "format failure: fewer than two ``` lines")
    code = "\n".join(lines[fence_lines[-2] + 1 : fence_lines[-1]])
    if not code:
        return ExtractionResult(None, "format failure: nothing between the last two ``` lines")
    return ExtractionResult(code, "lines between the last two ``` lines")


def _gym_label(text: str) -> Language | None:
    """The language named on the opening line of the block ``gym`` mode takes, if it names one."""
    opening = [line for line in text.split("\n") if "```" in line][-2]
    match = _FENCE_OPEN.match(opening)
    return FENCE_NAMES.get(match.group(2).lower()) if match else None


def _extract_last_group(
    text: str, pattern: re.Pattern[str], description: str, *, strip_newlines: bool
) -> ExtractionResult:
    found = [match.group(1) for match in pattern.finditer(text) if match.group(1)]
    if strip_newlines:
        found = [code.strip("\n") for code in found]
    found = [code for code in found if code.strip()]
    if not found:
        return ExtractionResult(None, f"format failure: no non-empty {description}")
    return ExtractionResult(found[-1], f"last {description} of {len(found)}")
