from common import *

import numpy as np

# concepts: dripping, lines
# description: Every colored pixel drips its color straight down to the bottom of the grid.


def main(input_grid):
    output_grid = np.copy(input_grid)
    width, height = input_grid.shape
    columns = randomly_spaced_indices(width, width, border_size=0, padding=0)  # every column
    for x in columns:
        for y in range(height):
            if input_grid[x, y] != Color.BLACK:
                draw_line(output_grid, x, y, direction=(0, 1), color=input_grid[x, y])
    return output_grid
