"""The summary table's breakdowns: per source and difficulty, read from the real CodeContests rows
(SandboxFusion keeps them in ``labels``) and NeMo Gym rows (top-level ``source``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nemo_code_rl.evaluation.problem_set import load_problem_set
from nemo_code_rl.evaluation.report import eval_summary, format_table


def result_row(problem_id: str, index: int, passed: bool) -> dict[str, object]:
    verdict = "passed" if passed else "wrong_answer"
    return {
        "id": problem_id,
        "index": index,
        "sample": index % 2,
        "status": "judged",
        "passed": passed,
        "reward": float(passed),
        "format_ok": True,
        "tests": [{"verdict": verdict, "wall_s": 0.0, "detail": ""}],
    }


def test_pass_at_k_per_source_and_difficulty(fixtures_dir: Path) -> None:
    problem_set = load_problem_set(str(fixtures_dir / "sandboxfusion" / "code_eval_code_contests.jsonl"))
    groups = problem_set.groups
    assert all({"source", "difficulty"} <= set(groups[i]) for i in problem_set.ids)
    first = problem_set.ids[0]
    second = next(i for i in problem_set.ids if groups[i]["difficulty"] != groups[first]["difficulty"])
    rows = [
        result_row(first, 0, True),
        result_row(first, 1, False),
        result_row(second, 2, False),
        result_row(second, 3, False),
    ]
    summary = eval_summary(rows, groups, ks=(1, 2, 5), finish_reasons=["stop", "length", "stop", "stop"])
    table = summary["table"]
    assert table["all"] == {"problems": 2, "pass_at_k": {1: 0.25, 2: 0.5}}  # k=5 > n is left out
    assert table[f"difficulty={groups[first]['difficulty']}"] == {
        "problems": 1,
        "pass_at_k": {1: 0.5, 2: 1.0},
    }
    assert table[f"difficulty={groups[second]['difficulty']}"] == {
        "problems": 1,
        "pass_at_k": {1: 0.0, 2: 0.0},
    }
    assert sum(entry["problems"] for key, entry in table.items() if key.startswith("source=")) == 2
    assert summary["finish_reasons"] == {"length": 1, "stop": 3}
    text = format_table(summary)
    assert "| all | 2 | 25.00% | 50.00% |" in text and "generation ended: length=1, stop=3" in text


def test_gym_rows_name_their_source(fixtures_dir: Path) -> None:
    problem_set = load_problem_set(str(fixtures_dir / "nemo_gym" / "code_gen_example.jsonl"))
    assert {g["source"] for g in problem_set.groups.values()} == {"codeforces"}


def test_no_rows_no_groups() -> None:
    problem_set = load_problem_set(None)  # HumanEval: no source or difficulty in its rows
    assert len(problem_set.ids) == 164 and not any(problem_set.groups.values())
    with pytest.raises(FileNotFoundError):
        load_problem_set("no/such/problems.jsonl")
