from common import *

import numpy as np

# concepts: topology, filling enclosed regions
# description: Black regions enclosed by red walls are filled with blue.


def main(input_grid):
    output_grid = np.copy(input_grid)
    width, height = input_grid.shape
    outside = np.copy(input_grid)
    marker = 42
    for x in range(width):
        for y in range(height):
            on_border = x in (0, width - 1) or y in (0, height - 1)
            if on_border and outside[x, y] == Color.BLACK:
                flood_fill(outside, x, y, marker, connectivity=4)
    output_grid[outside == Color.BLACK] = Color.BLUE
    return output_grid
