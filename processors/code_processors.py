"""NeMo RL data processor for coding problems: a dataset row in, a ``DatumSpec`` out.

One processor serves every problem format ``nemo_code_rl.problems`` reads (the format is detected
per row, see ``nemo_code_rl.problem_rows``), so a dataset needs no processor of its own. It builds
the prompt exactly as NeMo RL's ``math_hf_data_processor`` does: the chat template applied to the
whole prompt (system message, then the problem's messages, then the generation prompt), stored as
one ``user`` message whose ``content`` is the templated text and whose ``token_ids`` are that
text's tokens. Over-long prompts are cut to a few tokens and masked with ``loss_multiplier = 0``,
as NeMo RL does.

The problem itself travels to the environment in ``extra_env_info`` (see ``env_info``).
"""

from __future__ import annotations

from typing import Any

from nemo_code_rl.problem_rows import encoded_problem_from_datum, prompt_messages
from nemo_code_rl.processors.datum import chat_datum
from nemo_code_rl.processors.env_info import env_info_for_problem


def code_unit_tests_processor(
    datum_dict: dict[str, Any],
    task_data_spec: Any,
    tokenizer: Any,
    max_seq_length: int | None,
    idx: int,
) -> dict[str, Any]:
    """NeMo RL processor (``TaskDataProcessFnCallable``) for rows of any supported problem format.

    Args:
        datum_dict: a raw row of any format ``parse_problem`` detects, a row written by
            ``to_dataset_rows``, or a NeMo Gym row whose ``extra_env_info`` column holds the JSON line.
        task_data_spec: NeMo RL's ``TaskDataSpec``; its ``system_prompt`` replaces the row's own
            system message, and its ``prompt`` (a ``str.format`` template with one ``{}``) wraps
            the last user message, as in NeMo RL's processors. ``None`` uses neither.
        tokenizer: the policy's tokenizer (its chat template makes the prompt).
        max_seq_length: prompts of at least this many tokens are truncated and masked out.
        idx: the row's index, named in errors.

    Raises:
        ProblemFormatError: the row is not a valid problem; the message names ``row idx N`` and the field.
    """
    messages, extra = code_unit_tests_prompt(datum_dict, task_data_spec, idx)
    return chat_datum(messages, extra, datum_dict, task_data_spec, tokenizer, max_seq_length, idx)


def code_unit_tests_prompt(
    datum_dict: dict[str, Any], task_data_spec: Any, idx: int
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """What the processor makes of a row before the chat template: the prompt's messages and the
    ``extra_env_info``. The dry run calls it where no tokenizer is at hand, so its samples take the
    processor's own path.

    A row of our dataset classes is not parsed again: its prompt comes from the problem's header
    column and its encoded problem goes to ``extra_env_info`` as it is (``problem_rows``)."""
    problem = encoded_problem_from_datum(datum_dict, idx)
    return prompt_messages(problem, task_data_spec), env_info_for_problem(problem)
