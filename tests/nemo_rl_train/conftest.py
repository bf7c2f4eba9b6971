"""Fixtures of the ``grpo_train`` tests: NeMo RL importable, SmolLM2 as a Hugging Face folder, and one
Ray cluster with logical GPUs that every training run of the session attaches to."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
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
