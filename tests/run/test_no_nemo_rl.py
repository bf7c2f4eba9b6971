"""Without NeMo RL, training stops with one paragraph on how to install it (exit 3), not a traceback; usage
and config mistakes get their own exit codes; importing our package never imports or registers into NeMo RL."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("omegaconf", reason="config loading needs omegaconf: pip install omegaconf")

from nemo_code_rl.run import EXIT_INVALID_CONFIG, EXIT_NO_NEMO_RL, EXIT_USAGE, install_message

NEMO_RL_PRESENT = importlib.util.find_spec("nemo_rl") is not None
needs_no_nemo_rl = pytest.mark.skipif(
    NEMO_RL_PRESENT, reason="NeMo RL is installed here, so training would start instead of the message"
)


def launch(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nemo_code_rl.run", *args],
        cwd=cwd,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )


@needs_no_nemo_rl
@pytest.mark.parametrize(
    "args",
    [
        ["--config", "grpo_code_8gpu.yaml"],
        ["--config", "grpo_code_2gpu.yaml", "grpo.max_num_steps=3"],
        ["--script", "run_grpo.py", "--config", "grpo_gsm8k_2gpu"],
    ],
)
def test_training_without_nemo_rl_explains_how_to_install_it(args: list[str], tmp_path: Path) -> None:
    (tmp_path / "run_grpo.py").write_text("raise SystemExit('NeMo RL launcher reached')\n")
    result = launch(tmp_path, *args)
    assert result.returncode == EXIT_NO_NEMO_RL
    message = result.stderr.strip()
    assert "\n" not in message and "Traceback" not in message
    assert "NeMo RL is not installed in this Python environment" in message
    assert "https://github.com/NVIDIA-NeMo/RL" in message and "--dry-run" in message
    assert result.stdout == ""


def test_the_install_message_is_one_paragraph() -> None:
    message = install_message("NeMo RL is not installed", "grpo_code_8gpu.yaml")
    assert "\n" not in message
    assert "uv run python -m nemo_code_rl.run --config grpo_code_8gpu.yaml" in message


def test_usage_and_config_errors(tmp_path: Path) -> None:
    usage = launch(tmp_path, "--config", "grpo_code_2gpu", "--dry-run", "--rows", "0")
    assert usage.returncode == EXIT_USAGE and "--rows must be at least 1" in usage.stderr
    unknown = launch(tmp_path, "--confg", "grpo_code_2gpu")
    assert unknown.returncode == EXIT_USAGE
    no_script = launch(tmp_path, "--script", "absent/run_grpo.py")
    assert no_script.returncode == EXIT_USAGE and "no such file" in no_script.stderr
    bad_override = launch(tmp_path, "--config", "grpo_code_2gpu", "grpo.num_prompts_per_stp=3")
    assert bad_override.returncode == EXIT_INVALID_CONFIG
    assert "did you mean 'grpo.num_prompts_per_step'?" in bad_override.stderr
    assert "Traceback" not in bad_override.stderr


def test_importing_the_package_neither_imports_nor_registers_into_nemo_rl() -> None:
    code = (
        "import sys, nemo_code_rl, nemo_code_rl.registration, nemo_code_rl.run, nemo_code_rl.dry_run\n"
        "assert not [m for m in sys.modules if m == 'nemo_rl' or m.startswith('nemo_rl.')], 'nemo_rl imported'\n"
        "import importlib.util\n"
        "if importlib.util.find_spec('nemo_rl'):\n"
        "    from nemo_rl.environments.utils import ENV_REGISTRY\n"
        "    assert 'code_unit_tests' not in ENV_REGISTRY\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
