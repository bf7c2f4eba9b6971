from common import *

import numpy as np

# concepts: betweenness
# description: A black pixel between two horizontally adjacent-but-one blue pixels turns red.


def main(input_grid):
    output_grid = np.copy(input_grid)
    width, height = input_grid.shape
    for x in range(1, width - 1):
        for y in range(height):
            if input_grid[x, y] != Color.BLACK:
                continue
            left = np.zeros_like(input_grid)
            right = np.zeros_like(input_grid)
            if input_grid[x - 1, y] == Color.BLUE and input_grid[x + 1, y] == Color.BLUE:
                left[x - 1, y] = Color.BLUE
                right[x + 1, y] = Color.BLUE
                if check_between_objects(left, right, x, y, padding=0, background=Color.BLACK):
                    output_grid[x, y] = Color.RED
    return output_grid
