"""Hand-written correct programs for real ARC-AGI-1 tasks, and completions that hold programs."""

from __future__ import annotations

from tests.nemo_rl.helpers import answer

# task id -> a program that solves it (checked against every train and test pair in the tests).
CORRECT_PROGRAMS = {
    # rotate by 180 degrees
    "3c9b0459": "import numpy as np\n\ndef transform(grid):\n    return np.rot90(np.array(grid), 2)\n",
    "6150a2bd": "def transform(grid):\n    return [row[::-1] for row in grid[::-1]]\n",
    # mirror left-right / up-down
    "67a3c6ac": "def transform(grid):\n    return [list(reversed(row)) for row in grid]\n",
    "68b16354": "def transform(grid):\n    return grid[::-1]\n",
    # transpose
    "74dd1130": "def transform(grid):\n    return [list(column) for column in zip(*grid)]\n",
    "9dfd6313": "import numpy as np\n\ndef transform(grid):\n    return np.array(grid).T\n",
    # repeat the grid beside itself
    "a416b8f3": "def transform(grid):\n    return [row + row for row in grid]\n",
    # recolor
    "c8f0f002": "def transform(grid):\n    return [[5 if cell == 7 else cell for cell in row] for row in grid]\n",
    "d511f180": "def transform(grid):\n    swap = {5: 8, 8: 5}\n    return [[swap.get(c, c) for c in row] for row in grid]\n",
    "b1948b0a": "def transform(grid):\n    return [[2 if c == 6 else c for c in row] for row in grid]\n",
    # shift everything down one row
    "25ff71a9": "def transform(grid):\n    return [[0] * len(grid[0])] + grid[:-1]\n",
    # cells set in both halves become red
    "0520fde7": (
        "def transform(grid):\n"
        "    return [[2 if row[c] == 1 and row[c + 4] == 1 else 0 for c in range(3)] for row in grid]\n"
    ),
}

# ARC-AGI-2 task 00576224 (in the NeMo Gym arc_agi fixture): tile 3x3, middle band mirrored.
TILE_00576224 = (
    "def transform(grid):\n"
    "    rows = [row * 3 for row in grid]\n"
    "    mirrored = [row[::-1] * 3 for row in grid]\n"
    "    return rows + mirrored + rows\n"
)


def completion(code: str) -> str:
    """A completion as a BARC-style model writes it: some prose, then the program."""
    return "Let's solve this puzzle using Python code.\n" + answer(code)
