"""Task augmentation: the 8 symmetries of the square and color permutations, and their inverses.

An ARC rule seen rotated, mirrored or recolored is still one rule, so training on transformed
copies of a task multiplies the data; at evaluation the same transforms give several views of a
task whose predictions can vote. A transform is applied to every grid of a task alike, and a
prediction made on the transformed task is mapped back with ``Augmentation.invert``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nemo_code_rl.arc.grids import Grid
from nemo_code_rl.arc.task import ArcPair, ArcTask

IDENTITY_COLORS = tuple(range(10))
# Transform k rotates the grid clockwise k % 4 times, after transposing it when k >= 4.
DIHEDRAL_NAMES = (
    "identity", "rot90", "rot180", "rot270", "transpose", "flip_left_right", "anti_transpose", "flip_up_down",
)  # fmt: skip


def _rotate(grid: Grid) -> Grid:
    return [list(row) for row in zip(*grid[::-1], strict=True)]


def _transpose(grid: Grid) -> Grid:
    return [list(row) for row in zip(*grid, strict=True)]


def dihedral(grid: Grid, k: int) -> Grid:
    """``grid`` under symmetry ``k`` (0-7) of the square.

    >>> dihedral([[1, 2], [3, 4]], 1)
    [[3, 1], [4, 2]]
    >>> dihedral([[1, 2], [3, 4]], 4)
    [[1, 3], [2, 4]]
    """
    if not 0 <= k < len(DIHEDRAL_NAMES):
        raise ValueError(f"dihedral transform must be 0-7, got {k}")
    result = _transpose(grid) if k >= 4 else [list(row) for row in grid]
    for _ in range(k % 4):
        result = _rotate(result)
    return result


def _inverse_table() -> tuple[int, ...]:
    """For each symmetry, the one that undoes it (found on a grid with no symmetry of its own)."""
    probe = [[0, 1, 2], [3, 4, 5]]
    return tuple(next(j for j in range(8) if dihedral(dihedral(probe, k), j) == probe) for k in range(8))


DIHEDRAL_INVERSE = _inverse_table()


@dataclass(frozen=True)
class Augmentation:
    """A symmetry of the square followed by a recoloring.

    Attributes:
        dihedral: the symmetry, 0-7 (see ``DIHEDRAL_NAMES``).
        colors: ``colors[c]`` is the new color of color ``c``; a permutation of 0-9.
    """

    dihedral: int = 0
    colors: tuple[int, ...] = field(default=IDENTITY_COLORS)

    def __post_init__(self) -> None:
        if isinstance(self.dihedral, bool) or self.dihedral not in range(8):
            raise ValueError(f"dihedral must be 0-7, got {self.dihedral!r}")
        if sorted(self.colors) != list(IDENTITY_COLORS):
            raise ValueError(f"colors must be a permutation of 0-9, got {list(self.colors)}")
        object.__setattr__(self, "colors", tuple(self.colors))

    def apply(self, grid: Grid) -> Grid:
        """``grid`` transformed.

        >>> Augmentation(2, (1, 0, 2, 3, 4, 5, 6, 7, 8, 9)).apply([[0, 1], [2, 3]])
        [[3, 2], [0, 1]]
        """
        return [[self.colors[cell] for cell in row] for row in dihedral(grid, self.dihedral)]

    def invert(self, grid: Grid) -> Grid:
        """The grid whose transform is ``grid``: maps a prediction back to the original task.

        >>> augmentation = Augmentation(5, (3, 1, 2, 0, 4, 5, 6, 7, 8, 9))
        >>> augmentation.invert(augmentation.apply([[0, 1, 2], [3, 4, 5]]))
        [[0, 1, 2], [3, 4, 5]]
        """
        back = {new: old for old, new in enumerate(self.colors)}
        return dihedral([[back[cell] for cell in row] for row in grid], DIHEDRAL_INVERSE[self.dihedral])

    def apply_task(self, task: ArcTask) -> ArcTask:
        """Every grid of ``task`` transformed alike (unknown test outputs stay unknown)."""
        return ArcTask(
            task.id,
            tuple(self._pair(pair) for pair in task.train),
            tuple(self._pair(pair) for pair in task.test),
        )

    def to_dict(self) -> dict[str, Any]:
        return {"dihedral": self.dihedral, "colors": list(self.colors)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Augmentation:
        return cls(int(data.get("dihedral", 0)), tuple(data.get("colors", IDENTITY_COLORS)))

    def _pair(self, pair: ArcPair) -> ArcPair:
        return ArcPair(self.apply(pair.input), None if pair.output is None else self.apply(pair.output))


def random_augmentation(rng: random.Random, *, keep_background: bool = True) -> Augmentation:
    """A random symmetry and color permutation; color 0 (the usual background) stays put by default."""
    movable = list(range(1, 10)) if keep_background else list(range(10))
    shuffled = movable[:]
    rng.shuffle(shuffled)
    colors = list(IDENTITY_COLORS)
    for old, new in zip(movable, shuffled, strict=True):
        colors[old] = new
    return Augmentation(rng.randrange(8), tuple(colors))
