"""Everything that imports NeMo RL: registration, our dataset classes, the schema check, training.

The rest of the package works without NeMo RL, so this module is imported only where NeMo RL is
needed: by ``register()``, by training, and by the dry run where NeMo RL happens to be importable.
The GRPO module (``nemo_rl.algorithms.grpo``, Python >= 3.12) is imported inside the functions
that need it; the registries and datasets below import on Python 3.11 too.
"""

from __future__ import annotations

import difflib
import logging
import os
import shutil
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from nemo_rl.data.datasets.raw_dataset import RawDataset
from nemo_rl.data.datasets.response_datasets import DATASET_REGISTRY
from nemo_rl.data.processors import PROCESSOR_REGISTRY, register_processor
from nemo_rl.distributed.ray_actor_environment_registry import ACTOR_ENVIRONMENT_REGISTRY
from nemo_rl.distributed.virtual_cluster import PY_EXECUTABLES
from nemo_rl.environments.utils import ENV_REGISTRY, register_env
from pydantic import BaseModel

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.families import ARC, UNIT_TESTS, TaskFamily, resolve
from nemo_code_rl.family_pieces import training_dataset
from nemo_code_rl.registration import register

_LOG = logging.getLogger(__name__)


def register_family(family: TaskFamily) -> None:
    """Put ``family`` in NeMo RL's registries, unless it is there already.

    The environment needs two entries: ``ENV_REGISTRY`` (name to class) and
    ``ACTOR_ENVIRONMENT_REGISTRY`` (class to the Python that runs it: the driver's own, so our
    package is importable in the actor). Every collision is checked before anything is written.
    """
    processor = resolve(family.processor)
    dataset = resolve(family.dataset)
    env_entry = ENV_REGISTRY.get(family.name)
    if env_entry is not None and env_entry.get("actor_class_fqn") != family.environment:
        raise ValueError(
            f"NeMo RL environment name {family.name!r} is already registered to "
            f"{env_entry.get('actor_class_fqn')}, not to {family.environment}"
        )
    for registry, ours, what in (
        (PROCESSOR_REGISTRY, processor, "processor"),
        (DATASET_REGISTRY, dataset, "dataset"),
    ):
        if registry.get(family.name, ours) is not ours:
            raise ValueError(
                f"NeMo RL {what} name {family.name!r} is already taken by {registry[family.name]!r}"
            )
    if env_entry is None:
        register_env(family.name, family.environment)
    ACTOR_ENVIRONMENT_REGISTRY.setdefault(family.environment, PY_EXECUTABLES.SYSTEM)
    if family.name not in PROCESSOR_REGISTRY:
        register_processor(family.name, processor)
    DATASET_REGISTRY.setdefault(family.name, dataset)


class FamilyDataset(RawDataset):
    """A NeMo RL dataset of one task family's rows, generic over the family.

    The family's ``dataset_config`` validates the data entry (``ConfigError`` on any unknown key)
    and makes the rows; a family's dataset class sets ``FAMILY`` and spells out the entry's keys in
    its ``__init__``, because NeMo RL warns about data keys a dataset's ``__init__`` does not name.
    """

    FAMILY: ClassVar[TaskFamily]

    def _load(self, entry: dict[str, Any]) -> None:
        settings = resolve(self.FAMILY.dataset_config)(entry, f"the data entry of {entry.get('source')!r}")
        self.task_name = settings.resolved_task_name
        self.dataset = training_dataset(settings.rows())
        self.val_dataset = None
        if settings.held_out is not None:
            self.split_train_validation(*settings.held_out)


class CodeProblemsDataset(FamilyDataset):
    """Coding problems with unit tests, from any source ``load_code_dataset`` reads.

    NeMo RL builds it from a data entry with ``dataset_name: code_unit_tests`` (keys:
    ``CodeDatasetSettings``); every row is parsed up front, so a malformed row stops start-up
    with its location instead of failing in a data-loader worker mid-run.
    """

    FAMILY = UNIT_TESTS

    def __init__(
        self,
        source: str,
        env_name: str,
        split: str = "train",
        subset: str | None = None,
        id_field: str | None = None,
        task_name: str | None = None,
        split_validation_size: float = 0,
        seed: int = 42,
        **nemo_rl_keys: Any,
    ) -> None:
        self._load(
            {
                **nemo_rl_keys,
                "source": source,
                "env_name": env_name,
                "split": split,
                "subset": subset,
                "id_field": id_field,
                "task_name": task_name,
                "split_validation_size": split_validation_size,
                "seed": seed,
            }
        )


