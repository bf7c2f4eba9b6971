"""Config loading has NeMo RL's semantics: ``defaults:`` inheritance, ``_override_``, Hydra-style overrides
and interpolation, checked on small files here and, where NeMo RL is importable, against NeMo RL's own loader."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("omegaconf", reason="config loading needs omegaconf: pip install omegaconf")

from omegaconf import OmegaConf

from nemo_code_rl import config_loading
from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.config_loading import (
    apply_overrides,
    load_config,
    load_resolved,
    packaged_config_dir,
    packaged_configs,
    parse_override,
    resolve_config_path,
    to_container,
)

OVERRIDES = [
    "grpo.num_prompts_per_step=4",
    "++policy.generation.vllm_kwargs.compilation_config.backend=eager",
    "~logger.mlflow",
    "+extra.values=[1, 2]",
    "env.code_unit_tests.reward={mode: fraction}",
    "policy.model_name='Qwen/Qwen2.5-Coder-0.5B-Instruct'",
]


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _load(path: Path, overrides: list[str] | None = None) -> dict:
    return to_container(apply_overrides(load_config(path), overrides or []))


def test_defaults_merge_in_order_and_the_file_itself_wins(tmp_path: Path) -> None:
    _write(tmp_path, "base/grand.yaml", "a: 1\nb: {x: 1, y: 1}\nc: grand\n")
    _write(tmp_path, "base/parent.yaml", "defaults: grand.yaml\nb: {y: 2}\nc: parent\n")
    _write(tmp_path, "other.yaml", "c: other\nd: [1, 2]\n")
    child = _write(
        tmp_path, "child.yaml", "defaults: [base/parent.yaml, other.yaml]\nd: [3]\ne:\n  f: ${b.y}\n"
    )

    assert _load(child) == {"a": 1, "b": {"x": 1, "y": 2}, "c": "other", "d": [3], "e": {"f": 2}}


def test_a_top_level_interpolation_to_a_parent_fails_as_in_nemo_rl(tmp_path: Path) -> None:
    """NeMo RL reads a file's top-level values (resolving them) before merging it with its defaults."""
    _write(tmp_path, "parent.yaml", "b: {y: 1}\n")
    child = _write(tmp_path, "child.yaml", "defaults: parent.yaml\ne: ${b.y}\n")
    with pytest.raises(ConfigError, match=r"cannot merge .*child.yaml with its defaults"):
        load_config(child)


def test_absolute_defaults_and_the_chain_of_a_shipped_config(tmp_path: Path) -> None:
    parent = _write(tmp_path, "elsewhere/parent.yaml", "a: 1\n")
    child = _write(tmp_path, "child.yaml", f"defaults: {parent}\nb: 2\n")
    assert _load(child) == {"a": 1, "b": 2}

    multiturn = load_resolved("grpo_code_multiturn_8gpu")[1]
    assert multiturn["grpo"]["max_rollout_turns"] == 3  # its own
    assert multiturn["grpo"]["async_grpo"]["enabled"] is True  # from grpo_code_8gpu.yaml
    assert multiturn["env"]["code_unit_tests"]["timeout_s"] == 5.0  # from grpo_code_2gpu.yaml
    assert multiturn["env"]["code_unit_tests"]["tokenizer"]["name"] == "Qwen/Qwen2.5-Coder-7B-Instruct"


def test_override_marker_replaces_a_top_level_section(tmp_path: Path) -> None:
    _write(tmp_path, "parent.yaml", "data: {a: 1, b: {c: 2}}\nenv: {x: {k: 1}}\nkeep: 1\n")
    child = _write(
        tmp_path,
        "child.yaml",
        "defaults: parent.yaml\ndata: {_override_: true, z: 9}\nenv: {y: {k: 2}, nested: {_override_: true}}\n",
    )
    # only top-level sections of a file with defaults are replaced; a nested marker stays, as in NeMo RL
    assert _load(child) == {
        "data": {"z": 9},
        "env": {"x": {"k": 1}, "y": {"k": 2}, "nested": {"_override_": True}},
        "keep": 1,
    }
    gsm8k = load_resolved("grpo_gsm8k_2gpu")[1]
    assert list(gsm8k["env"]) == ["math"] and gsm8k["data"]["train"] == {
        "dataset_name": "gsm8k",
        "split": "train",
    }


def test_missing_values_do_not_override(tmp_path: Path) -> None:
    _write(tmp_path, "parent.yaml", "a: 1\nb: 2\n")
    child = _write(tmp_path, "child.yaml", "defaults: parent.yaml\na: ???\n")
    assert _load(child) == {"a": 1, "b": 2}


