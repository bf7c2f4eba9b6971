"""Programs run in the real sandbox on real ARC tasks get the specified rewards and judgements."""

from __future__ import annotations

import time

import pytest

from nemo_code_rl.arc.driver import RESULT_MARKER
from nemo_code_rl.arc.task import ArcTask
from nemo_code_rl.arc.verifier import ArcVerification, ArcVerifier, ArcVerifierConfig
from nemo_code_rl.engine.results import CANCELLED_ERROR
from nemo_code_rl.outcomes import Verdict

from .conftest import VERIFIER_CONFIG
from .programs import CORRECT_PROGRAMS, completion

ROT180 = "3c9b0459"  # 4 train pairs, 1 test pair: rotate by 180 degrees


def _verify(verifier: ArcVerifier, task: ArcTask, code: str) -> ArcVerification:
    [result] = verifier.verify_batch([(task, completion(code))])
    return result


def test_correct_programs_for_many_tasks_get_the_maximum_reward(verifier, arc1) -> None:
    items = [(arc1[task_id], completion(code)) for task_id, code in CORRECT_PROGRAMS.items()]
    results = verifier.verify_batch(items)

    for (task, _), result in zip(items, results, strict=True):
        assert result.reward == 10.0, (task.id, result.error, [j.detail for j in result.train])
        assert result.passed is True and result.train_accuracy == 1.0 and result.valid_code
        assert result.predictions == [pair.output for pair in task.test]
        assert [j.verdict for j in result.train] == ["passed"] * len(task.train)


@pytest.mark.parametrize(
    ("code", "reward", "verdict"),
    [
        ("def transform(grid):\n    return grid", 1.0, "wrong_answer"),
        ("def transform(grid):\n    return [[0] * 3] * 3", 1.0, "wrong_answer"),
        ("def transform(grid):\n    return 1 / 0", 0.0, "runtime_error"),
        ("def transform(grid):\n    while True:\n        pass", 0.0, "timeout"),
        (
            "def transform(grid):\n    try:\n        while True:\n            pass\n    except Exception:\n        return grid",
            0.0,
            "timeout",
        ),
        ("def transform(grid):\n    return [[1, 2], [3]]", 0.0, "invalid_output"),
        ("def transform(grid):\n    return [[1] * 31] * 31", 0.0, "invalid_output"),
        ("def transform(grid):\n    return [[10]]", 0.0, "invalid_output"),
        ("def transform(grid):\n    return 'a grid'", 0.0, "invalid_output"),
        ("def transform(grid):\n    return None", 0.0, "invalid_output"),
        ("def transform(grid):\n    return [[True]]", 0.0, "invalid_output"),
        ("def transform(grid):\n    return [[0.5]]", 0.0, "invalid_output"),
        ("def transform(grid):\n    import sys\n    sys.exit(0)", 0.0, "runtime_error"),
    ],
    ids=[
        "identity",
        "constant",
        "crash",
        "infinite-loop",
        "loop-swallowing-exceptions",
        "ragged",
        "too-large",
        "color-10",
        "string",
        "none",
        "bools",
        "fraction",
        "sys-exit",
    ],
)
def test_wrong_crashing_looping_and_malformed_programs(verifier, arc1, code, reward, verdict) -> None:
    result = _verify(verifier, arc1[ROT180], code)

    assert result.reward == reward
    assert {j.verdict for j in result.train} == {verdict}
    assert result.verdict == verdict and result.message.startswith("train 1: ")
    assert result.passed is False and result.train_accuracy == 0.0
    assert result.valid_code