class ArcTasksDataset(FamilyDataset):
    """ARC tasks (and augmented copies) as rows for ``arc_programs_processor``.

    NeMo RL builds it from a data entry with ``dataset_name: arc_programs`` (keys:
    ``ArcDatasetSettings``); ``seed`` is named so that NeMo RL does not warn it is unused.
    """

    FAMILY = ARC

    def __init__(self, seed: int | None = None, **entry: Any) -> None:
        self._load(entry if seed is None else {**entry, "seed": seed})


def registry_names() -> dict[str, set[str]]:
    """The names NeMo RL knows now (ours included once registered): environments, processors, datasets."""
    return {
        "environment": set(ENV_REGISTRY),
        "processor": set(PROCESSOR_REGISTRY),
        "dataset": set(DATASET_REGISTRY),
    }


def schema_errors(config: dict[str, Any]) -> list[str]:
    """Where ``config`` breaks NeMo RL's GRPO schema (types, required keys), as NeMo RL's tests check it.

    Raises:
        ImportError: ``nemo_rl.algorithms.grpo`` does not import here (it needs Python >= 3.12).
    """
    from nemo_rl.algorithms.grpo import MasterConfig
    from pydantic import TypeAdapter, ValidationError

    try:
        TypeAdapter(MasterConfig).validate_python(config)
    except ValidationError as error:
        return [
            f"{'.'.join(str(part) for part in item['loc'])}: {item['msg']} (type={item['type']})"
            for item in error.errors()
        ]
    return []


def schema_near_misses(config: dict[str, Any]) -> list[tuple[str, str]]:
    """Keys outside NeMo RL's GRPO schema that look like typos of keys in it: (path, suggestion).

    NeMo RL accepts keys its schema does not know, so ``grpo.num_prompts_per_stp`` would silently
    leave the default in place. Its typed dicts do not list every key NeMo RL reads (``vllm_cfg``
    is read but not declared), so only near misses of declared keys are reported.
    """
    from nemo_rl.algorithms.grpo import MasterConfig

    found: list[tuple[str, str]] = []
    _near_misses(config, MasterConfig, "", found)
    return found


def _near_misses(value: Any, annotation: Any, path: str, found: list[tuple[str, str]]) -> None:
    kinds = _alternatives(annotation)
    if isinstance(value, dict):
        known: dict[str, Any] = {}
        for kind in kinds:
            for key, child in _declared_keys(kind).items():
                known.setdefault(key, child)
        if not known:
            return
        for key, child in value.items():
            where = f"{path}.{key}" if path else str(key)
            if key in known:
                _near_misses(child, known[key], where, found)
            elif close := difflib.get_close_matches(str(key), list(known), n=1, cutoff=0.8):
                found.append((where, close[0]))
    elif isinstance(value, list):
        items = [typing.get_args(kind)[0] for kind in kinds if typing.get_origin(kind) is list]
        for index, child in enumerate(value if items else []):
            _near_misses(child, items[0], f"{path}[{index}]", found)


