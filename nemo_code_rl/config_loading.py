"""Load a GRPO config exactly as NeMo RL would, without importing NeMo RL.

The dry run must work where NeMo RL is not installed, and training must see the very config the
dry run checked, so both load it here. The semantics are those of ``nemo_rl.utils.config`` and
``examples/run_grpo.py`` (NeMo RL @ 7ea279a):

- ``defaults:`` holds a path or a list of paths, relative to the file naming them unless they
  start with ``/``. Each is loaded the same way, recursively; they are merged in order and the
  file itself last, so later entries win.
- A top-level section of a file that has ``_override_: true`` replaces the inherited section
  instead of being merged into it. Only top-level sections of a file that has ``defaults:``
  are looked at; anywhere else the marker stays in the config, as it does in NeMo RL.
- A ``???`` (missing) value never overrides an inherited one.
- Command-line overrides use Hydra's grammar: ``a.b=v`` changes an existing key, ``+a.b=v``
  adds a new one, ``++a.b=v`` adds or changes, ``~a.b`` deletes (``~a.b=v`` only if it is ``v``).
  Values are typed as Hydra types them (``1`` is an int, ``1e-6`` a float, ``null``, ``true``,
  ``[1,2]``, ``{a: 1}``, quoted strings stay strings, ``${...}`` stays an interpolation).
- Interpolations are resolved last, with NeMo RL's ``add``, ``mul``, ``div`` and ``max`` resolvers.
"""

from __future__ import annotations

import difflib
import importlib.resources
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import omegaconf
import yaml
from omegaconf import DictConfig, ListConfig, OmegaConf, open_dict
from omegaconf.errors import OmegaConfBaseException

from nemo_code_rl.config_keys import ConfigError

CONFIG_PACKAGE = "nemo_code_rl.configs"
CONFIG_SUFFIXES = (".yaml", ".yml")
OVERRIDE_MARKER = "_override_"
DEFAULTS_KEY = "defaults"

OverrideKind = Literal["change", "add", "force_add", "delete"]

_KEY = re.compile(r"^[\w\-]+(\.[\w\-]+)*$")
_INT = re.compile(r"^[+-]?(0|[1-9](_?[0-9])*)$")
_FLOAT = re.compile(
    r"^[+-]?(((\d(_?\d)*)?\.\d(_?\d)*|\d(_?\d)*\.)([eE][+-]?\d(_?\d)*)?|\d(_?\d)*[eE][+-]?\d(_?\d)*|inf|nan)$",
    re.IGNORECASE,
)
_RESOLVERS = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "max": lambda a, b: max(a, b),
}


@dataclass(frozen=True)
class Override:
    """One parsed command-line override; ``value`` is ``None`` for a delete without a value."""

    kind: OverrideKind
    key: str
    value: Any
    text: str


def packaged_config_dir() -> Path:
    """The folder of the configs shipped in the package (``configs/`` in the repository)."""
    return Path(str(importlib.resources.files(CONFIG_PACKAGE)))


def packaged_configs() -> list[str]:
    """The names of the shipped configs, e.g. ``grpo_code_8gpu.yaml``."""
    return sorted(p.name for p in packaged_config_dir().iterdir() if p.suffix in CONFIG_SUFFIXES)


