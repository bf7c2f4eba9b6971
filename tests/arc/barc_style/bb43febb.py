from common import *

import numpy as np

# concepts: interior, boundary
# description: The inside of every grey rectangle (not its edge) turns red.


def main(input_grid):
    output_grid = np.copy(input_grid)
    for rectangle in find_connected_components(input_grid, background=Color.BLACK, connectivity=4):
        inside = object_interior(rectangle) & ~object_boundary(rectangle)
        output_grid[inside] = Color.RED
    return output_grid
