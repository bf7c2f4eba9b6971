"""What every family's row reader shares: the error a row that cannot be read raises, the fields
a row's id may sit in, and JSON nested in a column.

Coding problems (``unit_tests.problems``) and ARC tasks (``arc``) read rows of the same data sets and
files, and a user's bad row must be told the same way whichever family reads it: the row and the
field, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nemo_code_rl import fast_json

ID_FIELDS = ("id", "task_id", "problem_id", "hash_id")


class ProblemFormatError(ValueError):
    """A row that cannot be read (a coding problem, an ARC task); the message names the row and the field.

    Attributes:
        detail: what is wrong.
        field: the offending field (dotted path), when one is to blame.
        location: where the row is: ``data.jsonl: line 7`` (1-based) or ``index 3`` (0-based).
    """

    def __init__(self, detail: str, *, field: str | None = None, location: str | None = None) -> None:
        self.detail = detail
        self.field = field
        self.location = location
        parts = [part for part in (location, f"field {field!r}" if field else None, detail) if part]
        super().__init__(": ".join(parts))

    def at(self, location: str) -> ProblemFormatError:
        """The same error, placed at ``location``."""
        return ProblemFormatError(self.detail, field=self.field, location=location)

    def under(self, parent: str) -> ProblemFormatError:
        """The same error, its field named as a part of ``parent`` (a field holding a whole row)."""
        field = f"{parent}.{self.field}" if self.field else parent
        return ProblemFormatError(self.detail, field=field, location=self.location)


@dataclass(frozen=True)
class RowError:
    """A row of a problems source that cannot be used (its completions are then ``bad_input``).

    Attributes:
        where: the row within its source: ``line N`` (JSONL, 1-based) or ``index N`` (0-based).
        problem_id: the id the row names, when it names one (its completions are then ``bad_input``).
        error: what is wrong, with the full location.
    """

    where: str
    problem_id: str | None
    error: ProblemFormatError

    @property
    def reason(self) -> str:
        """What is wrong, with the field to blame, without the location: ``field 'test': no tests``."""
        return f"field {self.error.field!r}: {self.error.detail}" if self.error.field else self.error.detail


def not_text(error: UnicodeDecodeError) -> str:
    """What a binary file or line is told: the first byte that is not UTF-8, and where."""
    return f"not UTF-8 text (byte 0x{error.object[error.start]:02x} at offset {error.start}): a binary file?"


def decoded_json(value: Any, field: str) -> Any:
    """``value`` decoded when it is JSON text (data sets store nested fields so, to keep Arrow
    from re-typing them), else ``value`` itself; bad JSON is an error naming ``field``.

    >>> decoded_json('{"a": [1]}', "tests"), decoded_json([1], "tests")
    ({'a': [1]}, [1])
    """
    if not isinstance(value, str):
        return value
    try:
        return fast_json.loads(value)
    except ValueError as error:
        raise ProblemFormatError(f"not valid JSON ({error})", field=field) from error
