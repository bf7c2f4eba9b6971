"""ARC grids outside the sandbox: text formats for prompts, and comparisons for rewards and feedback.

A grid is a list of equally long rows of colors 0-9 (``grid_check.as_grid`` says exactly what is
accepted). Formats for prompts:

- ``digits``: one row per line, one digit per cell (``012``), the most compact;
- ``spaces``: one row per line, cells separated by spaces (``0 1 2``);
- ``json``: the grid as a JSON list of rows (``[[0,1,2]]``), one line;
- ``colors``: one row per line, cells as BARC's color names (``Black Blue Red``), the format
  BARC's induction models were trained on.
"""

from __future__ import annotations

import json
from typing import Literal

Grid = list[list[int]]
GridFormat = Literal["digits", "spaces", "json", "colors"]
GRID_FORMATS: tuple[GridFormat, ...] = ("digits", "spaces", "json", "colors")

# BARC's prompt colors (its ``COLOR_MAPPING`` after the Grey->Gray, Teal->Purple, Maroon->Brown fix).
BARC_COLOR_NAMES = ("Black", "Blue", "Red", "Green", "Yellow", "Gray", "Pink", "Orange", "Purple", "Brown")


def format_grid(grid: Grid, grid_format: GridFormat) -> str:
    """The text of ``grid`` in ``grid_format`` (no trailing newline).

    >>> format_grid([[0, 1], [2, 9]], "digits")
    '01\\n29'
    >>> format_grid([[0, 1], [2, 9]], "colors")
    'Black Blue\\nRed Brown'
    >>> format_grid([[0, 1], [2, 9]], "json")
    '[[0,1],[2,9]]'
    """
    if grid_format == "digits":
        return "\n".join("".join(str(cell) for cell in row) for row in grid)
    if grid_format == "spaces":
        return "\n".join(" ".join(str(cell) for cell in row) for row in grid)
    if grid_format == "json":
        return json.dumps(grid, separators=(",", ":"))
    if grid_format == "colors":
        return "\n".join(" ".join(BARC_COLOR_NAMES[cell] for cell in row) for row in grid)
    raise ValueError(f"unknown grid format {grid_format!r}; known: {', '.join(GRID_FORMATS)}")


def shape(grid: Grid) -> tuple[int, int]:
    """``(rows, columns)`` of a valid grid."""
    return len(grid), len(grid[0])


def pixel_accuracy(output: Grid, expected: Grid) -> float:
    """The fraction of cells equal to the expected ones; 0 when the shapes differ.

    >>> pixel_accuracy([[1, 2], [3, 4]], [[1, 2], [3, 0]])
    0.75
    >>> pixel_accuracy([[1, 2]], [[1], [2]])
    0.0
    """
    if shape(output) != shape(expected):
        return 0.0
    cells = sum(len(row) for row in expected)
    same = sum(
        a == b for got, want in zip(output, expected, strict=True) for a, b in zip(got, want, strict=True)
    )
    return same / cells


def overlap_similarity(output: Grid, expected: Grid) -> float:
    """arc25's pixel score: the fraction of equal cells for grids of one shape; otherwise the most
    equal cells of any placement of one grid over the other, divided by the area of the box
    holding both (``pixel_similarity_score`` in ironbar/arc25 ``arc25/metrics.py``).

    >>> overlap_similarity([[1, 2], [3, 4]], [[1, 2], [3, 0]])
    0.75
    >>> overlap_similarity([[1, 2]], [[1], [2]])
    0.25
    >>> overlap_similarity([[5, 1, 2]], [[1, 2]])
    0.6666666666666666
    """
    if shape(output) == shape(expected):
        return pixel_accuracy(output, expected)
    import numpy as np

    a, b = np.array(expected), np.array(output)
    (h1, w1), (h2, w2) = a.shape, b.shape
    best = 0
    for dy in range(-(h2 - 1), h1):
        for dx in range(-(w2 - 1), w1):
            top, bottom, left, right = max(0, dy), min(h1, h2 + dy), max(0, dx), min(w1, w2 + dx)
            window = a[top:bottom, left:right] == b[top - dy : bottom - dy, left - dx : right - dx]
            best = max(best, int(np.count_nonzero(window)))
    return best / (max(h1, h2) * max(w1, w2))


def describe_difference(output: Grid, expected: Grid) -> str:
    """Where ``output`` first differs from ``expected``, for a feedback message ("" when equal).

    >>> describe_difference([[1, 2], [3, 4]], [[1, 2], [3, 0]])
    'first difference at row 1, column 1: expected 0, got 4 (1 of 4 cells differ)'
    >>> describe_difference([[1, 2]], [[1], [2]])
    'expected a 2x1 grid, got 1x2'
    """
    if shape(output) != shape(expected):
        rows, columns = shape(expected)
        got_rows, got_columns = shape(output)
        return f"expected a {rows}x{columns} grid, got {got_rows}x{got_columns}"
    wrong = [
        (r, c, want, got)
        for r, (got_row, want_row) in enumerate(zip(output, expected, strict=True))
        for c, (got, want) in enumerate(zip(got_row, want_row, strict=True))
        if got != want
    ]
    if not wrong:
        return ""
    r, c, want, got = wrong[0]
    cells = sum(len(row) for row in expected)
    return (
        f"first difference at row {r}, column {c}: expected {want}, got {got} "
        f"({len(wrong)} of {cells} cells differ)"
    )
