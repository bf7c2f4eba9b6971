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
    import nemo_rl.data.utils  # noqa: F401
except Exception as error:  # noqa: BLE001 - absent, or present without its dependencies
    pytest.skip(
        f"NeMo RL's data module is not importable here ({type(error).__name__}: {error}): put its "
        "checkout on PYTHONPATH (see .ci/nemo_rl_lane.sh)",
        allow_module_level=True,
    )

from nemo_code_rl.config_loading import packaged_config_dir  # noqa: E402

SAMPLE = packaged_config_dir() / "samples" / "code_problems.jsonl"
REPO = Path(__file__).resolve().parents[2]


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
        [str(python), "-c", "import ray, nemo_code_rl.processors"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
        cwd=venv,
    )
    if "No module named 'nemo_code_rl'" not in probe.stderr:
        pytest.fail(f"the actor's Python should lack nemo_code_rl but import ray: {probe.stderr[-500:]}")
    return str(python)


DRIVER = """
import os, sys
from pathlib import Path
import ray
from nemo_rl.data.utils import setup_response_data
from nemo_code_rl.config_loading import load_resolved
from nemo_code_rl.environments.chat_turns import load_tokenizer
from nemo_code_rl.environments.config import TokenizerSettings
from nemo_code_rl.nemo_rl_glue import export_package_to_actors
from nemo_code_rl.registration import register

python, sample, tokenizer_folder, export = sys.argv[1:5]
config = load_resolved(
    "grpo_code_2gpu", [f"data.train.source={sample}", "data.validation=null", "env.code_unit_tests.workers=1"]
)[1]
register()
tokenizer = load_tokenizer(TokenizerSettings.from_dict({"name": tokenizer_folder}, "tokenizer"))
if export != "-":
    export_package_to_actors(Path(export))
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
dataset, _, task_to_env, _ = setup_response_data(tokenizer, config["data"], config["env"])
for actor in task_to_env.values():
    ray.kill(actor)


@ray.remote
class Collector:  # stands for NeMo RL's trajectory collector: it holds and reads the dataset
    def __init__(self, dataset):
        self.dataset = dataset

    def first_prompt_tokens(self):
        return len(self.dataset[0]["message_log"][0]["token_ids"])


# As async_grpo_train starts its collector: another Python, the driver's environment.
collector = Collector.options(runtime_env={"py_executable": python, "env_vars": {**os.environ}}).remote(dataset)
try:
    print("TOKENS", ray.get(collector.first_prompt_tokens.remote(), timeout=300), flush=True)
except ray.exceptions.RayError as error:
    print("FAILED", error, flush=True)
print("EXPECTED", len(dataset[0]["message_log"][0]["token_ids"]), flush=True)
ray.shutdown()
"""


def _drive(python: str, tokenizer_folder: str, export: str, folder: Path) -> str:
    """Run the driver in a folder of its own: no source checkout of ours on its path, as when NeMo
    RL is launched from its own checkout (a ``nemo_code_rl/`` folder in the working directory would
    shadow the copy, since Ray puts the driver's path before ``PYTHONPATH`` in every worker)."""
    script = folder / "driver.py"
    script.write_text(DRIVER)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and Path(p).resolve() != REPO
        ),
    }
    completed = subprocess.run(
        [sys.executable, str(script), python, str(SAMPLE), tokenizer_folder, export],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
        timeout=900,
    )
    assert "EXPECTED" in completed.stdout, completed.stdout[-3000:] + completed.stderr[-3000:]
    return completed.stdout


def test_an_actor_without_the_package_imports_it_after_the_export(
    python_without_us: str, chat_tokenizer_config: dict[str, str], tmp_path: Path
) -> None:
    without = _drive(python_without_us, chat_tokenizer_config["name"], "-", tmp_path)
    assert "FAILED" in without and "No module named 'nemo_code_rl" in without, without

    exported = tmp_path / "python"
    with_export = _drive(python_without_us, chat_tokenizer_config["name"], str(exported), tmp_path)
    for subpackage in ("processors", "environments", "configs"):  # mapped from outside by an editable install
        assert (exported / "nemo_code_rl" / subpackage / "__init__.py").is_file()
    lines = dict(
        line.split(" ", 1) for line in with_export.splitlines() if line.startswith(("TOKENS", "EXPECTED"))
    )
    assert lines.get("TOKENS") == lines["EXPECTED"], with_export
