from common import *

import numpy as np

# concepts: mirror symmetry
# description: The pattern is followed by its own mirror image to its right.


def main(input_grid):
    width, height = input_grid.shape
    output_grid = np.zeros((2 * width, height), dtype=int)
    output_grid[:width, :] = input_grid
    mirror = MirrorSymmetry(mirror_x=width - 0.5, mirror_y=None)
    for x in range(width):
        for y in range(height):
            x2, y2 = mirror.apply(x, y)
            output_grid[x2, y2] = input_grid[x, y]
    return output_grid