def test_partially_right_program_gets_the_shaped_reward(verifier, arc1) -> None:
    """Right on train pairs 2-4, the input unchanged on pair 1 (the only one starting with 2, 2, 1)."""
    code = (
        "def transform(grid):\n"
        "    if grid[0] == [2, 2, 1]:\n"
        "        return grid\n"
        "    return [row[::-1] for row in grid[::-1]]\n"
    )
    task = arc1[ROT180]
    result = _verify(verifier, task, code)

    first = task.train[0]
    pixel = (
        sum(
            a == b
            for r1, r2 in zip(first.input, first.output, strict=True)
            for a, b in zip(r1, r2, strict=True)
        )
        / 9
    )
    assert [j.correct for j in result.train] == [False, True, True, True]
    assert result.train[0].pixel == pytest.approx(pixel)
    assert result.reward == pytest.approx(1 + 8 * 3 / 4 + (pixel + 3) / 4)
    assert "first difference at row 0" in result.train[0].detail


def test_programs_without_parsable_code_get_minus_one(verifier, arc1) -> None:
    task = arc1[ROT180]
    no_code, syntax_error = verifier.verify_batch(
        [
            (task, "The output is the input rotated."),
            (task, completion("def transform(grid:\n    return grid")),
        ]
    )

    assert no_code.reward == -1.0 and not no_code.format_ok and no_code.error.startswith("format failure")
    assert syntax_error.reward == -1.0 and syntax_error.format_ok and not syntax_error.compiled
    assert syntax_error.error.startswith("SyntaxError")
    assert not no_code.valid_code and not syntax_error.valid_code


@pytest.mark.parametrize(
    ("code", "error"),
    [
        ("def solve(grid):\n    return grid", "defines no function 'transform'"),
        ("raise ValueError('broken at import')\ndef transform(grid):\n    return grid", "ValueError"),
        ("import os\nos._exit(0)", "ended before its function was called"),
        ("while True:\n    pass", "GridTimeout"),
    ],
    ids=["no-function", "raises-on-load", "exits-on-load", "loops-on-load"],
)
def test_programs_that_never_reach_the_function_get_zero(verifier, arc1, code, error) -> None:
    result = _verify(verifier, arc1[ROT180], code)

    assert result.reward == 0.0 and result.compiled
    assert error in result.error
    assert {j.verdict for j in result.train} == {"not_run"}


def test_numpy_and_float_outputs_are_accepted(verifier, arc1) -> None:
    float_array = (
        "import numpy as np\ndef transform(grid):\n    return np.rot90(np.array(grid, dtype=float), 2)"
    )
    result = _verify(verifier, arc1[ROT180], float_array)

    assert result.reward == 10.0
    assert all(type(cell) is int for row in result.predictions[0] for cell in row)


def test_outputs_before_a_process_exit_still_count(verifier, arc1) -> None:
    code = (
        "import os\ncalls = []\n"
        "def transform(grid):\n"
        "    calls.append(1)\n"
        "    if len(calls) == 3:\n"
        "        os._exit(1)\n"
        "    return [row[::-1] for row in grid[::-1]]\n"
    )
    result = _verify(verifier, arc1[ROT180], code)

    assert [j.verdict for j in result.train] == ["passed", "passed", "not_run", "not_run"]
    assert result.reward == pytest.approx(1 + 8 * 0.5 + 0.5)


def test_prints_and_forged_markers_do_not_become_outputs(verifier, arc1) -> None:
    task = arc1[ROT180]
    forged = f'{RESULT_MARKER}{{"index": 0, "output": {task.train[0].output}}}'
    code = f"print({forged!r})\ndef transform(grid):\n    print({forged!r})\n    return grid"
    result = _verify(verifier, task, code)

    assert [j.verdict for j in result.train] == ["wrong_answer"] * 4
    assert result.reward == 1.0


def test_each_call_gets_a_fresh_input(verifier, arc1) -> None:
    """A program that mutates its argument cannot change what the next call receives."""
    code = (
        "seen = []\n"
        "def transform(grid):\n"
        "    seen.append([row[:] for row in grid])\n"
        "    grid[0][0] = 9\n"
        "    return [row[::-1] for row in seen[-1][::-1]]\n"
    )
    assert _verify(verifier, arc1[ROT180], code).reward == 10.0


