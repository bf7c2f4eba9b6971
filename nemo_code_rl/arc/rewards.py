"""The reward of one ARC program, from how it did on the task's train pairs.

``shaped`` (the default) is the reward ARC induction work trains BARC models with today:

- ``no_code`` (-1) when no program could be parsed (no code block, or code that does not compile);
- ``no_valid_output`` (0) when no train output is a valid grid;
- ``valid_output`` (1) when some train outputs are valid grids but none is correct;
- otherwise ``valid_output + correct_weight * fraction_of_correct_train_grids +
  pixel_weight * mean_train_pixel_accuracy`` (pixel accuracy 0 where the shape differs), so a
  program right on every train pair scores 1 + 8 + 1 = 10.

``binary`` is 1 for a program right on every train pair, 0 otherwise. In these two modes test
outputs never enter the reward: they are what the program is evaluated on.

``arc25`` reproduces the reward of ironbar/arc25 (``_individual_arc_reward`` with
``reward_name="arc-v1"`` in ``scripts/rl_code_finetuning.py`` at commit
54e6eda60148bcf241c23d6b488401680f4dae4c, with ``get_metrics`` and ``pixel_similarity_score``
of ``arc25/metrics.py`` at 36f414c6624dd0b63a3d9200c02147a4894835ec): 0 unless the program
returns a valid grid for every train *and test* input; otherwise ``1 + 8 * correct_grids +
pixel_score``, both averaged over the train and test grids together (weighted by their counts; a
test partition without known outputs counts as 0 in the numerator and still in the
denominator, as there), the pixel score being arc25's best-overlap similarity
(``grids.overlap_similarity``). So an all-wrong but valid program gets ``1 + pixel_score`` (1.61
where ours gives a flat 1). Validity is ours (``grid_check.as_grid``); arc25 also accepts sides
of 31-35 cells and truncates fractional cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Literal

from nemo_code_rl.config_keys import ConfigError, ConfigSection, config_section

ARC_REWARD_VERSION = "arc-1"
ArcRewardMode = Literal["shaped", "binary", "arc25"]
ARC_REWARD_MODES = ("shaped", "binary", "arc25")


@config_section
class ArcRewardConfig(ConfigSection):
    """The reward mode and, for ``shaped``, its levels and weights (see the module doc; ``arc25``
    uses its own fixed levels)."""

    WHERE = "reward"

    mode: ArcRewardMode = "shaped"
    no_code: float = -1.0
    no_valid_output: float = 0.0
    valid_output: float = 1.0
    correct_weight: float = 8.0
    pixel_weight: float = 1.0

    def __post_init__(self) -> None:
        if self.mode not in ARC_REWARD_MODES:
            raise ConfigError(f"reward mode must be one of {', '.join(ARC_REWARD_MODES)}; got {self.mode!r}")
        for f in fields(self)[1:]:
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"reward.{f.name} must be a number, got {value!r}")


def arc_reward(
    has_program: bool,
    train_valid: Sequence[bool],
    train_correct: Sequence[bool],
    train_pixel: Sequence[float],
    config: ArcRewardConfig | None = None,
) -> float:
    """The reward of one program (see the module doc).

    Args:
        has_program: code was found and compiles.
        train_valid / train_correct / train_pixel: per train pair, whether the output is a valid
            grid, whether it is exactly right, and its pixel accuracy (0 for an invalid output).

    >>> arc_reward(False, [], [], [])
    -1.0
    >>> arc_reward(True, [False, False], [False, False], [0.0, 0.0])
    0.0
    >>> arc_reward(True, [True, False], [False, False], [0.5, 0.0])
    1.0
    >>> arc_reward(True, [True, True], [True, False], [1.0, 0.5])
    5.75
    >>> arc_reward(True, [True, True], [True, True], [1.0, 1.0])
    10.0
    """
    config = config or ArcRewardConfig()
    if config.mode == "binary":
        return 1.0 if has_program and train_correct and all(train_correct) else 0.0
    if not has_program:
        return float(config.no_code)
    if not any(train_valid):
        return float(config.no_valid_output)
    if not any(train_correct):
        return float(config.valid_output)
    correct = sum(train_correct) / len(train_correct)
    pixel = sum(train_pixel) / len(train_pixel)
    return float(config.valid_output + config.correct_weight * correct + config.pixel_weight * pixel)


def arc25_reward(
    all_outputs_valid: bool,
    train_correct: Sequence[bool],
    train_similarity: Sequence[float],
    test_correct: Sequence[bool] | None,
    test_similarity: Sequence[float] | None,
    n_test: int,
) -> float:
    """arc25's ``arc-v1`` reward (see the module doc).

    Args:
        all_outputs_valid: code was found and returned a valid grid for every train and test input.
        train_correct / train_similarity: per train pair, exactly right, and arc25's pixel score.
        test_correct / test_similarity: the same per test pair; ``None`` when test outputs are unknown.
        n_test: the number of test inputs.

    >>> arc25_reward(False, [], [], None, None, 1)
    0.0
    >>> round(arc25_reward(True, [False, False], [0.5, 0.7], [False], [0.63], 1), 6)  # valid, all wrong
    1.61
    >>> arc25_reward(True, [True, True], [1.0, 1.0], [True], [1.0], 1)
    10.0
    """
    if not all_outputs_valid:
        return 0.0
    n_train = len(train_correct)
    total = n_train + n_test
    test_grids = _mean(test_correct) if test_correct is not None else 0.0
    test_pixel = _mean(test_similarity) if test_similarity is not None else 0.0
    correct_grids = (_mean(train_correct) * n_train + test_grids * n_test) / total
    pixel_score = (_mean(train_similarity) * n_train + test_pixel * n_test) / total
    return 1.0 + 8 * correct_grids + pixel_score


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
