from common import *

import numpy as np

# concepts: attraction
# description: The green pixel takes one step toward the yellow pixel.


def main(input_grid):
    green = np.where(input_grid == Color.GREEN, Color.GREEN, Color.BLACK)
    yellow = np.where(input_grid == Color.YELLOW, Color.YELLOW, Color.BLACK)
    gx, gy = object_position(green, background=Color.BLACK, anchor="upper left")
    yx, yy = object_position(yellow, background=Color.BLACK, anchor="center")
    output_grid = np.copy(input_grid)
    output_grid[gx, gy] = Color.BLACK
    output_grid[gx + int(np.sign(yx - gx)), gy + int(np.sign(yy - gy))] = Color.GREEN
    return output_grid
