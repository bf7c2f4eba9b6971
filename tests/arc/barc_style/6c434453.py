from common import *

import numpy as np

# concepts: shape matching, replacement
# description: Every hollow 3x3 blue square becomes a red plus.


def main(input_grid):
    ring = np.array([[1, 1, 1], [1, 0, 1], [1, 1, 1]])
    plus = np.array([[0, 2, 0], [2, 2, 2], [0, 2, 0]])
    output_grid = np.copy(input_grid)
    for obj in detect_objects(
        input_grid,
        colors=[Color.BLUE],
        connectivity=4,
        monochromatic=True,
        background=Color.BLACK,
        predicate=lambda sprite: sprite.shape == (3, 3) and np.array_equal(sprite, ring),
    ):
        x, y = object_position(obj, background=Color.BLACK)
        output_grid[x : x + 3, y : y + 3] = Color.BLACK
        blit_sprite(output_grid, plus, x, y, background=Color.BLACK)
    return output_grid
