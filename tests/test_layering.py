"""The package's layering, read from the import statements of its source: adapters depend only on
the core, never on each other, and the core never on an adapter.

An adapter is the package's face towards one framework; the core (engine, problem formats, task
families, verification, rewards, metrics, configs) is framework-neutral, so a second framework's
adapter reuses it without pulling in the first's. Every import counts, lazy ones and
``TYPE_CHECKING`` ones included: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Folder -> the package it is installed as (pyproject's ``package-dir``).
SOURCE_FOLDERS = {
    "nemo_code_rl": "nemo_code_rl",
    "environments": "nemo_code_rl.environments",
    "processors": "nemo_code_rl.processors",
}
ADAPTERS = {
    "NeMo RL": (
        "nemo_code_rl.environments",
        "nemo_code_rl.processors",
        "nemo_code_rl.nemo_rl_glue",
        "nemo_code_rl.run",
        "nemo_code_rl.registration",
        "nemo_code_rl.dry_run",
        "nemo_code_rl.launch_check",
        "nemo_code_rl.sandbox_probe",
    ),
    "TRL": ("nemo_code_rl.integrations",),
    "NeMo Gym": ("nemo_code_rl.gym_server",),
}
# The package's front door re-exports ``register`` (NeMo RL's) so that users call
# ``nemo_code_rl.register()``; it is the one module that may name an adapter.
FRONT_DOOR = "nemo_code_rl"


def adapter_of(module: str) -> str | None:
    """The adapter ``module`` belongs to; ``None`` for the core."""
    for adapter, prefixes in ADAPTERS.items():
        if any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes):
            return adapter
    return None


def source_modules() -> Iterator[tuple[str, Path]]:
    for folder, package in SOURCE_FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            module = ".".join((package, *parts)).removesuffix(".__init__")
            if folder == "nemo_code_rl" and parts[0] in {"environments", "processors"}:
                continue
            yield module, path


def imported_modules(module: str, path: Path) -> Iterator[str]:
    """Every module of this package that ``path`` imports (absolute or relative), anywhere in it."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from package import module`` imports the module.
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        yield from (name for name in names if name.split(".")[0] == "nemo_code_rl")


def layering_violations() -> list[str]:
    violations = []
    for module, path in source_modules():
        if module == FRONT_DOOR:
            continue
        own = adapter_of(module)
        for imported in imported_modules(module, path):
            other = adapter_of(imported)
            if other is not None and other != own:
                side = "the core" if own is None else f"the {own} adapter"
                violations.append(f"{path.relative_to(ROOT)}: {side} imports {imported} ({other} adapter)")
    return sorted(set(violations))


def test_source_tree_is_found() -> None:
    modules = dict(source_modules())
    assert "nemo_code_rl.environments.code_environment" in modules
    assert "nemo_code_rl.integrations.trl" in modules
    assert "nemo_code_rl.gym_server.service" in modules


def test_adapters_depend_only_on_the_core() -> None:
    assert layering_violations() == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("nemo_code_rl.integrations.trl", "from nemo_code_rl.processors import x", "TRL"),
        ("nemo_code_rl.gym_server.service", "def f():\n    import nemo_code_rl.environments.y", "NeMo Gym"),
        ("nemo_code_rl.unit_tests.scoring", "from nemo_code_rl import run", "core"),
        ("nemo_code_rl.gym_server.service", "from ..integrations import trl", "NeMo Gym"),
    ],
)
def test_the_check_sees_each_kind_of_import(tmp_path: Path, module: str, source: str, expected: str) -> None:
    """The checker itself: a top-level, lazy, ``from package import module`` and relative import
    of another adapter are each found (so an empty violation list means something)."""
    path = tmp_path / "module.py"
    path.write_text(source)
    own = adapter_of(module)
    found = [name for name in imported_modules(module, path) if adapter_of(name) not in (None, own)]
    assert found, source
    assert (own or "core") == expected


# Each framework's generic adapter, and the modules that hold one family's own pieces: the generic
# adapters know no family, so a third family needs no change to them.
GENERIC_ADAPTERS = (
    "nemo_code_rl.environments.verifying_environment",
    "nemo_code_rl.processors.family_processor",
)
FAMILY_MODULES = (
    "nemo_code_rl.unit_tests.family",
    "nemo_code_rl.arc",
    "nemo_code_rl.unit_tests.verification",
)


def test_the_generic_adapters_name_no_family() -> None:
    modules = dict(source_modules())
    named = [
        f"{module} imports {imported}"
        for module in GENERIC_ADAPTERS
        for imported in imported_modules(module, modules[module])
        if any(imported == family or imported.startswith(family + ".") for family in FAMILY_MODULES)
    ]
    assert named == []


# One folder per task family; a family is reached through ``families.py`` (import paths as text).
FAMILY_FOLDERS = ("nemo_code_rl.unit_tests", "nemo_code_rl.arc")


def family_of(module: str) -> str | None:
    return next((f for f in FAMILY_FOLDERS if module == f or module.startswith(f + ".")), None)


def test_families_are_independent_and_the_engine_knows_none() -> None:
    """No family imports another (a third family costs its own folder, nothing in the others), and
    the engine imports no family: a family's in-worker judge is named by the job it judges."""
    found = []
    for module, path in source_modules():
        own = family_of(module)
        if own is None and not module.startswith("nemo_code_rl.engine"):
            continue
        for imported in imported_modules(module, path):
            other = family_of(imported)
            if other is not None and other != own:
                found.append(f"{module} imports {imported}")
    assert found == []
    assert any(family_of(m) == "nemo_code_rl.unit_tests" for m, _ in source_modules())
