"""BARC-style programs run out of the box, helper libraries of every shape import, and every
ARC result says what became of the program and why."""

from __future__ import annotations

from pathlib import Path

import pytest

from nemo_code_rl.arc import barc_common
from nemo_code_rl.arc.execution import ArcExecutionConfig
from nemo_code_rl.arc.scoring import score_arc
from nemo_code_rl.arc.verifier import ArcVerifier, ArcVerifierConfig
from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.environments.arc_config import ArcEnvConfig
from nemo_code_rl.results_files import Completion

from .programs import completion

BARC_STYLE = Path(__file__).parent / "barc_style"
ROT180 = "3c9b0459"

# The helpers BARC's prompt lists for the model (every public function and class of its library).
BARC_PROMPT_API = [
    "Color",
    "flood_fill",
    "draw_line",
    "find_connected_components",
    "randomly_scatter_points",
    "scale_pattern",
    "scale_sprite",
    "blit",
    "blit_object",
    "blit_sprite",
    "bounding_box",
    "bounding_box_mask",
    "object_position",
    "object_colors",
    "crop",
    "translate",
    "collision",
    "contact",
    "randomly_spaced_indices",
    "check_between_objects",
    "random_free_location_for_sprite",
    "object_interior",
    "object_boundary",
    "object_neighbors",
    "Symmetry",
    "orbit",
    "TranslationalSymmetry",
    "detect_translational_symmetry",
    "MirrorSymmetry",
    "detect_mirror_symmetry",
    "detect_rotational_symmetry",
    "is_contiguous",
    "random_sprite",
    "detect_objects",
]


def test_the_library_defines_every_helper_barcs_prompt_advertises() -> None:
    missing = [name for name in BARC_PROMPT_API if not hasattr(barc_common, name)]
    assert not missing
    used = " ".join(p.read_text() for p in BARC_STYLE.glob("*.py"))
    assert [name for name in BARC_PROMPT_API if name not in used and name != "Symmetry"] == []


def test_barc_style_programs_solve_their_tasks_with_no_helper_configured(verifier, arc1) -> None:
    """30 programs written from BARC's API listing (``main``, ``from common import *``, grids as
    BARC's ``[x, y]`` numpy arrays), scored exactly as a BARC model's answer is: no flag."""
    programs = sorted(BARC_STYLE.glob("*.py"))
    assert len(programs) >= 20
    items = [(arc1[p.stem], completion(p.read_text() + "\ntransform = main\n")) for p in programs]
    results = verifier.verify_batch(items)

    failures = {
        task.id: (result.verdict, result.message) for (task, _), result in zip(items, results, strict=True)
    }
    solved = {task_id for task_id, (verdict, _) in failures.items() if verdict == "passed"}
    assert solved == set(failures), {k: v for k, v in failures.items() if k not in solved}
    assert all(r.reward == 10.0 and r.passed for r in results)


def test_auto_input_gives_lists_to_plain_programs_and_barc_arrays_to_common_users(verifier, arc1) -> None:
    task = arc1["6d0aefbc"]  # 3x3 -> 3x6: each row followed by its mirror
    width, height = len(task.train[0].input[0]), len(task.train[0].input)
    probe = (
        "def transform(grid):\n    assert type(grid) is list\n    return [row + row[::-1] for row in grid]"
    )
    barc = (
        "from common import *\n"
        "def transform(grid):\n"
        f"    assert grid.shape == ({width}, {height})  # [x, y]: width first\n"
        "    return np.concatenate([grid, grid[::-1, :]], axis=0)\n"
    )
    plain, with_common = verifier.verify_batch([(task, completion(probe)), (task, completion(barc))])

    assert plain.verdict == "passed" and with_common.verdict == "passed", (plain.message, with_common.message)


def test_explicit_barc_input_type_transposes_without_common(verifier, arc1) -> None:
    config = ArcVerifierConfig.from_dict({"execution": {"input_type": "barc", "timeout_s": 1.0}})
    code = "def transform(grid):\n    return grid[:, ::-1]"  # BARC's y is the row: upside down
    with ArcVerifier(config, pool=verifier.pool) as barc:
        [result] = barc.verify_batch([(arc1["68b16354"], completion(code))])

    assert result.verdict == "passed", result.message