def test_function_name_input_type_preamble_and_helper_module(verifier, arc1, tmp_path) -> None:
    """BARC's setup: ``main``-style names, numpy input, ``from common import *`` from a helper file."""
    (tmp_path / "common.py").write_text(
        "import numpy as np\n\ndef rotate_180(grid):\n    return np.rot90(grid, 2)\n"
    )
    config = ArcVerifierConfig.from_dict(
        {
            "execution": {
                "function_name": "main",
                "input_type": "numpy",
                "preamble": "import numpy as np\nfrom common import *",
                "helper": str(tmp_path / "common.py"),
                "timeout_s": 1.0,
            }
        }
    )
    code = "def main(input_grid):\n    assert input_grid.shape == (3, 3)\n    return rotate_180(input_grid)"
    with ArcVerifier(config, pool=verifier.pool) as barc:
        result = _verify(barc, arc1[ROT180], code)

    assert result.reward == 10.0, result.error


def test_helper_package_folder_is_importable(verifier, arc1, tmp_path) -> None:
    package = tmp_path / "dsl"
    (package / "ops").mkdir(parents=True)
    (package / "__init__.py").write_text("from .ops.turn import turn_around\n")
    (package / "ops" / "turn.py").write_text(
        "from ..flip import flip\n\ndef turn_around(grid):\n    return flip(grid)\n"
    )
    (package / "flip.py").write_text("def flip(grid):\n    return [row[::-1] for row in grid[::-1]]\n")
    config = ArcVerifierConfig.from_dict({"execution": {"helper": str(package)}})
    code = "import dsl\nfrom dsl.ops import turn\ndef transform(grid):\n    return turn.turn_around(grid)"
    with ArcVerifier(config, pool=verifier.pool) as with_dsl:
        result = _verify(with_dsl, arc1[ROT180], code)

    assert result.reward == 10.0, result.error


def test_binary_reward_mode(verifier, arc1) -> None:
    config = ArcVerifierConfig.from_dict({**VERIFIER_CONFIG, "reward": {"mode": "binary"}})
    task = arc1[ROT180]
    with ArcVerifier(config, pool=verifier.pool) as binary:
        right, wrong, none = binary.verify_batch(
            [
                (task, completion(CORRECT_PROGRAMS[ROT180])),
                (task, completion("def transform(g):\n    return g")),
                (task, ""),
            ]
        )

    assert (right.reward, wrong.reward, none.reward) == (1.0, 0.0, 0.0)


def test_unknown_test_outputs_leave_passed_unknown(verifier, arc1) -> None:
    task = arc1[ROT180]
    hidden = ArcTask(task.id, task.train, tuple(type(p)(p.input) for p in task.test))
    result = _verify(verifier, hidden, CORRECT_PROGRAMS[ROT180])

    assert result.reward == 10.0 and result.passed is None
    assert result.predictions == [task.test[0].output]
    assert result.outcome().test_correct_grids is None


def test_cancelled_programs_are_stopped_mid_run_or_never_started(arc1) -> None:
    """Every grid runs in one input: ``cancelled`` stops a looping ``transform`` while it runs (a
    60 s limit per grid would otherwise time it out) and keeps a waiting one from starting."""
    config = ArcVerifierConfig.from_dict({**VERIFIER_CONFIG, "execution": {"timeout_s": 60}})
    task = arc1[ROT180]
    looping = completion("def transform(grid):\n    while True:\n        pass")
    right = completion(CORRECT_PROGRAMS[ROT180])
    with ArcVerifier(config, workers=1) as verifier:
        started = time.monotonic()  # the loop has started well before; far below its limit
        stopped, waiting, kept = verifier.verify_batch(
            [(task, looping), (task, right), (task, right + "\n")],
            cancelled=lambda index: index == 1 or (index == 0 and time.monotonic() - started > 3),
        )
    for result in (stopped, waiting):
        assert (result.verdict, result.message) == (Verdict.NOT_RUN, CANCELLED_ERROR)
        assert [j.verdict for j in (*result.train, *result.test)] == [Verdict.NOT_RUN] * 5
    assert kept.passed is True