def test_overrides_change_add_force_add_and_delete(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.yaml", "a: {b: 1, c: {d: 2}}\nlist: [1, 2]\nnone: null\n")
    assert _load(
        path, ["a.b=5", "+a.new=x", "++a.c.d=3", "++a.c.e=4", "~list", "+none=7", "a.c={d: 6}", "+a.c={g: 2}"]
    ) == {"a": {"b": 5, "c": {"d": 6, "e": 4, "g": 2}, "new": "x"}, "none": 7}
    assert _load(path, ["~a.b=1", "~a.c"]) == {"a": {}, "list": [1, 2], "none": None}


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("a.bb=1", "no key 'bb' in a; did you mean 'a.b'?"),
        ("a.b.c=1", "to add a new key write +a.b.c=1"),
        ("+a.b=2", "a.b already exists"),
        ("~a.zz", "cannot delete a.zz: it does not exist"),
        ("~a.b=2", "a.b is 1, not 2"),
        ("a.b=1,2", "sweep"),
        ("a.b", "has no value"),
        ("a b=1", "not a config key"),
        ("a.b=[1, 2", "expected ',' or ']'"),
        ("a.b='open", "unterminated quoted string"),
        ("a={b: 1, c: 2}", "no key 'c' in a"),
        ("a={b: 1, bb: {x: 1}}", "no key 'bb' in a; did you mean 'a.b'?"),
    ],
)
def test_bad_overrides_say_what_is_wrong(tmp_path: Path, override: str, message: str) -> None:
    path = _write(tmp_path, "c.yaml", "a: {b: 1}\n")
    with pytest.raises(ConfigError, match=None) as error:
        _load(path, [override])
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a=", ""),
        ("a=null", None),
        ("a=NULL", None),
        ("a=true", True),
        ("a=False", False),
        ("a=7", 7),
        ("a=-3", -3),
        ("a=+5", 5),
        ("a=1_000", 1000),
        ("a=01", "01"),
        ("a=0x10", "0x10"),
        ("a=1e-6", 1e-6),
        ("a=.5", 0.5),
        ("a=1.", 1.0),
        ("a=-1.5e3", -1500.0),
        ("a=inf", float("inf")),
        ("a=yes", "yes"),
        ("a=abc def", "abc def"),
        ("a=  x  ", "x"),
        ("a=foo:bar", "foo:bar"),
        ("a='1'", "1"),
        ('a="x,y"', "x,y"),
        ('a="it\\"s"', 'it"s'),
        ("a=\\,x", ",x"),
        ("a=${b.c}", "${b.c}"),
        ("a=${mul:${b},2}", "${mul:${b},2}"),
        ("a=[]", []),
        ("a=[1, [2, 3], 'x']", [1, [2, 3], "x"]),
        ("a={}", {}),
        ("a={x:1, y: [a, b], z: {w: null}}", {"x": 1, "y": ["a", "b"], "z": {"w": None}}),
    ],
)
def test_override_values_are_typed_as_hydra_types_them(text: str, value: object) -> None:
    assert parse_override(text).value == value
    assert type(parse_override(text).value) is type(value)
    hydra = pytest.importorskip(
        "hydra.core.override_parser.overrides_parser", reason="hydra-core not installed"
    )
    if "${mul:${b},2}" in text:
        return  # Hydra's grammar rejects a nested interpolation with a comma unless quoted
    (theirs,) = hydra.OverridesParser.create().parse_overrides([text])
    assert theirs.value() == value and type(theirs.value()) is type(value)


def test_interpolations_resolve_with_nemo_rl_resolvers(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "c.yaml",
        "n: 3\nm: 4\nprod: ${mul:${n},${m}}\nsum: ${add:${n},${m}}\nbig: ${max:${n},${m}}\n",
    )
    assert _load(path, ["n=5"]) == {"n": 5, "m": 4, "prod": 20, "sum": 9, "big": 5}
    with pytest.raises(ConfigError, match="cannot resolve"):
        _load(path, ["n=${nowhere}"])


def test_config_names_resolve_to_the_packaged_configs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = packaged_config_dir() / "grpo_code_8gpu.yaml"
    assert resolve_config_path("grpo_code_8gpu.yaml") == shipped
    assert resolve_config_path("grpo_code_8gpu") == shipped
    assert {
        "grpo_code_2gpu.yaml",
        "grpo_code_8gpu.yaml",
        "grpo_code_multiturn_8gpu.yaml",
        "grpo_gsm8k_2gpu.yaml",
    } <= set(packaged_configs())
    local = _write(tmp_path, "mine.yaml", "a: 1\n")
    monkeypatch.chdir(tmp_path)
    assert resolve_config_path("mine.yaml") == local  # not shipped: the local file
    _write(tmp_path, "grpo_code_8gpu.yaml", "a: 1\n")
    assert resolve_config_path("grpo_code_8gpu.yaml") == shipped  # shipped wins for a bare name
    assert resolve_config_path("./grpo_code_8gpu.yaml") == tmp_path / "grpo_code_8gpu.yaml"
    assert resolve_config_path(str(local)) == local
    with pytest.raises(ConfigError, match=r"did you mean 'grpo_code_8gpu.yaml'"):
        resolve_config_path("grpo_code_8gpus.yaml")


def test_unreadable_configs_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "absent.yaml")
    with pytest.raises(ConfigError, match="mapping at the top level"):
        load_config(_write(tmp_path, "list.yaml", "- 1\n- 2\n"))
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(_write(tmp_path, "broken.yaml", "a: {b: 1\n"))


def test_docstring_examples() -> None:
    import doctest

    from nemo_code_rl import registration

    for module in (config_loading, registration):
        assert doctest.testmod(module).failed == 0, module.__name__


@pytest.mark.skipif(
    importlib.util.find_spec("nemo_rl") is None,
    reason="NeMo RL is not installed (not on PyPI): the parity check with its loader needs it",
)
@pytest.mark.parametrize("name", packaged_configs())
def test_same_result_as_nemo_rl_loader(name: str) -> None:
    from nemo_rl.utils.config import load_config as nemo_rl_load_config
    from nemo_rl.utils.config import parse_hydra_overrides, register_omegaconf_resolvers

    register_omegaconf_resolvers()
    path = packaged_config_dir() / name
    theirs = OmegaConf.to_container(nemo_rl_load_config(path), resolve=True)
    assert load_resolved(name)[1] == theirs
    if "code" in name:
        overridden = parse_hydra_overrides(nemo_rl_load_config(path), OVERRIDES)
        assert load_resolved(name, OVERRIDES)[1] == OmegaConf.to_container(overridden, resolve=True)
