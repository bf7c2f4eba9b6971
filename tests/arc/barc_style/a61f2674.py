from common import *

import numpy as np

# concepts: sorting, counting
# description: Grey bars stand on the floor; the tallest becomes blue, the shortest red, the others vanish.


def main(input_grid):
    bars = find_connected_components(input_grid, background=Color.BLACK, connectivity=4)
    bars.sort(key=lambda bar: np.sum(bar != Color.BLACK))
    output_grid = np.zeros_like(input_grid)
    output_grid[bars[-1] != Color.BLACK] = Color.BLUE
    output_grid[bars[0] != Color.BLACK] = Color.RED
    return output_grid
