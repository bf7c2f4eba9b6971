from common import *

import numpy as np

# concepts: pixel expansion
# description: Every grey pixel becomes a 3x3 blue square centered on it.


def main(input_grid):
    output_grid = np.zeros_like(input_grid)
    square = random_sprite(3, 3, density=1, color_palette=[Color.BLUE])  # a full sprite: a solid square
    for x, y in np.argwhere(input_grid == Color.GREY):
        blit_sprite(output_grid, square, x - 1, y - 1, background=Color.BLACK)
    return output_grid
