"""The task families this package trains on, each described once: its name and where its pieces live.

A family is a kind of task with its own rows, prompt, judging and reward: coding problems judged by
unit tests (``code_unit_tests``) and ARC tasks answered with a program (``arc_programs``). Its name
is written here and nowhere else: NeMo RL's registry keys (``register``), the default task name of
its rows, the processor named in its errors, the ARC TRL reward's metric prefix and the dry run's
sampler all read it from the family's ``TaskFamily``, and ``FAMILIES`` is the one registry that
``register()``, the config checks and the dry run walk.

The description is plain data (names and import paths, nothing imported), so the core depends on
no adapter and the dry run reads it on machines without NeMo RL; each adapter resolves the paths
it needs (``resolve``).
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TaskFamily:
    """A task family and the import paths of its pieces, all under one name.

    The name is the key in NeMo RL's ``ENV_REGISTRY``, ``PROCESSOR_REGISTRY`` and
    ``DATASET_REGISTRY``; in a config it is ``data.*.dataset_name``, ``data.*.processor``,
    ``data.*.env_name`` and the ``env.<name>`` section.

    Attributes:
        name: the family's one name.
        environment: the NeMo RL Ray actor class created with ``env.<name>``.
        pieces: the family itself as a plug-in (``nemo_code_rl.family_pieces.FamilyPieces``):
            its rows, prompt, ``extra_env_info``, verifier, judging, metrics and verdicts, which
            every framework adapter is generic over.
        processor: the NeMo RL processor (the generic one with this family's pieces).
        env_config: ``(data, where) -> settings``, which validates ``env.<name>`` strictly
            (``ConfigError`` on any unknown key).
        dataset: the NeMo RL dataset class (``nemo_rl_glue``).
        dataset_config: ``(data, where) -> settings`` for one data entry.
        sampler: ``(dataset settings, limit) -> Loaded``: a few of the rows ``dataset`` would
            build, for the dry run (``nemo_code_rl.dry_run.samples``).
    """

    name: str
    pieces: str
    environment: str
    processor: str
    env_config: str
    dataset: str
    dataset_config: str
    sampler: str

    def importable(self) -> bool:
        """Whether this install ships the family: its environment module and its processor.

        The environment module is only located, not imported: importing it needs Ray and torch.
        """
        if not _module_exists(self.environment.rpartition(".")[0]):
            return False
        try:
            resolve(self.processor)
        except (ImportError, AttributeError):
            return False
        return True

    def names_dataset(self, dataset_name: Any) -> bool:
        """Whether ``data.*.dataset_name`` selects this family's dataset (by name or class path)."""
        return dataset_name in (self.name, self.dataset)


UNIT_TESTS = TaskFamily(
    name="code_unit_tests",
    pieces="nemo_code_rl.unit_tests.family.PIECES",
    environment="nemo_code_rl.environments.code_environment.CodeUnitTestEnvironment",
    processor="nemo_code_rl.processors.code_unit_tests_processor",
    env_config="nemo_code_rl.environments.config.CodeEnvConfig.from_dict",
    dataset="nemo_code_rl.nemo_rl_glue.CodeProblemsDataset",
    dataset_config="nemo_code_rl.registration.CodeDatasetSettings.from_dict",
    sampler="nemo_code_rl.dry_run.samples.code_samples",
)
ARC = TaskFamily(
    name="arc_programs",
    pieces="nemo_code_rl.arc.family.PIECES",
    environment="nemo_code_rl.environments.arc_environment.ArcProgramsEnvironment",
    processor="nemo_code_rl.processors.arc_processors.arc_programs_processor",
    env_config="nemo_code_rl.environments.arc_config.ArcEnvConfig.from_dict",
    dataset="nemo_code_rl.nemo_rl_glue.ArcTasksDataset",
    dataset_config="nemo_code_rl.registration.ArcDatasetSettings.from_dict",
    sampler="nemo_code_rl.dry_run.samples.arc_samples",
)
FAMILIES = (UNIT_TESTS, ARC)


def available_families() -> tuple[TaskFamily, ...]:
    """The families whose code is present in this install."""
    return tuple(family for family in FAMILIES if family.importable())


def family_named(name: Any) -> TaskFamily | None:
    """The present family registered under ``name``, if any."""
    return next((f for f in available_families() if f.name == name), None)


def family_for_dataset(dataset_name: Any) -> TaskFamily | None:
    """The present family whose dataset ``data.*.dataset_name`` selects, if any."""
    return next((f for f in available_families() if f.names_dataset(dataset_name)), None)


def resolve(path: str) -> Any:
    """The object at an import path such as ``package.module.Class.method``."""
    module_path, _, attribute = path.rpartition(".")
    try:
        module = importlib.import_module(module_path)
    except ModuleNotFoundError as error:
        if error.name != module_path or "." not in module_path:
            raise
        return getattr(resolve(module_path), attribute)
    return getattr(module, attribute)


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False
