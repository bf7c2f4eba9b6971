from common import *

import numpy as np

# concepts: sliding, collision
# description: Each red bar slides up until it hits the blue shape.


def main(input_grid):
    blue = np.where(input_grid == Color.BLUE, Color.BLUE, Color.BLACK)
    output_grid = np.copy(blue)
    for x in sorted(set(np.argwhere(input_grid == Color.RED)[:, 0])):
        red = np.zeros_like(input_grid)
        red[x, :] = np.where(input_grid[x, :] == Color.RED, Color.RED, Color.BLACK)
        dy = 0
        while not collision(object1=blue, object2=red, x2=0, y2=dy - 1) and object_position(red)[1] + dy > 0:
            dy -= 1
        blit_object(output_grid, translate(red, 0, dy), background=Color.BLACK)
    return output_grid
