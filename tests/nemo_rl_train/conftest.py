"""Fixtures of the ``grpo_train`` tests: NeMo RL importable, SmolLM2 as a Hugging Face folder, and one
Ray cluster with logical GPUs that every training run of the session attaches to."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import sysconfig
import time
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from nemo_code_rl.benchmarking import smollm2
from nemo_code_rl.run import nemo_rl_problem


@pytest.fixture(scope="session")
def nemo_rl() -> None:
    problem = nemo_rl_problem()
    if problem is not None:
        pytest.skip(problem)


@pytest.fixture(scope="session")
def smollm_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SmolLM2-135M-Instruct converted once from the package's GGUF to a Hugging Face folder (NeMo RL
    loads tokenizers and models by folder and has no GGUF support)."""
    location = smollm2.gguf_location()
    if location is None:
        pytest.skip(f"no offline model: {smollm2.INSTALL_HINT}")
    folder = tmp_path_factory.mktemp("smollm2-135m-hf")
    tokenizer = smollm2.chat_tokenizer(*location)
    model = smollm2.trainable_model(*location, tokenizer)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    # The conversion names a Llama tokenizer class, whose reloading replaces the byte-level BPE
    # pre-tokenizer of tokenizer.json (every space then encodes as token 0): load tokenizer.json as is.
    settings = folder / "tokenizer_config.json"
    settings.write_text(
        json.dumps({**json.loads(settings.read_text()), "tokenizer_class": "PreTrainedTokenizerFast"})
    )
    return folder


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def ray_address(nemo_rl: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Ray head of this session only, advertising 2 logical GPUs so that NeMo RL's virtual cluster
    can place its bundles; stopped (only the processes it started) at the end."""
    port = _free_port()
    ray_bin = Path(sys.executable).with_name("ray")
    temp_dir = tmp_path_factory.mktemp("ray")
    head = subprocess.Popen(
        [
            str(ray_bin),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--node-ip-address=127.0.0.1",
            "--num-cpus=6",
            "--num-gpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={temp_dir}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            probe = subprocess.run(
                [str(ray_bin), "status", f"--address={address}"], capture_output=True, text=True
            )
            if probe.returncode == 0:
                break
            if head.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Ray head did not start: {probe.stderr[-2000:]}")
            time.sleep(2)
        yield address
    finally:
        os.killpg(head.pid, 15)
        head.wait(timeout=120)


# The actors async GRPO starts in NeMo RL's vLLM environment (ray_actor_environment_registry.py maps
# both to PY_EXECUTABLES.VLLM, a `uv run --extra vllm` command, whatever NEMO_RL_PY_EXECUTABLES_SYSTEM
# says); NeMo RL looks for each such environment as NEMO_RL_VENV_DIR/<name>/bin/python before it
# would build one with uv (nemo_rl/utils/venvs.py, _env_builder).
ASYNC_ACTORS = (
    "nemo_rl.algorithms.async_utils.AsyncTrajectoryCollector",
    "nemo_rl.algorithms.async_utils.ReplayBuffer",
)


@pytest.fixture(scope="session")
def actor_venvs(nemo_rl: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A NEMO_RL_VENV_DIR holding, prebuilt as NeMo RL's container holds them, the environments of
    async GRPO's actors: this interpreter with the driver's dependencies but *without* this package
    as installed (only what NeMo RL's actors receive from the driver can bring it: PYTHONPATH)."""
    root = tmp_path_factory.mktemp("nemo-rl-venvs")
    site_dirs = [p for p in sys.path if p.endswith("site-packages")]
    for name in ASYNC_ACTORS:
        folder = root / name
        venv.EnvBuilder(with_pip=False).create(folder)
        site = Path(sysconfig.get_path("purelib", vars={"base": str(folder), "platbase": str(folder)}))
        # Plain paths: the .pth files there (the editable install of this package) are not run.
        (site / "zz-driver-deps.pth").write_text("".join(d + "\n" for d in site_dirs))
        python = folder / "bin" / "python"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        probe = subprocess.run(
            [str(python), "-c", "import ray, torch, nemo_code_rl"],
            env=env,
            cwd=root,
            capture_output=True,
            text=True,
        )
        assert "No module named 'nemo_code_rl'" in probe.stderr, probe.stderr[-2000:]
    return root
