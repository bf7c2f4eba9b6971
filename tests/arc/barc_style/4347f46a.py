from common import *

import numpy as np

# concepts: hollowing
# description: Every solid rectangle keeps only its outline.


def main(input_grid):
    output_grid = np.zeros_like(input_grid)
    for rectangle in detect_objects(input_grid, monochromatic=True, connectivity=4, background=Color.BLACK):
        assert is_contiguous(rectangle, background=Color.BLACK, connectivity=4)
        edge = object_boundary(rectangle, background=Color.BLACK)
        output_grid[edge] = rectangle[edge]
    return output_grid
