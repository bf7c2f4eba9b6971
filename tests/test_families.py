"""The task families: each name written once, in ``nemo_code_rl.families``, and every piece a family
names is where it says."""

from __future__ import annotations

import ast
import importlib.util

import pytest

from nemo_code_rl.families import ARC, FAMILIES, UNIT_TESTS, family_for_dataset, family_named, resolve

from .test_layering import ROOT, source_modules


def _string_constants(tree: ast.AST) -> list[ast.Constant]:
    """String literals other than docstrings (prose may name a family; code must not)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_each_family_name_is_written_once() -> None:
    names = {family.name for family in FAMILIES}
    spelled = [
        f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}"
        for module, path in source_modules()
        if module != "nemo_code_rl.families"
        for node in _string_constants(ast.parse(path.read_text(encoding="utf-8")))
        if node.value in names
    ]
    assert spelled == []


def test_family_names_are_unique_and_looked_up() -> None:
    assert len({family.name for family in FAMILIES}) == len(FAMILIES)
    assert family_named(UNIT_TESTS.name) is UNIT_TESTS
    assert family_for_dataset(UNIT_TESTS.dataset) is UNIT_TESTS  # by class path too
    assert family_named("no_such_family") is None


@pytest.mark.parametrize("family", FAMILIES, ids=lambda family: family.name)
def test_every_piece_a_family_names_resolves(family) -> None:
    """The pieces importable without NeMo RL, Ray or torch resolve to callables; the environment
    module (it needs Ray) is located. A family whose optional dependencies are absent is skipped."""
    if family is ARC and importlib.util.find_spec("numpy") is None:
        pytest.skip("the ARC family needs numpy (pip install 'nemo-code-rl[arc]')")
    assert family.importable()
    assert resolve(family.pieces).family is family
    for path in (family.processor, family.env_config, family.dataset_config, family.sampler):
        assert callable(resolve(path)), path
