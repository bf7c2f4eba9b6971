"""``plot_run`` and ``nemo-code-rl plot`` on real TensorBoard event files and metrics JSONL.

The runs are synthetic but written the way trainers write them: NeMo RL's own writer
(``torch.utils.tensorboard.SummaryWriter`` under ``<log_dir>/tensorboard``, with its hparams
subfolder) and TensorBoard's framework-free ``tensorboard.summary.Writer`` (scalar tensors).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="the plot extra (matplotlib) is not installed")
pytest.importorskip("tensorboard", reason="the plot extra (tensorboard) is not installed")

from matplotlib.image import imread
from tensorboard.summary import Writer

from nemo_code_rl import plotting_cli
from nemo_code_rl.environments.metrics_log import MetricsLog
from nemo_code_rl.plotting import (
    detect_collapse,
    find_rise,
    load_scalars,
    plot_run,
    plot_runs,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
STEPS = 80
ONSET = 52  # truncation jumps here and keeps climbing
REPETITION_ONSET = 58
SPIKE = 20  # one bad batch, which is not a collapse
PANEL_FILES = ["reward.png", "pass_rate.png", "response_length.png", "truncation.png", "overview.png"]


def synthetic_run(steps: int = STEPS) -> dict[str, list[tuple[int, float]]]:
    """Tag -> points of a run that learns, then collapses: truncation and repetition rise late,
    reward and pass rate fall. The tags are those NeMo RL and the code environment log."""
    noise = random.Random(0)

    def jitter(scale: float) -> float:
        return noise.uniform(-scale, scale)

    series: dict[str, list[tuple[int, float]]] = {}
    for step in range(1, steps + 1):
        learned = min(step, 45) / 45
        truncation = 0.05 + jitter(0.02)
        if step == SPIKE:
            truncation = 0.5
        if step >= ONSET:
            truncation = min(0.9, 0.3 + 0.03 * (step - ONSET))
        repetition = (
            0.3 + 0.02 * (step - REPETITION_ONSET) if step >= REPETITION_ONSET else 0.02 + jitter(0.01)
        )
        collapsed = step >= ONSET
        values = {
            "train/reward": 0.2 + 0.4 * learned - (0.25 if collapsed else 0.0) + jitter(0.03),
            "train/truncation_rate": truncation,
            "train/mean_gen_tokens_per_sample": (950.0 if collapsed else 400.0) + jitter(20),
            "train/env/pass_rate": 0.1 + 0.35 * learned - (0.2 if collapsed else 0.0) + jitter(0.02),
            "train/env/repetition_rate": repetition,
            "train/env/format_rate": 0.95 + jitter(0.03),
        }
        if step % 10 == 0:
            values["validation/accuracy"] = 0.25 + 0.35 * learned - (0.25 if collapsed else 0.0)
        for tag, value in values.items():
            series.setdefault(tag, []).append((step, value))
    return series


def write_with_tensorboard(folder: Path, series: dict[str, list[tuple[int, float]]]) -> None:
    writer = Writer(str(folder))
    for tag, points in series.items():
        for step, value in points:
            writer.add_scalar(tag, value, step)
    writer.close()


def assert_valid_pngs(paths: list[Path], names: list[str]) -> None:
    assert [path.name for path in paths] == names
    for path in paths:
        assert path.read_bytes()[:8] == PNG_SIGNATURE
        height, width, _ = imread(path).shape  # a full decode: the file is a whole PNG
        assert height > 200 and width > 300


def test_tensorboard_run_with_late_collapse(tmp_path):
    run = tmp_path / "exp_001"
    write_with_tensorboard(run / "tensorboard", synthetic_run())

    paths = plot_run(run)

    assert all(path.parent == run / "plots" for path in paths)
    assert_valid_pngs(paths, PANEL_FILES)
    signals = detect_collapse(load_scalars(run))
    assert [(signal.tag, signal.step) for signal in signals] == [
        ("train/truncation_rate", ONSET),
        ("train/env/repetition_rate", REPETITION_ONSET),
    ]
    assert signals[0].baseline == pytest.approx(0.05, abs=0.02)


def test_nemo_rl_writer_layout(tmp_path):
    """NeMo RL's TensorboardLogger: torch's SummaryWriter, an hparams subfolder without scalars,
    and rollout metrics logged twice at one step."""
    tensorboard_writer = pytest.importorskip("torch.utils.tensorboard", reason="torch is not installed")
    run = tmp_path / "logs" / "exp_003"
    writer = tensorboard_writer.SummaryWriter(log_dir=str(run / "tensorboard"))
    writer.add_hparams({"grpo.num_prompts_per_step": 8, "policy.model_name": "Qwen/Qwen2.5-0.5B"}, {})
    for tag, points in synthetic_run().items():
        for step, value in points:
            writer.add_scalar(tag, value, step)
            if tag == "train/truncation_rate":
                writer.add_scalar(tag, value, step)
    writer.close()

    scalars = load_scalars(run)

    assert len(scalars["train/truncation_rate"]) == STEPS
    assert detect_collapse(scalars)[0].step == ONSET
    assert_valid_pngs(plot_run(run, tmp_path / "out"), PANEL_FILES)


def test_resumed_run_keeps_the_newest_values(tmp_path):
    """A run restarted from an earlier checkpoint writes a second event file that logs from there
    again: the first attempt's later steps (9 and 10 here) are stale and dropped."""
    folder = tmp_path / "run" / "tensorboard"
    write_with_tensorboard(folder, {"train/reward": [(step, 0.1) for step in range(1, 11)]})
    write_with_tensorboard(folder, {"train/reward": [(step, 0.9) for step in range(6, 9)]})

    points = load_scalars(tmp_path / "run")["train/reward"]

    assert [step for step, _ in points] == list(range(1, 9))
    assert [value for _, value in points] == pytest.approx([0.1] * 5 + [0.9] * 3)


