from common import *

import numpy as np

# concepts: gravity
# description: Every colored pixel falls to the bottom of its column.


def main(input_grid):
    width, height = input_grid.shape
    output_grid = np.full_like(input_grid, Color.BACKGROUND)
    for x in range(width):
        colors = [c for c in input_grid[x, :] if c != Color.BLACK]
        for i, c in enumerate(reversed(colors)):
            output_grid[x, height - 1 - i] = c
    return output_grid