def test_a_folder_of_modules_imports_as_top_level_modules(verifier, arc1, tmp_path) -> None:
    """arc-dsl's layout: dsl.py does ``from arc_types import *`` and ``from constants import *``."""
    folder = tmp_path / "arc-dsl"
    folder.mkdir()
    (folder / "arc_types.py").write_text("from typing import Tuple\nGrid = Tuple[Tuple[int]]\n")
    (folder / "constants.py").write_text("ZERO = 0\n")
    (folder / "dsl.py").write_text(
        "from arc_types import *\nfrom constants import *\n\n"
        "def rot180(grid: Grid) -> Grid:\n    return tuple(tuple(row[::-1]) for row in grid[::-1])\n"
    )
    config = ArcVerifierConfig.from_dict({"execution": {"helper": str(folder)}})
    code = "from dsl import *\ndef transform(grid):\n    return rot180(tuple(map(tuple, grid)))"
    with ArcVerifier(config, pool=verifier.pool) as with_dsl:
        [result] = with_dsl.verify_batch([(arc1[ROT180], completion(code))])
        [without_common] = with_dsl.verify_batch(
            [(arc1[ROT180], completion("from common import *\ndef transform(grid):\n    return grid"))]
        )

    assert result.verdict == "passed", result.message
    # a configured helper replaces ours
    assert without_common.verdict == "missing_module" and "common" in without_common.message


def test_a_missing_helper_library_is_a_config_error(tmp_path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        ArcExecutionConfig(helper=str(tmp_path / "barc" / "common.py"))
    with pytest.raises(ConfigError, match="does not exist"):
        ArcEnvConfig.from_dict({"execution": {"helper": "no/such/common.py"}})


@pytest.mark.parametrize(
    ("code", "verdict", "message"),
    [
        ("import no_such_module\ndef transform(grid):\n    return grid", "missing_module", "no_such_module"),
        ("def transform(grid):\n    import no_such_module", "missing_module", "train 1: ModuleNotFoundError"),
        ("def transform(grid):\n    return grid[99]", "runtime_error", "train 1: IndexError: list index"),
        ("def transform(grid):\n    while True:\n        pass", "timeout", "train 1: time limit"),
        (
            "def transform(grid):\n    return [[1, 2], [3]]",
            "invalid_output",
            "row 1 has 1 cells, row 0 has 2",
        ),
        ("def transform(grid:\n    return grid", "syntax_error", "SyntaxError"),
        ("The answer is a rotation.", "no_code", "format failure"),
        ("def transform(grid):\n    return grid", "wrong_answer", "train 1: first difference at row 0"),
        ("import numpy as np\ndef transform(grid):\n    return np.rot90(grid, 2)", "passed", ""),
    ],
    ids=[
        "missing-module",
        "missing-module-late",
        "crash",
        "timeout",
        "ragged",
        "syntax",
        "no-code",
        "wrong",
        "right",
    ],
)
def test_every_result_row_has_a_verdict_and_a_reason(verifier, arc1, code, verdict, message) -> None:
    text = code if code.startswith("The answer") else completion(code)
    [row] = score_arc([arc1[ROT180]], [Completion(ROT180, text, 0, 0)], verifier)

    assert row["verdict"] == verdict
    assert message in row["message"]
    assert not message or row["message"]


def test_helper_folders_need_a_module(tmp_path) -> None:
    from nemo_code_rl.arc.execution import load_helper

    with pytest.raises(FileNotFoundError, match=r"no .py module"):
        load_helper(tmp_path)
    assert set(load_helper(None)) == {"common"}


def test_the_trl_reward_takes_a_helper_folder(verifier, arc1, tmp_path) -> None:
    from nemo_code_rl.arc.dataset import ArcDatum
    from nemo_code_rl.integrations.trl import ArcProgramReward, arc_trl_rows

    (tmp_path / "turns.py").write_text("def rot180(g):\n    return [row[::-1] for row in g[::-1]]\n")
    row = arc_trl_rows([ArcDatum(arc1[ROT180])])[0]
    code = completion("from turns import rot180\ndef transform(grid):\n    return rot180(grid)")
    with ArcProgramReward({"execution": {"helper": str(tmp_path)}}, pool=verifier.pool) as reward:
        rewards = reward([code], **{key: [value] for key, value in row.items()})

    assert rewards == [10.0]
