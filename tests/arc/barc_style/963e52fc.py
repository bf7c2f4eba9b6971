from common import *

import numpy as np

# concepts: translational symmetry, extension
# description: The repeating band is continued to a grid twice as wide.


def main(input_grid):
    width, height = input_grid.shape
    symmetries = detect_translational_symmetry(input_grid, ignore_colors=[], background=Color.BLACK)
    output_grid = np.zeros((2 * width, height), dtype=int)
    for x, y in np.argwhere(input_grid != Color.BLACK):
        for x2, y2 in orbit(output_grid, x, y, symmetries):
            output_grid[x2, y2] = input_grid[x, y]
    return output_grid
