"""The one compact encoding of a parsed ``ArcTask``: what crosses Arrow, the data loader and Ray.

A task is parsed once, by whoever first reads it (the loader, or the processor for a raw row):
``task_from_row`` finds its format and checks every grid. What travels after that is this
encoding of the result, and ``decode_task`` reads it back without the task parser: the canonical
row (``ArcTask.to_row``) tagged with ``CODEC_KEY``, its grids taken as they are.

``EncodedTask`` is a task as it travels in a dataset row: the encoded text plus a header (the id,
the pair counts and the rendered prompt messages), so the processor builds the prompt and
``extra_env_info`` without decoding the grids.

Versions: text without ``CODEC_KEY`` is a canonical task row as nemo_code_rl wrote it before this
encoding (datasets saved then, ``extra_env_info`` of a run started then); it is still read,
through ``task_from_row``. A version this install does not know is a ``ProblemFormatError`` that
says so, never a guess.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nemo_code_rl.arc.task import ArcPair, ArcTask, task_from_row
from nemo_code_rl.codec_envelope import from_header, tagged_object
from nemo_code_rl.rows import ProblemFormatError

CODEC_KEY = "arc_task_codec"
CODEC_VERSION = 1


def encode_task(task: ArcTask) -> str:
    """``task`` as JSON text that ``decode_task`` reads back into an equal ``ArcTask``.

    >>> task = task_from_row({"id": "t", "train": [{"input": [[1]], "output": [[2]]}],
    ...                       "test": [{"input": [[3]]}]})
    >>> decode_task(encode_task(task)) == task
    True
    """
    return json.dumps({CODEC_KEY: CODEC_VERSION, **task.to_row()})


def decode_task(value: str | Mapping[str, Any]) -> ArcTask:
    """The ``ArcTask`` that ``encode_task`` wrote (the text, or the object it decodes to).

    Errors name no field of their own: the caller places them under the field that held ``value``.

    Raises:
        ProblemFormatError: not a JSON object, a codec version this install does not know, or
            an encoded task that is not one (what is wrong named).
    """
    data = tagged_object(
        value, key=CODEC_KEY, version=CODEC_VERSION, what="an encoded ARC task", codec="ARC task codec"
    )
    if data.get(CODEC_KEY) is None:
        return task_from_row(data)  # a canonical task row written before the codec
    try:
        return ArcTask(
            data["id"],
            tuple(ArcPair(pair["input"], pair.get("output")) for pair in data["train"]),
            tuple(ArcPair(pair["input"], pair.get("output")) for pair in data["test"]),
        )
    except (KeyError, TypeError, AttributeError) as error:
        raise ProblemFormatError(f"incomplete encoded ARC task ({type(error).__name__}: {error})") from error


@dataclass(frozen=True)
class EncodedTask:
    """A task as it travels after its one parse: the encoded text, and what a prompt and a log need.

    Attributes:
        text: ``encode_task``'s text, passed on as is (never decoded to be re-encoded).
        task_id / n_train / n_test: the task's, for logs and ``extra_env_info``'s plain fields.
        messages: the prompt's chat messages as the row's prompt settings render them.
    """

    text: str
    task_id: str
    n_train: int
    n_test: int
    messages: list[dict[str, str]]

    @classmethod
    def of(cls, task: ArcTask, messages: list[dict[str, str]]) -> EncodedTask:
        """``task`` encoded, with its plain fields and rendered ``messages`` beside the text."""
        return cls(encode_task(task), task.id, len(task.train), len(task.test), messages)

    def header(self) -> str:
        """The plain fields as JSON text (a dataset column beside ``text``; ``from_columns`` reads both)."""
        fields = {"task_id": self.task_id, "n_train": self.n_train, "n_test": self.n_test}
        return json.dumps({**fields, "messages": self.messages}, ensure_ascii=False)

    @classmethod
    def from_columns(cls, text: str, header: str) -> EncodedTask:
        """The task ``text`` and ``header()`` describe, without decoding ``text``.

        Raises:
            ProblemFormatError: the header is not what ``header()`` writes.
        """
        encoded = from_header(cls, text, header, "an ARC task header")
        counts = (encoded.n_train, encoded.n_test)
        if not (all(isinstance(n, int) for n in counts) and isinstance(encoded.messages, list)):
            raise ProblemFormatError("n_train and n_test must be counts and messages a list", field="header")
        return encoded