def resolve_config_path(name_or_path: str) -> Path:
    """A shipped config for a bare name (``grpo_code_8gpu`` or ``grpo_code_8gpu.yaml``), else a path.

    A bare name is one without a folder; a shipped config of that name wins over a file of the
    same name in the working directory (write ``./name.yaml`` for the local one).
    """
    candidate = Path(name_or_path).expanduser()
    if candidate.parent == Path(".") and not name_or_path.startswith("./"):
        for name in (name_or_path, *(name_or_path + suffix for suffix in CONFIG_SUFFIXES)):
            packaged = packaged_config_dir() / name
            if packaged.is_file():
                return packaged
    if candidate.is_file():
        return candidate.resolve()
    shipped = packaged_configs()
    close = difflib.get_close_matches(candidate.name, shipped, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ConfigError(f"no config {name_or_path!r}{hint} (shipped configs: {', '.join(shipped)})")


def load_config(path: str | Path) -> DictConfig:
    """The config at ``path`` with its ``defaults:`` chain merged in (NeMo RL's ``load_config``)."""
    path = Path(path)
    try:
        config = OmegaConf.load(path)
    except FileNotFoundError as error:
        raise ConfigError(f"config file not found: {path}") from error
    except (OmegaConfBaseException, yaml.YAMLError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from error
    if not isinstance(config, DictConfig):
        raise ConfigError(f"{path} must hold a mapping at the top level, not a list")
    if DEFAULTS_KEY not in config:
        return config
    defaults = config.pop(DEFAULTS_KEY)
    parents = [str(defaults)] if isinstance(defaults, str) else [str(d) for d in defaults]
    merged = OmegaConf.create({})
    try:
        for parent in parents:
            parent_path = Path(parent) if parent.startswith("/") else path.parent / parent
            merged = _merge_with_override(merged, load_config(parent_path))
        return _merge_with_override(merged, config)
    except OmegaConfBaseException as error:
        # As in NeMo RL: a top-level value of a file is read (so interpolated) before the merge.
        raise ConfigError(f"cannot merge {path} with its defaults: {error}") from error


def parse_override(text: str) -> Override:
    """Parse one ``[+|++|~]key[=value]`` override with Hydra's value grammar.

    >>> parse_override("++policy.generation.vllm_kwargs={enforce_eager: true}").value
    {'enforce_eager': True}
    >>> parse_override("grpo.num_prompts_per_step=8").kind, parse_override("~logger.wandb").kind
    ('change', 'delete')
    """
    kind: OverrideKind
    if text.startswith("++"):
        kind, rest = "force_add", text[2:]
    elif text.startswith("+"):
        kind, rest = "add", text[1:]
    elif text.startswith("~"):
        kind, rest = "delete", text[1:]
    else:
        kind, rest = "change", text
    key, equals, raw = rest.partition("=")
    key = key.strip()
    if not _KEY.match(key):
        raise ConfigError(f"override {text!r}: {key!r} is not a config key (write key=value, e.g. a.b=1)")
    if not equals:
        if kind != "delete":
            raise ConfigError(f"override {text!r} has no value: write {key}=VALUE (or ~{key} to delete)")
        return Override(kind, key, None, text)
    return Override(kind, key, _ValueParser(raw, text).parse(), text)


def apply_overrides(config: DictConfig, overrides: Sequence[str]) -> DictConfig:
    """Apply command-line overrides in order, as NeMo RL's ``parse_hydra_overrides`` does."""
    OmegaConf.set_struct(config, True)
    for text in overrides:
        override = parse_override(text)
        try:
            _apply(config, override)
        except ConfigError:
            raise
        except OmegaConfBaseException as error:
            raise ConfigError(f"override {text!r}: {error}") from error
    return config


def to_container(config: DictConfig) -> dict[str, Any]:
    """The config as plain dicts and lists, with every interpolation resolved."""
    register_resolvers()
    try:
        container = OmegaConf.to_container(config, resolve=True)
    except OmegaConfBaseException as error:
        raise ConfigError(f"cannot resolve the config: {error}") from error
    assert isinstance(container, dict)
    return {str(key): value for key, value in container.items()}


def load_resolved(name_or_path: str, overrides: Sequence[str] = ()) -> tuple[Path, dict[str, Any]]:
    """Find, load, override and resolve a config: what training and the dry run both start from."""
    path = resolve_config_path(name_or_path)
    return path, to_container(apply_overrides(load_config(path), overrides))


def register_resolvers() -> None:
    """NeMo RL's interpolation resolvers (``${mul:a,b}`` ...), registered once per process.

    OmegaConf 2.4 renamed ``register_new_resolver`` to ``register_resolver`` (and warns on the old
    name), while in 2.3 ``register_resolver`` is the legacy API with other semantics.
    """
    major, minor = (int(part) for part in omegaconf.__version__.split(".")[:2])
    register = OmegaConf.register_resolver if (major, minor) >= (2, 4) else OmegaConf.register_new_resolver
    for name, function in _RESOLVERS.items():
        if not OmegaConf.has_resolver(name):
            register(name, function)


def _merge_with_override(base: DictConfig, child: DictConfig) -> DictConfig:
    for key in list(child.keys()):
        if OmegaConf.is_missing(child, key):
            continue
        section = child[key]
        if isinstance(section, DictConfig) and section.get(OVERRIDE_MARKER, False):
            section.pop(OVERRIDE_MARKER)
            if key in base:
                base.pop(key)
    merged = OmegaConf.merge(base, child)
    assert isinstance(merged, DictConfig)
    return merged


def _apply(config: DictConfig, override: Override) -> None:
    key, value = override.key, override.value
    if override.kind == "delete":
        current = OmegaConf.select(config, key, throw_on_missing=False)
        if current is None:
            raise ConfigError(f"override {override.text!r}: cannot delete {key}: it does not exist")
        if value is not None and value != current:
            raise ConfigError(f"override {override.text!r}: {key} is {current!r}, not {value!r}")
        parent_key, _, leaf = key.rpartition(".")
        parent = OmegaConf.select(config, parent_key) if parent_key else config
        with open_dict(config):
            del parent[int(leaf) if isinstance(parent, ListConfig) else leaf]
    elif override.kind == "add":
        if OmegaConf.select(config, key, throw_on_missing=False) is not None and not isinstance(
            value, (dict, list)
        ):
            raise ConfigError(
                f"override {override.text!r}: {key} already exists; change it with "
                f"{override.text[1:]!r}, or add-or-change with '+{override.text}'"
            )
        OmegaConf.update(config, key, value, merge=True, force_add=True)
    elif override.kind == "force_add":
        OmegaConf.update(config, key, value, merge=True, force_add=True)
    else:
        try:
            OmegaConf.update(config, key, value, merge=True)
        except OmegaConfBaseException as error:
            raise ConfigError(
                f"override {override.text!r}: {_missing_key_message(config, key, value)}; "
                f"to add a new key write +{override.text}"
            ) from error


def _missing_key_message(config: DictConfig, key: str, value: Any) -> str:
    """Name the first key of the override (on its path, then inside a dict value) the config lacks."""
    node: Any = config
    path: list[str] = []
    for part in key.split("."):
        if not isinstance(node, DictConfig) or part not in node:
            return _no_key(node, part, path)
        node = node[part]
        path.append(part)
    return _missing_inside(node, value, path) or f"cannot set {key}"


def _missing_inside(node: Any, value: Any, path: list[str]) -> str | None:
    if not isinstance(value, dict) or not isinstance(node, DictConfig):
        return None
    for part, child in value.items():
        if part not in node:
            return _no_key(node, str(part), path)
        message = _missing_inside(node[part], child, [*path, str(part)])
        if message:
            return message
    return None


def _no_key(node: Any, part: str, path: list[str]) -> str:
    known = [str(k) for k in node] if isinstance(node, DictConfig) else []
    close = difflib.get_close_matches(part, known, n=1)
    where = ".".join(path) or "the top level"
    hint = f"; did you mean {'.'.join([*path, close[0]])!r}?" if close else ""
    return f"no key {part!r} in {where}{hint}"


class _ValueParser:
    """Hydra's override value grammar: primitives, quoted strings, ``[lists]`` and ``{dicts}``."""

    def __init__(self, text: str, override: str) -> None:
        self.text = text
        self.override = override
        self.pos = 0

    def parse(self) -> Any:
        value = self._element(stops=",")
        if self._peek() == ",":
            raise self._error(
                "a comma outside brackets makes a sweep, which a training run cannot take; "
                "write a list as [a,b] or quote the string"
            )
        if self.pos < len(self.text):
            raise self._error(f"unexpected {self.text[self.pos]!r}")
        return value

    def _element(self, stops: str) -> Any:
        self._skip_spaces()
        char = self._peek()
        if char == "[":
            return self._sequence("[", "]", self._list_item)
        if char == "{":
            return dict(self._sequence("{", "}", self._dict_item))
        if char in ("'", '"'):
            value = self._quoted()
            self._skip_spaces()
            return value
        return self._primitive(stops)

    def _sequence(self, open_: str, close: str, item: Any) -> list[Any]:
        self.pos += len(open_)
        items: list[Any] = []
        self._skip_spaces()
        if self._peek() == close:
            self.pos += 1
            self._skip_spaces()
            return items
        while True:
            items.append(item())
            self._skip_spaces()
            char = self._peek()
            self.pos += 1
            if char == close:
                self._skip_spaces()
                return items
            if char != ",":
                raise self._error(f"expected ',' or {close!r}")

    def _list_item(self) -> Any:
        return self._element(stops=",]")

    def _dict_item(self) -> tuple[str, Any]:
        self._skip_spaces()
        start = self.pos
        while self._peek() not in ("", ":", ",", "}"):
            self.pos += 1
        key = self.text[start : self.pos].strip()
        if self._peek() != ":" or not key:
            raise self._error("a dict item must be key: value")
        self.pos += 1
        return key, self._element(stops=",}")

    def _quoted(self) -> str:
        quote = self.text[self.pos]
        self.pos += 1
        chars: list[str] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < len(self.text) and self.text[self.pos + 1] in (quote, "\\"):
                chars.append(self.text[self.pos + 1])
                self.pos += 2
                continue
            self.pos += 1
            if char == quote:
                return "".join(chars)
            chars.append(char)
        raise self._error("unterminated quoted string")

    def _primitive(self, stops: str) -> Any:
        chars: list[str] = []
        escaped = False
        depth = 0
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < len(self.text):
                chars.append(self.text[self.pos + 1])
                self.pos += 2
                escaped = True
                continue
            if char == "$" and self.text[self.pos + 1 : self.pos + 2] == "{":
                depth += 1
                chars.append("${")
                self.pos += 2
                continue
            if depth and char == "}":
                depth -= 1
            elif not depth and (char in stops or char in "[]{}"):
                break
            chars.append(char)
            self.pos += 1
        raw = "".join(chars).strip()
        return raw if escaped else _typed(raw)

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _skip_spaces(self) -> None:
        while self._peek() in (" ", "\t"):
            self.pos += 1

    def _error(self, detail: str) -> ConfigError:
        return ConfigError(f"override {self.override!r}: {detail} (at character {self.pos} of the value)")


def _typed(raw: str) -> Any:
    """Hydra's typing of an unquoted value."""
    lowered = raw.lower()
    if lowered == "null":
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    if _INT.match(raw):
        return int(raw.replace("_", ""))
    if _FLOAT.match(raw):
        return float(raw.replace("_", ""))
    return raw
