from common import *

import numpy as np

# concepts: translational symmetry, repetition
# description: The output is the input repeated twice side by side.


def main(input_grid):
    width, height = input_grid.shape
    output_grid = np.zeros((2 * width, height), dtype=int)
    symmetry = TranslationalSymmetry(translate_x=width, translate_y=0)
    for x, y in np.argwhere(input_grid != Color.BLACK):
        for x2, y2 in orbit(output_grid, x, y, [symmetry]):
            output_grid[x2, y2] = input_grid[x, y]
    return output_grid
