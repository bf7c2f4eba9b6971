"""Special judges shipped with the package, and how a folder of judges is read.

A judge is a file ``<problem id>.py`` defining ``check(input: str, expected: str, actual: str) ->
bool``; it runs sandboxed, like the program it judges (see ``README.md`` in this folder for the
shipped ones and how to add one). ``nemo-code-rl score`` uses this folder unless told otherwise.
"""

from __future__ import annotations

from pathlib import Path

SHIPPED_CHECKERS = Path(__file__).parent


def read_checkers(folder: str | Path) -> dict[str, str]:
    """The judges in ``folder`` by problem id (file stem); files starting with ``_`` are not judges.

    >>> sorted(read_checkers(SHIPPED_CHECKERS))[0]
    'c69268d8bdb4da0685d7b187c88296c1'
    """
    path = Path(folder)
    if not path.is_dir():
        raise NotADirectoryError(f"checkers folder {path} is not a folder")
    return {
        file.stem: file.read_text(encoding="utf-8")
        for file in sorted(path.glob("*.py"))
        if file.stem[0] != "_"
    }
