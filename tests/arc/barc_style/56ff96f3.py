from common import *

import numpy as np

# concepts: rectangles, corners
# description: Two pixels of the same color are opposite corners of a rectangle filled with that color.


def main(input_grid):
    output_grid = np.copy(input_grid)
    for color in Color.NOT_BLACK:
        corners = np.where(input_grid == color, color, Color.BLACK)
        if np.count_nonzero(corners) == 2:
            output_grid[bounding_box_mask(corners, background=Color.BLACK)] = color
    return output_grid
