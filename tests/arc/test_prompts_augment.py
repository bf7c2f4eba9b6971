"""Prompts (BARC's format, the plain one, token-length filtering) and task augmentation."""

from __future__ import annotations

import random

import pytest

from nemo_code_rl.arc.augment import DIHEDRAL_NAMES, Augmentation, dihedral, random_augmentation
from nemo_code_rl.arc.prompts import (
    BARC_SYSTEM_PROMPT,
    PromptConfig,
    build_messages,
    filter_by_prompt_tokens,
    prompt_tokens,
)
from nemo_code_rl.arc.scoring import score_arc
from nemo_code_rl.arc.task import ArcPair, ArcTask, task_from_row
from nemo_code_rl.config_keys import ConfigError
from nemo_code_rl.results_files import number_completions

from .programs import CORRECT_PROGRAMS, completion

TINY = task_from_row(
    {
        "id": "tiny",
        "train": [{"input": [[0, 1]], "output": [[1, 0]]}, {"input": [[2], [3]], "output": [[3], [2]]}],
        "test": [{"input": [[7, 8]], "output": [[8, 7]]}, {"input": [[9]]}],
    }
)


def test_barc_prompt_is_the_format_barc_models_were_trained_on() -> None:
    """BARC's gen_dataset.py: color names, a blank line after every grid, all test inputs last."""
    system, user = build_messages(TINY, PromptConfig(template="barc"))

    assert system == {"role": "system", "content": BARC_SYSTEM_PROMPT}
    assert user["role"] == "user"
    assert user["content"] == (
        "The following is a puzzle from the ARC dataset. Given training examples of input and output grids, "
        "predict the output grid for the test inputs.\n"
        "Each grid is represented as a 2D array where each cell is represented by an color. The grid input and "
        "output are written as a string where each cell is separated by a space and each row is separated by a "
        "newline.\n"
        "Here are the input and output grids for the training examples:\n"
        "Input:\nBlack Blue\n\nOutput:\nBlue Black\n\n\n"
        "Input:\nRed\nGreen\n\nOutput:\nGreen\nRed\n\n\n"
        "Here are the input grids for the test example:\n"
        "Input:\nOrange Purple\n\nBrown\n"
    )


@pytest.mark.parametrize(
    ("grid_format", "rendered"),
    [("digits", "01"), ("spaces", "0 1"), ("json", "[[0,1]]"), ("colors", "Black Blue")],
)
def test_plain_prompt_in_every_grid_format(grid_format, rendered) -> None:
    config = PromptConfig(template="plain", grid_format=grid_format, function_name="solve")
    _system, user = build_messages(TINY, config)

    assert f"Example 1\nInput:\n{rendered}\n" in user["content"]
    assert "Test input 2:" in user["content"] and "`solve(grid)`" in user["content"]
    assert "8 7" not in user["content"] and "87" not in user["content"]  # no test output in the prompt
    assert build_messages(TINY, PromptConfig(system_prompt=""))[0]["role"] == "user"


def test_prompt_config_is_strict() -> None:
    with pytest.raises(ConfigError, match="did you mean 'grid_format'"):
        PromptConfig.from_dict({"grid_fromat": "digits"})
    with pytest.raises(ConfigError, match="grid_format"):
        PromptConfig(grid_format="hex")


def test_filtering_by_prompt_tokens(tokenizer, arc1) -> None:
    tasks = [arc1[task_id] for task_id in ("3c9b0459", "a416b8f3", "05a7bcf2", "1e0a9b12")]
    config = PromptConfig(template="barc")
    counts = {task.id: prompt_tokens(task, config, tokenizer) for task in tasks}
    limit = sorted(counts.values())[1] + 1

    kept, dropped = filter_by_prompt_tokens(tasks, config, tokenizer, limit)
    assert [t.id for t in kept] == [t.id for t in tasks if counts[t.id] < limit]
    assert sorted(dropped) == sorted(t.id for t in tasks if counts[t.id] >= limit)
    assert len(kept) == 2


def test_dihedral_group_and_inverses() -> None:
    grid = [[0, 1, 2], [3, 4, 5]]
    images = [dihedral(grid, k) for k in range(len(DIHEDRAL_NAMES))]
    assert len({str(image) for image in images}) == 8
    colors = (0, 3, 1, 2, 9, 8, 7, 6, 5, 4)
    for k in range(8):
        augmentation = Augmentation(k, colors)
        assert augmentation.invert(augmentation.apply(grid)) == grid
    assert Augmentation().apply(grid) == grid and Augmentation().invert(grid) == grid
    with pytest.raises(ValueError):
        Augmentation(8)
    with pytest.raises(ValueError):
        Augmentation(0, (0, 0, 1, 2, 3, 4, 5, 6, 7, 8))


def test_augmenting_a_task_keeps_its_rule_and_unknown_outputs() -> None:
    augmentation = random_augmentation(random.Random(3))
    augmented = augmentation.apply_task(TINY)

    assert augmentation.colors[0] == 0
    assert augmented.test[1].output is None
    assert augmented.train[0] == ArcPair(augmentation.apply([[0, 1]]), augmentation.apply([[1, 0]]))
    assert Augmentation.from_dict(augmentation.to_dict()) == augmentation


def test_predictions_on_augmented_views_map_back_to_the_task(verifier, arc1) -> None:
    """Rotating by 180 degrees commutes with every symmetry and recoloring, so the same program
    solves every view; its predictions, mapped back, are the task's own test outputs."""
    task: ArcTask = arc1["3c9b0459"]
    rng = random.Random(0)
    views = [None, *(random_augmentation(rng, keep_background=False) for _ in range(5))]
    completions = number_completions(
        [{"id": task.id, "completion": completion(CORRECT_PROGRAMS[task.id])}] * 6
    )

    rows = score_arc([task], completions, verifier, augmentations=views)

    assert [row["reward"] for row in rows] == [10.0] * 6
    assert all(row["predictions"] == [task.test[0].output] for row in rows)
    assert all(row["passed"] for row in rows)