def test_healthy_run_has_no_collapse():
    noise = random.Random(1)
    flat = [(step, 0.1 + noise.uniform(-0.05, 0.05)) for step in range(1, 101)]
    spiky = [(step, 0.6 if step in (30, 31) else value) for step, value in flat]
    assert find_rise("truncation_rate", flat, 0.15) is None
    assert find_rise("truncation_rate", spiky, 0.15) is None  # two bad batches, not three
    assert find_rise("truncation_rate", flat[:5], 0.0) is None  # too short to judge
    assert detect_collapse({"train/truncation_rate": flat, "train/env/repetition_rate": spiky}) == []


def test_jsonl_metrics(tmp_path):
    """Nested and flat rows; NeMo RL's per-sample dumps and other JSONL files beside it are skipped."""
    run = tmp_path / "run"
    run.mkdir()
    with open(run / "metrics.jsonl", "w") as handle:
        for step, row in sorted(_rows_by_step(synthetic_run()).items()):
            train = {
                tag.removeprefix("train/"): value for tag, value in row.items() if tag.startswith("train/")
            }
            rest = {tag: value for tag, value in row.items() if not tag.startswith("train/")}
            nested_env = {
                "env": {k.removeprefix("env/"): v for k, v in train.items() if k.startswith("env/")}
            }
            flat_train = {k: v for k, v in train.items() if not k.startswith("env/")}
            handle.write(json.dumps({"step": step, "train": {**flat_train, **nested_env}, **rest}) + "\n\n")
    (run / "train_data_step3.jsonl").write_text(
        json.dumps({"content": ["x"], "rewards": [1.0], "idx": 0}) + "\n"
    )
    (run / "completions.jsonl").write_text(json.dumps({"id": "p", "completion": "print(1)"}) + "\n")

    scalars = load_scalars(run)

    assert "train/env/pass_rate" in scalars and "validation/accuracy" in scalars
    assert not any(tag.startswith(("content", "rewards", "id")) for tag in scalars)
    assert [signal.step for signal in detect_collapse(scalars)] == [ONSET, REPETITION_ONSET]
    assert_valid_pngs(plot_run(run / "metrics.jsonl"), PANEL_FILES)


def test_environment_metrics_jsonl_beside_nemo_rl_event_files(tmp_path):
    """The shipped configs' layout: NeMo RL's event files in ``exp_001/tensorboard``, the
    environment's ``metrics_jsonl`` in the log folder above it; both are read, as one run."""
    log_dir = tmp_path / "logs" / "grpo_code_2gpu"
    run = synthetic_run()
    write_with_tensorboard(
        log_dir / "exp_001" / "tensorboard",
        {tag: v for tag, v in run.items() if not tag.startswith("train/env/")},
    )
    env_log = MetricsLog(log_dir / "env_metrics.jsonl")
    for _, row in sorted(_rows_by_step(run).items()):
        env_log.append(
            {tag.removeprefix("train/env/"): v for tag, v in row.items() if tag.startswith("train/env/")}
        )

    scalars = load_scalars(log_dir)

    assert len(scalars["train/reward"]) == STEPS and len(scalars["pass_rate"]) == STEPS
    assert scalars["repetition_rate"][0][0] == 0  # the environment counts its steps from 0
    assert [signal.tag for signal in detect_collapse(scalars)] == ["train/truncation_rate", "repetition_rate"]
    assert_valid_pngs(plot_run(log_dir), PANEL_FILES)


def test_missing_panels_are_left_out_and_reported(tmp_path, capsys):
    write_with_tensorboard(tmp_path / "run", {"train/reward": [(step, step / 10) for step in range(10)]})

    assert run_cli("plot", str(tmp_path / "run"), "-o", str(tmp_path / "png")) == 0

    assert sorted(path.name for path in (tmp_path / "png").iterdir()) == ["overview.png", "reward.png"]
    out = capsys.readouterr().out
    assert "not drawn: pass rate (no tag matching pass_rate" in out
    assert "collapse indicators: none rose" in out


