from common import *

import numpy as np

# concepts: lines, matching colors
# description: A row whose two end pixels share a color is joined by a line of that color.


def main(input_grid):
    output_grid = np.copy(input_grid)
    width, height = input_grid.shape
    for y in range(height):
        left, right = input_grid[0, y], input_grid[width - 1, y]
        if left != Color.BLACK and left == right:
            draw_line(output_grid, 0, y, end_x=width - 1, end_y=y, color=left)
    return output_grid
