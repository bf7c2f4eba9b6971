from common import *

import numpy as np

# concepts: surrounding, neighbors
# description: Every red pixel gets a ring of blue pixels around it (its 8 neighbors).


def main(input_grid):
    output_grid = np.copy(input_grid)
    for x, y in np.argwhere(input_grid == Color.RED):
        pixel = np.full_like(input_grid, Color.BLACK)
        pixel[x, y] = Color.RED
        ring = object_neighbors(pixel, background=Color.BLACK, connectivity=8)
        output_grid[ring & (output_grid == Color.BLACK)] = Color.BLUE
    return output_grid