def test_cli_reports_pngs_and_collapse(tmp_path, capsys):
    write_with_tensorboard(tmp_path / "exp_001" / "tensorboard", synthetic_run())

    assert run_cli("plot", str(tmp_path / "exp_001")) == 0

    out = capsys.readouterr().out
    assert f"wrote {tmp_path / 'exp_001' / 'plots' / 'overview.png'}" in out
    assert f"collapse indicator: train/truncation_rate rises at step {ONSET}" in out


def test_no_logs_is_a_clear_error(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.jsonl").write_text(json.dumps({"note": "no step here"}) + "\n")
    with pytest.raises(
        ValueError, match=r"no training metrics under .*empty: expected TensorBoard event files"
    ):
        plot_run(tmp_path / "empty")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        plot_run(tmp_path / "absent")
    write_with_tensorboard(tmp_path / "other", {"train/tokens_per_second": [(1, 50.0), (2, 40.0)]})
    with pytest.raises(ValueError, match="none of the plotted metrics is in the logs"):
        plot_run(tmp_path / "other")


def test_several_runs_are_refused(tmp_path):
    for name in ("exp_001", "exp_002"):
        write_with_tensorboard(tmp_path / "logs" / name / "tensorboard", {"train/reward": [(1, 0.5)]})
    with pytest.raises(ValueError, match=r"several runs \(exp_001/tensorboard, exp_002/tensorboard\)"):
        plot_run(tmp_path / "logs")


TRL_RUN = Path(__file__).parents[1] / "benchmarks" / "results" / "trl_grpo_h200" / "metrics.jsonl"


def test_trl_logs_give_the_standard_grpo_curves_and_the_stall_is_flagged(tmp_path):
    """The committed TRL run (binary reward): after step ~30 most groups give every sample one reward."""
    paths = plot_run(TRL_RUN, tmp_path)

    names = [path.name for path in paths]
    assert names == [
        "reward.png",
        "response_length.png",
        "truncation.png",
        "verification.png",
        "entropy.png",
        "loss.png",
        "grad_norm.png",
        "zero_advantage.png",
        "overview.png",
    ]  # no pass_rate.png: under a binary reward it is the reward's own curve
    assert_valid_pngs(paths, names)
    stalls = [s for s in detect_collapse(load_scalars(TRL_RUN)) if s.kind == "stall"]
    assert {s.tag for s in stalls} == {"frac_reward_zero_std", "unit_tests/uniform_reward_group_rate"}
    assert all(s.step == 31 for s in stalls)


def test_a_cut_short_last_line_is_skipped_but_a_broken_middle_line_is_an_error(tmp_path, caplog):
    rows = [json.dumps({"step": step, "reward": step / 10}) for step in range(1, 6)]
    running = tmp_path / "running" / "metrics.jsonl"
    running.parent.mkdir()
    running.write_text("\n".join(rows) + '\n{"step": 6, "rew')
    broken = tmp_path / "broken" / "metrics.jsonl"
    broken.parent.mkdir()
    broken.write_text("\n".join([rows[0], '{"step": 2, "rew', *rows[2:]]) + "\n")

    assert load_scalars(running)["reward"] == [(step, step / 10) for step in range(1, 6)]
    assert "skipping the last line" in caplog.text
    with pytest.raises(ValueError, match=r"metrics.jsonl:2: not JSON"):
        load_scalars(broken)


def test_several_runs_overlay_and_the_command_needs_an_output_folder(tmp_path, capsys):
    for name, scale in (("exp_a", 1.0), ("exp_b", 0.5)):
        rows = [
            {"step": s, "reward": scale * s / 40, "validation/accuracy": scale * s / 50} for s in range(1, 41)
        ]
        folder = tmp_path / name
        folder.mkdir()
        (folder / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))

    paths = plot_runs([tmp_path / "exp_a", tmp_path / "exp_b"], tmp_path / "both")

    assert_valid_pngs(paths, ["reward.png", "overview.png"])
    with pytest.raises(SystemExit, match="give -o OUT_DIR"):
        run_cli("plot", str(tmp_path / "exp_a"), str(tmp_path / "exp_b"))
    assert run_cli("plot", str(tmp_path / "exp_a"), str(tmp_path / "exp_b"), "-o", str(tmp_path / "cli")) == 0
    assert "exp_b: collapse indicators: none rose" in capsys.readouterr().out


def run_cli(*argv: str) -> int:
    """The subcommand as ``nemo-code-rl`` wires it: added to subparsers, run through its handler."""
    parser = argparse.ArgumentParser(prog="nemo-code-rl")
    plotting_cli.add_subcommand(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.handler(args)


def _rows_by_step(series: dict[str, list[tuple[int, float]]]) -> dict[int, dict[str, float]]:
    rows: dict[int, dict[str, float]] = {}
    for tag, points in series.items():
        for step, value in points:
            rows.setdefault(step, {})[tag] = value
    return rows
