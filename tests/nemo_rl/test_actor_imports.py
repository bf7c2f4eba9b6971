"""A Ray actor whose Python lacks this package (as NeMo RL's vLLM and uv worker venvs do) can still
unpickle what NeMo RL hands it, once ``export_package_to_actors`` ran in the driver.

The actor is started the way NeMo RL starts its async trajectory collector: ``runtime_env`` with a
``py_executable`` of another Python environment and ``env_vars`` copied from the driver's
``os.environ``. Its argument is NeMo RL's own dataset object built by ``setup_response_data`` with our
dataset and processor, the object that hung async GRPO when the collector could not import us.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="these tests need Ray: pip install 'nemo-code-rl[ray]'")
try:
    from nemo_rl.data.utils import setup_response_data
except Exception as error:  # absent, or present without its dependencies
    pytest.skip(
        f"NeMo RL's data module is not importable here ({type(error).__name__}: {error}): put its "
        "checkout on PYTHONPATH (see .ci/nemo_rl_lane.sh)",
        allow_module_level=True,
    )

from nemo_code_rl.config_loading import load_resolved, packaged_config_dir  # noqa: E402
from nemo_code_rl.nemo_rl_glue import export_package_to_actors  # noqa: E402
from nemo_code_rl.registration import register  # noqa: E402

SAMPLE = packaged_config_dir() / "samples" / "code_problems.jsonl"


@pytest.fixture(scope="module")
def python_without_us(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A venv that sees the driver's site-packages through a path entry, so Ray and NeMo RL's
    dependencies import, but not the ``.pth`` hooks there: an editable install of ours stays invisible."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run(
        [getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(venv)],
        check=True,
    )
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "driver_site.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = subprocess.run(
        [str(python), "-c", "import ray, nemo_code_rl"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
    )
    if "No module named 'nemo_code_rl'" not in probe.stderr:
        pytest.fail(f"the actor's Python should lack nemo_code_rl but import ray: {probe.stderr[-500:]}")
    return str(python)


@ray.remote
class Collector:
    """Stands for NeMo RL's trajectory collector: it only holds and reads the dataset."""

    def __init__(self, dataset: object) -> None:
        self.dataset = dataset

    def first_prompt_tokens(self) -> int:
        return len(self.dataset[0]["message_log"][0]["token_ids"])


def _dataset(tokenizer: object) -> object:
    config = load_resolved(
        "grpo_code_2gpu",
        [f"data.train.source={SAMPLE}", "data.validation=null", "env.code_unit_tests.workers=1"],
    )[1]
    register()
    dataset, _, task_to_env, _ = setup_response_data(tokenizer, config["data"], config["env"])
    for actor in {id(a): a for a in task_to_env.values()}.values():
        ray.get(actor.shutdown.remote(), timeout=60)
        ray.kill(actor)
    return dataset


def _collector(python: str, dataset: object) -> ray.actor.ActorHandle:
    """As ``async_grpo_train`` starts its collector: another Python, the driver's environment."""
    return Collector.options(runtime_env={"py_executable": python, "env_vars": {**os.environ}}).remote(
        dataset
    )


def test_an_actor_without_the_package_imports_it_after_the_export(
    ray_cluster, python_without_us: str, tokenizer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = _dataset(tokenizer)
    expected = len(dataset[0]["message_log"][0]["token_ids"])
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))  # restored after the test

    without = _collector(python_without_us, dataset)
    with pytest.raises(ray.exceptions.RayError, match="No module named 'nemo_code_rl"):
        ray.get(without.first_prompt_tokens.remote(), timeout=300)

    exported = export_package_to_actors(tmp_path / "python")
    assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == str((tmp_path / "python").resolve())
    for subpackage in ("processors", "environments", "configs"):  # mapped from outside by an editable install
        assert (exported / subpackage / "__init__.py").is_file()
    with_export = _collector(python_without_us, dataset)
    assert ray.get(with_export.first_prompt_tokens.remote(), timeout=300) == expected
