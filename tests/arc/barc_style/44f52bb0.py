from common import *

import numpy as np

# concepts: mirror symmetry
# description: A left-right symmetric pattern gives blue, any other orange.


def main(input_grid):
    width, _height = input_grid.shape
    symmetries = detect_mirror_symmetry(input_grid, ignore_colors=[], background=Color.BLACK)
    centered = any(s.mirror_x is not None and abs(s.mirror_x - (width - 1) / 2) < 1e-6 for s in symmetries)
    mirrored = np.array_equal(input_grid, input_grid[::-1, :])
    return np.array([[Color.BLUE if (centered or mirrored) else Color.ORANGE]])
