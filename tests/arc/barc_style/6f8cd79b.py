from common import *

import numpy as np

# concepts: borders
# description: The output is the input canvas with a teal border.


def main(input_grid):
    output_grid = np.copy(input_grid)
    randomly_scatter_points(output_grid, color=Color.TEAL, density=1.0, background=Color.BLACK)
    width, height = output_grid.shape
    if width > 2 and height > 2:
        blit(output_grid, np.zeros((width - 2, height - 2), dtype=int), 1, 1)
    return output_grid
