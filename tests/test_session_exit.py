"""A pytest process that imported Ray ends with pytest's status and without the interpreter's
finalization (``tests/conftest.py``): a failing run must still fail."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

_TEST = """
import os

{ray_import}


class Marker:
    \"\"\"Writes when the interpreter's finalization destroys it.\"\"\"

    def __init__(self):
        self.fd, self.write = os.open({marker!r}, os.O_WRONLY | os.O_CREAT), os.write

    def __del__(self):
        self.write(self.fd, b"finalized")


KEPT = Marker()


def test_outcome():
    assert {outcome}
"""


def _session(folder: Path, ray_import: str, outcome: str) -> tuple[int, str, str]:
    """Run one test file under this suite's conftest: its exit status, the finalization marker's
    text and pytest's output."""
    marker = folder / "marker"
    test = _TEST.format(ray_import=ray_import, marker=str(marker), outcome=outcome)
    (folder / "test_one.py").write_text(test)
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest", "test_one.py"
    ]  # fmt: skip
    path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    environment = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(command, cwd=folder, env=environment, capture_output=True, text=True, timeout=300)
    return done.returncode, marker.read_text(), done.stdout + done.stderr


@pytest.mark.parametrize(("outcome", "status"), [("True", 0), ("False", 1)])
def test_a_session_that_imported_ray_ends_with_its_status_unfinalized(
    tmp_path: Path, outcome: str, status: int
) -> None:
    pytest.importorskip("ray", reason="Ray is not installed: pip install 'nemo-code-rl[ray]'")
    code, marker, output = _session(tmp_path, "import ray  # noqa: F401", outcome)
    assert (code, marker) == (status, ""), output


def test_a_session_without_ray_is_finalized_as_usual(tmp_path: Path) -> None:
    code, marker, output = _session(tmp_path, "", "False")
    assert (code, marker) == (1, "finalized"), output