def _alternatives(annotation: Any) -> list[Any]:
    """The types an annotation allows, with ``Optional``, unions and ``NotRequired`` unwrapped."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return [kind for arg in typing.get_args(annotation) for kind in _alternatives(arg)]
    if origin in (typing.NotRequired, typing.Required, typing.Annotated):
        return _alternatives(typing.get_args(annotation)[0])
    return [annotation]


def _declared_keys(kind: Any) -> dict[str, Any]:
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return {name: field.annotation for name, field in kind.model_fields.items()}
    if typing.is_typeddict(kind):
        return typing.get_type_hints(kind)
    return {}


PACKAGE = "nemo_code_rl"
EXPORT_FOLDER = "nemo_code_rl_python"


def export_package_to_actors(folder: Path) -> Path:
    """Copy this package, as the driver imports it, into ``folder`` and put ``folder`` first on this
    process's ``PYTHONPATH``, so that every Ray actor NeMo RL starts can import it.

    NeMo RL runs some actors in Python environments of its own (the async trajectory collector and
    replay buffer in its vLLM venv, workers in uv-built venvs) where this package is not installed,
    yet they unpickle our processors and datasets. What all of them receive is the driver's
    environment: ``init_ray`` passes ``os.environ`` as the job's ``env_vars``, and the collector's and
    buffer's own ``runtime_env`` copy ``os.environ`` again. The source tree cannot go on
    ``PYTHONPATH`` itself (``processors/``, ``environments/`` and ``configs/`` become subpackages
    only when installed), hence the copy: the package folder plus every loaded subpackage that lives
    elsewhere (an editable install). Call it after ``register()`` and before NeMo RL's ``init_ray``;
    ``folder`` must be visible at the same path on every node (NeMo RL's log folder is, on a cluster).
    """
    root = Path(sys.modules[PACKAGE].__path__[0]).resolve()
    target = Path(folder) / PACKAGE
    if target.exists():
        shutil.rmtree(target)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(root, target, ignore=ignore)
    for name, module in sorted(sys.modules.items()):
        if not name.startswith(PACKAGE + "."):
            continue
        location = getattr(module, "__path__", None)
        if not location:
            continue
        source = Path(next(iter(location))).resolve()
        if not source.is_relative_to(root):  # mapped from elsewhere by an editable install
            destination = target.joinpath(*name.split(".")[1:])
            shutil.rmtree(destination, ignore_errors=True)
            shutil.copytree(source, destination, ignore=ignore)
    paths = [str(Path(folder).resolve()), os.environ.get("PYTHONPATH", "")]
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    return target


def train(config: dict[str, Any], policy_factory: Callable[..., Any] | None = None) -> None:
    """GRPO with NeMo RL on a resolved config: what NeMo RL's ``examples/run_grpo.py`` does.

    Registers our components, sets up the tokenizer, data and environments, then NeMo RL's
    ``setup`` and ``grpo_train`` (``async_grpo_train`` when ``grpo.async_grpo.enabled``).
    ``policy_factory`` goes to NeMo RL's ``setup`` (``None``: NeMo RL's own ``Policy``).
    """
    from nemo_rl.algorithms.grpo import (
        MasterConfig,
        async_grpo_train,
        grpo_train,
        setup,
        shutdown_environments,
    )
    from nemo_rl.algorithms.utils import get_tokenizer
    from nemo_rl.data.utils import setup_response_data
    from nemo_rl.distributed.virtual_cluster import init_ray
    from nemo_rl.models.generation import configure_generation_config
    from nemo_rl.utils.logger import get_next_experiment_dir

    from nemo_code_rl.environments.metrics_log import move_into_experiment

    if (config.get("data_plane") or {}).get("enabled"):
        raise ConfigError(
            "data_plane.enabled (NeMo RL's TransferQueue trainer) is not launched by nemo_code_rl.run; "
            "use --script path/to/NeMo-RL/examples/run_grpo.py"
        )
    register()
    master = MasterConfig(**config)
    log_dir = master.logger["log_dir"]
    master.logger["log_dir"] = get_next_experiment_dir(log_dir)
    move_into_experiment(master.env, log_dir, master.logger["log_dir"])
    export_package_to_actors(Path(master.logger["log_dir"]) / EXPORT_FOLDER)
    init_ray()
    tokenizer = get_tokenizer(master.policy["tokenizer"])
    megatron_cfg = master.policy.get("megatron_cfg") or {}
    master.policy["generation"] = configure_generation_config(
        master.policy["generation"],
        tokenizer,
        has_refit_draft_weights=bool((master.policy.get("draft") or {}).get("enabled")),
        trains_mtp=bool(megatron_cfg.get("mtp_num_layers")),
    )
    dataset, val_dataset, task_to_env, val_task_to_env = setup_response_data(
        tokenizer, master.data, master.env
    )
    (
        policy,
        policy_generation,
        _nemo_gym,
        _cluster,
        dataloader,
        val_dataloader,
        loss_fn,
        logger,
        checkpointer,
        grpo_state,
        master_config,
        teacher_worker_groups,
        alias_to_group_alias,
    ) = setup(master, tokenizer, dataset, val_dataset, policy_factory=policy_factory)
    try:
        async_config = master.grpo.async_grpo
        if async_config is not None and async_config.enabled:
            async_grpo_train(
                policy=policy,
                policy_generation=policy_generation,
                dataloader=dataloader,
                val_dataloader=val_dataloader,
                tokenizer=tokenizer,
                loss_fn=loss_fn,
                task_to_env=task_to_env,
                val_task_to_env=val_task_to_env,
                logger=logger,
                checkpointer=checkpointer,
                grpo_save_state=grpo_state,
                master_config=master_config,
                max_trajectory_age_steps=async_config.max_trajectory_age_steps,
                teacher_worker_groups=teacher_worker_groups,
                alias_to_group_alias=alias_to_group_alias,
            )
        else:
            with checkpointer:
                grpo_train(
                    policy,
                    policy_generation,
                    dataloader,
                    val_dataloader,
                    tokenizer,
                    loss_fn,
                    task_to_env,
                    val_task_to_env,
                    logger,
                    checkpointer,
                    grpo_state,
                    master_config,
                )
    finally:
        shutdown_environments(task_to_env, val_task_to_env)
        try:
            policy_generation.shutdown()
        except Exception:  # noqa: BLE001 - as run_grpo.py: a failed shutdown must not hide how training ended
            _LOG.exception("shutting down generation failed")
