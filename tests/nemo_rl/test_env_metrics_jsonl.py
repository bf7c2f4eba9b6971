"""``metrics_jsonl``: the unit-test environment writes its metrics per step where ``plot`` finds them."""

from __future__ import annotations

import doctest
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the environment module needs Ray: pip install 'ray[default]'")
pytest.importorskip("torch", reason="the environment module needs torch: pip install torch")

from nemo_code_rl.environments import metrics_log
from nemo_code_rl.environments.code_environment import UnitTestEnvironment
from nemo_code_rl.processors import env_info_for_problem

from .helpers import CORRECT_SUM, answer, conversation, sum_problem

WRONG_SUM = "a, b = map(int, input().split())\nprint(a - b)"


def rows(path: Path) -> list[dict[str, float]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_docstring_examples() -> None:
    assert doctest.testmod(metrics_log).failed == 0


def test_each_step_appends_the_metrics_the_environment_reports(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "grpo_code_2gpu" / "env_metrics.jsonl"  # the folders do not exist yet
    env = UnitTestEnvironment({"workers": 1, "timeout_s": 1.0, "metrics_jsonl": str(path)})
    info = env_info_for_problem(sum_problem())
    reported = []
    try:
        for completions in ([CORRECT_SUM, WRONG_SUM], [CORRECT_SUM, CORRECT_SUM]):
            logs = [conversation(answer(code)) for code in completions]
            env.step(logs, [info, info])
            reported.append(env.global_post_process_and_metrics({"message_log": logs})[1])
    finally:
        env.shutdown()

    written = rows(path)
    assert [row["step"] for row in written] == [0, 1]
    assert [row["pass_rate"] for row in written] == [0.5, 1.0]
    assert written[0]["verdict/wrong_answer"] == 2.0 and "repetition_rate" in written[0]
    for row, metrics in zip(written, reported, strict=True):
        assert {k: v for k, v in row.items() if k != "step"} == pytest.approx(metrics)


def test_plot_reads_the_environment_file_in_the_run_folder(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the plot extra (matplotlib) is not installed")
    from nemo_code_rl import plotting

    run = tmp_path / "logs" / "run"
    env = UnitTestEnvironment(
        {"workers": 1, "timeout_s": 1.0, "metrics_jsonl": str(run / "env_metrics.jsonl")}
    )
    info = env_info_for_problem(sum_problem())
    try:
        for code in (WRONG_SUM, CORRECT_SUM, CORRECT_SUM):
            env.step([conversation(answer(code))], [info])
    finally:
        env.shutdown()

    scalars = plotting.load_scalars(run)

    assert scalars["pass_rate"] == [(0, 0.0), (1, 1.0), (2, 1.0)]
    assert [step for step, _ in scalars["infra_fault_rate"]] == [0, 1, 2]
    drawn = {path.name for path in plotting.plot_run(run)}
    assert drawn >= {"reward.png", "verification.png"}
    assert "pass_rate.png" not in drawn  # a binary reward: the pass rate is the reward's own curve


def test_an_unwritable_file_warns_once_and_the_step_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    env = UnitTestEnvironment({"workers": 1, "metrics_jsonl": str(blocker / "env_metrics.jsonl")})
    info = env_info_for_problem(sum_problem())
    try:
        with caplog.at_level(logging.WARNING, logger=metrics_log.__name__):
            results = [env.step([conversation(answer(CORRECT_SUM))], [info]) for _ in range(2)]
    finally:
        env.shutdown()

    assert [result.rewards.tolist() for result in results] == [[1.0], [1.0]]
    warnings = [record for record in caplog.records if record.name == metrics_log.__name__]
    assert len(warnings) == 1 and str(blocker) in warnings[0].getMessage()
    assert blocker.read_text() == "not a folder"


def test_concurrent_steps_get_one_row_each(tmp_path: Path) -> None:
    """Asynchronous rollouts call ``step`` from many threads: every call gets its own step number."""
    path = tmp_path / "env_metrics.jsonl"
    env = UnitTestEnvironment({"workers": 2, "timeout_s": 1.0, "metrics_jsonl": str(path)})
    info = env_info_for_problem(sum_problem())
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(
                pool.map(lambda _: env.step([conversation(answer(CORRECT_SUM))], [info]), range(8))
            )
    finally:
        env.shutdown()

    assert all(result.rewards.tolist() == [1.0] for result in results)
    assert sorted(row["step"] for row in rows(path)) == list(range(8))
    assert all(row["samples"] == 1.0 and row["pass_rate"] == 1.0 for row in rows(path))
