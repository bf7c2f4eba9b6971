"""The reward of one ARC program, from how it did on the task's train pairs.

``shaped`` (the default) is the reward ARC induction work trains BARC models with today:

- ``no_code`` (-1) when no program could be parsed (no code block, or code that does not compile);
- ``no_valid_output`` (0) when no train output is a valid grid;
- ``valid_output`` (1) when some train outputs are valid grids but none is correct;
- otherwise ``valid_output + correct_weight * fraction_of_correct_train_grids +
  pixel_weight * mean_train_pixel_accuracy`` (pixel accuracy 0 where the shape differs), so a
  program right on every train pair scores 1 + 8 + 1 = 10.

``binary`` is 1 for a program right on every train pair, 0 otherwise. Test outputs never enter
the reward: they are what the program is evaluated on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from nemo_code_rl.config_keys import ConfigError, check_keys

ARC_REWARD_VERSION = "arc-1"
ArcRewardMode = Literal["shaped", "binary"]


@dataclass(frozen=True)
class ArcRewardConfig:
    """The reward mode and, for ``shaped``, its levels and weights (see the module doc)."""

    mode: ArcRewardMode = "shaped"
    no_code: float = -1.0
    no_valid_output: float = 0.0
    valid_output: float = 1.0
    correct_weight: float = 8.0
    pixel_weight: float = 1.0

    def __post_init__(self) -> None:
        if self.mode not in ("shaped", "binary"):
            raise ConfigError(f"reward mode must be 'shaped' or 'binary', got {self.mode!r}")
        for f in fields(self)[1:]:
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"reward.{f.name} must be a number, got {value!r}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, where: str = "reward") -> ArcRewardConfig:
        data = dict(data or {})
        check_keys(data, [f.name for f in fields(cls)], where)
        return cls(**data)


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
