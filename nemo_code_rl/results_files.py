"""The files ``score`` reads and writes, for every family: completions in, results out.

A completions file is the user's (a sampling run's), so no line of it is lost: a line that cannot
be read becomes a ``bad_input`` row with the reason, never a stop. A results file is written as
rows are known and is valid JSON lines whenever the run stops, so ``--resume`` can continue it.
The unit-test family (``unit_tests.scoring``) and ARC (``arc.scoring``) share all of this; each
only judges.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nemo_code_rl import fast_json
from nemo_code_rl.outcomes import AttemptStatus, Verdict
from nemo_code_rl.rows import RowError, not_text

# The exit status of a run stopped by Ctrl-C (128 + SIGINT), whose files ``--resume`` continues.
INTERRUPTED = 130


class CompletionsError(ValueError):
    """A completions file with nothing usable in it; the message names the file and the first bad line."""


@dataclass(frozen=True)
class Completion:
    """One row of a completions file.

    Attributes:
        id: the problem it answers; ``None`` when the row does not say.
        index: its position among the non-empty lines (RESULTS' ``index``).
        sample: its number among the same id's completions; ``None`` for a bad row.
        line: its 1-based line in the file, when read from one.
        error: why the row cannot be judged (it becomes a ``bad_input`` row); empty for a good row.
    """

    id: str | None
    completion: str
    index: int
    sample: int | None
    line: int | None = None
    error: str = ""


def read_completions(path: str | Path) -> list[Completion]:
    """Rows ``{"id": ..., "completion": ...}``; ``index`` counts non-empty lines, ``sample`` per id.

    A line that is not such a row (bad JSON, a truncated last line, missing fields, bytes that are
    not UTF-8) is kept as a ``Completion`` with ``error`` set, so it gets a RESULTS row and a
    warning instead of stopping the run.
    """
    with open(path, "rb") as handle:
        raw = handle.read()
    completions: list[Completion] = []
    counts: Counter[str] = Counter()
    lines = [(number, line) for number, line in enumerate(raw.split(b"\n"), start=1) if line.strip()]
    for index, (number, line) in enumerate(lines):
        row, error = _completion_row(line)
        key = str(row["id"]) if isinstance(row, dict) and row.get("id") is not None else None
        if error or key is None:
            completions.append(Completion(key, "", index, None, number, error))
            continue
        completions.append(Completion(key, row["completion"], index, counts[key], number))
        counts[key] += 1
    return completions


def _completion_row(line: bytes) -> tuple[Any, str]:
    """The decoded row and ``""``, or what is wrong with it."""
    try:
        row = fast_json.loads(line)
    except UnicodeDecodeError as exc:
        return None, not_text(exc)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg}, column {exc.colno})"
    if not isinstance(row, dict) or "completion" not in row or row.get("id") is None:
        return row, 'expected an object with "id" and "completion"'
    if not isinstance(row["completion"], str):
        return row, '"completion" must be a string'
    return row, ""


def number_completions(rows: Iterable[Mapping[str, Any]]) -> list[Completion]:
    counts: Counter[str] = Counter()
    completions = []
    for index, row in enumerate(rows):
        key = str(row["id"])
        completions.append(Completion(key, row["completion"], index, counts[key]))
        counts[key] += 1
    return completions


def unjudged_row(
    completion: Completion, status: AttemptStatus, reason: str, reward_version: str
) -> dict[str, Any]:
    """The RESULTS row of a completion that could not be judged: its status, why, and no reward
    (``reward_version``: the judging family's, like its judged rows)."""
    verdict = Verdict(status.value)
    return {
        "id": completion.id,
        "index": completion.index,
        "sample": completion.sample,
        "status": status.value,
        "reward": None,
        "passed": None,
        "tests": [{"verdict": verdict.value, "wall_s": 0.0, "detail": reason}],
        "reward_version": reward_version,
    }


def input_warnings(
    completions: Sequence[Completion], statuses: Sequence[str], problem_errors: Sequence[RowError] = ()
) -> list[str]:
    """One line per kind of input that was not judged: how many, what they became, then the first
    ids and line numbers.

    >>> input_warnings([Completion("x", "", 0, 0, line=3)], ["unknown_problem"])
    ["1 of 1 completions name no problem in PROBLEMS, recorded as unknown_problem: 'x' (line 3)"]
    """
    warnings = []
    unknown = [c for c, s in zip(completions, statuses, strict=True) if s == AttemptStatus.UNKNOWN_PROBLEM]
    if unknown:
        warnings.append(
            f"{len(unknown)} of {len(completions)} completions name no problem in PROBLEMS, recorded as "
            f"{AttemptStatus.UNKNOWN_PROBLEM}: {_first(f'{c.id!r} (line {_line(c)})' for c in unknown)}"
        )
    if problem_errors:
        orphans = sum(
            1
            for c, s in zip(completions, statuses, strict=True)
            if s == AttemptStatus.BAD_INPUT and not c.error
        )
        listed = _first(
            f"{e.where}{f' (id {e.problem_id!r})' if e.problem_id else ''}: {e.reason}"
            for e in problem_errors
        )
        warnings.append(
            f"PROBLEMS: {len(problem_errors)} row(s) cannot be used, {orphans} completion(s) of their ids "
            f"recorded as {AttemptStatus.BAD_INPUT}: {listed}"
        )
    bad_lines = [c for c in completions if c.error]
    if bad_lines:
        listed = _first(f"line {_line(c)}: {c.error}" for c in bad_lines)
        warnings.append(
            f"COMPLETIONS: {len(bad_lines)} line(s) cannot be used, recorded as "
            f"{AttemptStatus.BAD_INPUT}: {listed}"
        )
    return warnings


def _line(completion: Completion) -> int:
    return completion.line if completion.line is not None else completion.index + 1


def _first(items: Iterable[str], shown: int = 5) -> str:
    items = list(items)
    more = f"; ... and {len(items) - shown} more" if len(items) > shown else ""
    return "; ".join(items[:shown]) + more


def write_results(rows: Iterable[Mapping[str, Any]], path: str | Path) -> None:
    """Write the whole results file in one step (a reader, or a crash, never sees half of it)."""
    _write_lines((fast_json.dumps_line(row) for row in rows), path)


def _write_lines(lines: Iterable[str], path: str | Path) -> None:
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.writelines(lines)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


class ResultsFile:
    """The results file while ``score`` runs: opened before any judging (so an unwritable path
    fails at once), each row appended and flushed as it is known, so the file is valid JSON lines
    whenever the run stops (Ctrl-C, a crash). ``finish`` rewrites it in completion order.

    Args:
        path: the results file.
        completions: what is being scored, to check rows kept by ``resume`` against.
        resume: keep the rows of an earlier, interrupted run of the same completions (``done``)
            and append the others; a last line cut short by the interruption is dropped.
    """

    def __init__(self, path: str | Path, completions: Sequence[Completion], resume: bool = False) -> None:
        self.path = Path(path)
        self.done: dict[int, dict[str, Any]] = {}
        if resume and self.path.exists():
            self.done, keep = read_partial_results(self.path, completions)
            os.truncate(self.path, keep)
            self._handle = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - the results file stays open while rows stream in; closed by close()
        else:
            self._handle = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - the results file stays open while rows stream in; closed by close()
        self.written = len(self.done)
        self.total = len(completions)
        # by id(row): the row (kept alive, so the id is not reused) and its line, for ``finish``
        self._lines: dict[int, tuple[Mapping[str, Any], str]] = {}

    def append(self, row: Mapping[str, Any]) -> None:
        line = fast_json.dumps_line(row)
        self._handle.write(line)
        self._handle.flush()
        self.written += 1
        self._lines[id(row)] = (row, line)

    def collect(self, judge: Callable[[], list[dict[str, Any]]], command: str) -> list[dict[str, Any]] | None:
        """``judge()``'s rows (it appends each as it is known), the file then rewritten in their
        order. After Ctrl-C: ``None``, the file closed valid, and the user told how far it got and
        that ``--resume`` goes on (exit with ``INTERRUPTED``). Any other error closes the file and
        propagates."""
        try:
            rows = judge()
        except KeyboardInterrupt:
            self.close()
            sys.stderr.write(
                f"nemo-code-rl {command}: interrupted; {self.written} of {self.total} rows are in "
                f"{self.path} (add --resume to judge the others)\n"
            )
            return None
        except BaseException:
            self.close()
            raise
        self.finish(rows)
        return rows

    def finish(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Rewrite the file with ``rows`` in their order; a row appended here is not encoded again."""
        self.close()
        _write_lines((self._line(row) for row in rows), self.path)

    def _line(self, row: Mapping[str, Any]) -> str:
        known = self._lines.get(id(row))
        return known[1] if known is not None and known[0] is row else fast_json.dumps_line(row)

    def close(self) -> None:
        self._handle.close()


def read_partial_results(
    path: str | Path, completions: Sequence[Completion]
) -> tuple[dict[int, dict[str, Any]], int]:
    """The rows of an interrupted run by ``index``, and the byte length of the file up to its last
    whole row. A row that does not belong to ``completions`` (another file's results) is an error."""
    data = Path(path).read_bytes()
    by_index = {c.index: c for c in completions}
    rows: dict[int, dict[str, Any]] = {}
    end = 0
    for number, line, line_end in whole_lines(data):
        try:
            row = json.loads(line)
        except ValueError:
            raise ValueError(
                f"{path}: line {number} is not a results row; remove the file or drop --resume"
            ) from None
        index = row.get("index") if isinstance(row, dict) else None
        completion = by_index.get(index) if isinstance(index, int) else None
        if completion is None or completion.id != row.get("id"):
            raise ValueError(
                f"{path}: line {number} is not a result of these completions (index/id do not match); "
                "remove the file or drop --resume"
            )
        rows[completion.index] = row
        end = line_end
    return rows, end


def default_results_path(completions_path: str | Path) -> Path:
    path = Path(completions_path)
    return path.with_name(f"{path.stem}.results.jsonl")


def whole_lines(data: bytes) -> Iterator[tuple[int, bytes, int]]:
    """The lines of a JSON-lines file a run was appending to when it stopped: each line's 1-based
    number, the line, and the byte offset just past it. A last line without its newline was cut
    short by the interruption and is left out, so a resumed run truncates the file to the last
    offset and appends."""
    end = 0
    for number, line in enumerate(data.split(b"\n"), start=1):
        end += len(line) + 1
        if end > len(data):
            return
        yield number, line, end
