"""The one NeMo RL data processor, generic over the task family: a dataset row in, a ``DatumSpec`` out.

The family (``nemo_code_rl.family_pieces``) makes the prompt's messages and the ``extra_env_info``
from a row; this applies the chat template exactly as NeMo RL's ``math_hf_data_processor`` does
and masks over-long prompts (``datum.chat_datum``). Each family's processor is an instance:
``code_unit_tests_processor`` and ``arc_programs_processor``.
"""

from __future__ import annotations

from typing import Any

from nemo_code_rl.family_pieces import FamilyPieces
from nemo_code_rl.processors.datum import chat_datum


class FamilyProcessor:
    """NeMo RL processor (``TaskDataProcessFnCallable``) for the rows of one task family.

    Calling it takes NeMo RL's arguments:

    - ``datum_dict``: a row of any shape the family accepts;
    - ``task_data_spec``: NeMo RL's ``TaskDataSpec``; its ``system_prompt`` replaces the row's
      system message and its ``prompt`` (a ``str.format`` template with one ``{}``) wraps the user
      message, as in NeMo RL's processors; ``None`` uses neither;
    - ``tokenizer``: the policy's tokenizer (its chat template makes the prompt);
    - ``max_seq_length``: prompts of at least this many tokens are truncated and masked out;
    - ``idx``: the row's index, named in errors (``ProblemFormatError``: ``row idx N``, the field).
    """

    def __init__(self, pieces: FamilyPieces[Any, Any, Any]) -> None:
        self.pieces = pieces

    def __call__(
        self,
        datum_dict: dict[str, Any],
        task_data_spec: Any,
        tokenizer: Any,
        max_seq_length: int | None,
        idx: int,
    ) -> dict[str, Any]:
        messages, extra = self.prompt(datum_dict, task_data_spec, idx)
        return chat_datum(messages, extra, datum_dict, task_data_spec, tokenizer, max_seq_length, idx)

    def prompt(
        self, datum_dict: dict[str, Any], task_data_spec: Any, idx: int
    ) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """The processor's first half: the prompt's messages before the chat template, and the
        ``extra_env_info`` (what the dry run shows where no tokenizer is at hand)."""
        return self.pieces.prompt(datum_dict, task_data_spec, idx)

    def __repr__(self) -> str:
        return f"FamilyProcessor({self.pieces.family.name})"
