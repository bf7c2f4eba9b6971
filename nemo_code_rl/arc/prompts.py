"""Prompts that ask a model for a program solving an ARC task, and filtering by their length.

Templates:

- ``barc``: the prompt BARC's induction models (``barc0/Llama-3.1-ARC-Potpourri-Induction-8B``
  and its siblings) were trained and evaluated with, character for character: BARC's system
  message, grids as color names with a blank line after each, all test inputs at the end. Those
  models answer with a ``transform`` function in a python block. Use ``grid_format: colors``.
- ``plain``: a short instruction naming the function to write, for any instruction-tuned model.

The prompt shows the train pairs and the test inputs, never a test output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any, Literal

from nemo_code_rl.arc.grids import GRID_FORMATS, GridFormat, format_grid
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.config_keys import ConfigError, ConfigSection, config_section

PromptTemplate = Literal["barc", "plain"]
TEMPLATES: tuple[PromptTemplate, ...] = ("barc", "plain")
DEFAULT_GRID_FORMATS: dict[str, GridFormat] = {"barc": "colors", "plain": "spaces"}

BARC_SYSTEM_PROMPT = (
    "You are an world-class puzzle solver who are extremely good at spotting patterns and solving puzzles. "
    "You are also an expert Python programmer who can write code to solve puzzles."
)
_BARC_INTRO = (
    "The following is a puzzle from the ARC dataset. Given training examples of input and output grids, "
    "predict the output grid for the test inputs.\n"
    "Each grid is represented as a 2D array where each cell is represented by an color. The grid input and "
    "output are written as a string where each cell is separated by a space and each row is separated by a "
    "newline.\n"
    "Here are the input and output grids for the training examples:\n"
)
PLAIN_SYSTEM_PROMPT = "You are an expert at solving ARC-AGI puzzles by writing Python programs."
_FORMAT_DESCRIPTIONS: dict[str, str] = {
    "digits": "one row per line, one digit (a color 0-9) per cell",
    "spaces": "one row per line, cells (colors 0-9) separated by spaces",
    "json": "as JSON lists of rows of colors 0-9",
    "colors": "one row per line, each cell a color name separated by spaces",
}


@config_section
class PromptConfig(ConfigSection):
    """How a task becomes a prompt.

    Args:
        template: ``barc`` or ``plain`` (see the module doc).
        grid_format: ``digits``, ``spaces``, ``json`` or ``colors``; ``None`` takes the
            template's own (``colors`` for ``barc``, ``spaces`` for ``plain``).
        function_name: the function the ``plain`` prompt asks for (the environment's
            ``execution.function_name`` must match); BARC's prompt never names it.
        system_prompt: replaces the template's system message; ``""`` sends none.
    """

    WHERE = "prompt"

    template: PromptTemplate = "plain"
    grid_format: GridFormat | None = None
    function_name: str = "transform"
    system_prompt: str | None = None

    def __post_init__(self) -> None:
        if self.template not in TEMPLATES:
            raise ConfigError(f"prompt template must be one of {TEMPLATES}, got {self.template!r}")
        if self.grid_format is not None and self.grid_format not in GRID_FORMATS:
            raise ConfigError(f"grid_format must be one of {GRID_FORMATS}, got {self.grid_format!r}")
        if not isinstance(self.function_name, str) or not self.function_name.isidentifier():
            raise ConfigError(f"function_name must be a Python identifier, got {self.function_name!r}")

    @property
    def resolved_grid_format(self) -> GridFormat:
        return self.grid_format or DEFAULT_GRID_FORMATS[self.template]

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def build_messages(task: ArcTask, config: PromptConfig | None = None) -> list[dict[str, str]]:
    """The chat messages asking for a program that solves ``task``.

    >>> from nemo_code_rl.arc.task import task_from_row
    >>> task = task_from_row({"id": "t", "train": [{"input": [[1]], "output": [[2]]}],
    ...                       "test": [{"input": [[3]]}]})
    >>> print(build_messages(task, PromptConfig(template="barc"))[1]["content"][-60:])
    Here are the input grids for the test example:
    Input:
    Green
    <BLANKLINE>
    """
    config = config or PromptConfig()
    grid_format = config.resolved_grid_format
    if config.template == "barc":
        system, user = BARC_SYSTEM_PROMPT, _barc_user(task, grid_format)
    else:
        system, user = PLAIN_SYSTEM_PROMPT, _plain_user(task, grid_format, config.function_name)
    if config.system_prompt is not None:
        system = config.system_prompt
    messages = [{"role": "system", "content": system}] if system else []
    return [*messages, {"role": "user", "content": user}]


def _barc_user(task: ArcTask, grid_format: GridFormat) -> str:
    def grid(value: list[list[int]]) -> str:
        return format_grid(value, grid_format) + "\n"

    examples = "".join(f"Input:\n{grid(p.input)}\nOutput:\n{grid(p.output or [])}\n\n" for p in task.train)
    tests = "\n".join(grid(pair.input) for pair in task.test)
    return f"{_BARC_INTRO}{examples}Here are the input grids for the test example:\nInput:\n{tests}"


def _plain_user(task: ArcTask, grid_format: GridFormat, function_name: str) -> str:
    parts = [
        "Each example below maps an input grid to an output grid by the same rule. "
        f"Grids are written {_FORMAT_DESCRIPTIONS[grid_format]}.\n"
    ]
    for number, pair in enumerate(task.train, start=1):
        output = format_grid(pair.output or [], grid_format)
        parts.append(f"Example {number}\nInput:\n{format_grid(pair.input, grid_format)}\nOutput:\n{output}\n")
    for number, pair in enumerate(task.test, start=1):
        parts.append(f"Test input {number}:\n{format_grid(pair.input, grid_format)}\n")
    parts.append(
        f"Write a Python function `{function_name}(grid)` that applies the rule: it takes an input grid "
        "(a list of rows of ints) and returns the output grid. numpy is available. Reply with the complete "
        "program in a single ```python code block."
    )
    return "\n".join(parts)


def prompt_text(messages: Sequence[Mapping[str, str]], tokenizer: Any) -> str:
    """The prompt as the policy sees it: the chat template applied, with the generation prompt."""
    return tokenizer.apply_chat_template(
        list(messages), tokenize=False, add_generation_prompt=True, add_special_tokens=False
    )


def prompt_tokens(task: ArcTask, config: PromptConfig, tokenizer: Any) -> int:
    """How many tokens the templated prompt for ``task`` takes."""
    text = prompt_text(build_messages(task, config), tokenizer)
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def filter_by_prompt_tokens(
    tasks: Sequence[ArcTask], config: PromptConfig, tokenizer: Any, max_tokens: int
) -> tuple[list[ArcTask], list[str]]:
    """The tasks whose prompt is shorter than ``max_tokens``, and the ids of the others.

    ARC prompts range from a few hundred to tens of thousands of tokens; a prompt that leaves no
    room for the answer only wastes a rollout, so training sets are filtered before use. The bound
    is exclusive, as NeMo RL's (and the processor's) masking of prompts of ``max_input_seq_length``
    tokens or more, so the same number can be used for both.
    """
    if max_tokens < 1:
        raise ConfigError(f"max prompt tokens must be positive, got {max_tokens}")
    kept: list[ArcTask] = []
    dropped: list[ArcTask] = []
    for task in tasks:
        (kept if prompt_tokens(task, config, tokenizer) < max_tokens else dropped).append(task)
    return kept, [task.id for task in dropped]
