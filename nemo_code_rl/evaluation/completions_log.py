"""``DIR/completions.jsonl`` while an evaluation generates: streamed, valid whenever it stops, resumable.

Each row ``{"id", "sample", "completion", "finish_reason"}`` is appended and flushed as soon as it
is generated, so the file holds every finished completion after Ctrl-C or a crash, and is the
completions file ``score`` reads (``id``, ``completion``). On ``--resume`` the rows already there
are kept (a last line cut short by the interruption is dropped) and counted per problem, so only
the missing samples are generated.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from nemo_code_rl.evaluation.generators import Generation
from nemo_code_rl.results_files import whole_lines


class CompletionsLog:
    """The completions file of one evaluation.

    Args:
        path: the file.
        resume: keep its rows (``counts``) and append; without it an existing non-empty file is
            an error, never overwritten.
    """

    def __init__(self, path: Path, resume: bool) -> None:
        self.path = path
        self.counts: Counter[str] = Counter()
        if path.exists() and path.stat().st_size and not resume:
            raise FileExistsError(
                f"{path} already holds completions: add --resume to go on with them, or choose another -o"
            )
        if resume and path.exists():
            keep = self._read_counts()
            os.truncate(path, keep)
        self._handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - stays open while completions stream in; closed by close()

    @property
    def written(self) -> int:
        return sum(self.counts.values())

    def append(self, problem_id: str, generation: Generation) -> None:
        row = {
            "id": problem_id,
            "sample": self.counts[problem_id],
            "completion": generation.text,
            "finish_reason": generation.finish_reason.value,
        }
        self._handle.write(json.dumps(row) + "\n")
        self._handle.flush()
        self.counts[problem_id] += 1

    def close(self) -> None:
        self._handle.close()

    def _read_counts(self) -> int:
        """Count the whole rows per id; the byte length up to the last of them."""
        end = 0
        for number, line, line_end in whole_lines(self.path.read_bytes()):
            try:
                row = json.loads(line)
            except ValueError:
                row = None
            if not isinstance(row, dict) or not isinstance(row.get("id"), str) or "completion" not in row:
                raise ValueError(
                    f"{self.path}: line {number} is not a completion row of `nemo-code-rl eval`; "
                    "remove the file or choose another -o"
                )
            self.counts[row["id"]] += 1
            end = line_end
        return end
