"""The comparison rules run in sandbox workers' supervisors, so they load without pydantic."""

from __future__ import annotations

import doctest
import subprocess
import sys

from nemo_code_rl.unit_tests import comparison_rules


def test_docstring_examples() -> None:
    assert doctest.testmod(comparison_rules).failed == 0


def test_workers_judge_without_loading_pydantic() -> None:
    check = (
        "import sys, nemo_code_rl.engine.worker, nemo_code_rl.unit_tests.harness.judging; "
        "print('pydantic' in sys.modules, 'nemo_code_rl.unit_tests.harness.judging' in sys.modules)"
    )
    found = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert found.stdout.split() == ["False", "True"]
