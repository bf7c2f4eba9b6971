from common import *

import numpy as np

# concepts: rotational symmetry, completion
# description: The blue shape has fourfold rotational symmetry with a part missing; draw the missing part in red.


def main(input_grid):
    output_grid = np.copy(input_grid)
    symmetry = detect_rotational_symmetry(input_grid, ignore_colors=[Color.BLACK])
    for x, y in np.argwhere(input_grid == Color.BLUE):
        for x2, y2 in orbit(input_grid, x, y, [symmetry]):
            if output_grid[x2, y2] == Color.BLACK:
                output_grid[x2, y2] = Color.RED
    return output_grid
