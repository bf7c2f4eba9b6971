from common import *

import numpy as np

# concepts: mirror symmetry, occlusion
# description: A symmetric mosaic is partly covered in yellow; restore what lies beneath.


def main(input_grid):
    output_grid = np.copy(input_grid)
    width, height = input_grid.shape
    symmetries = detect_mirror_symmetry(input_grid, ignore_colors=[Color.YELLOW])
    # the mosaic is symmetric about both axes; the detector may report only the best one
    symmetries += [
        MirrorSymmetry(mirror_x=(width - 1) / 2, mirror_y=None),
        MirrorSymmetry(mirror_x=None, mirror_y=(height - 1) / 2),
    ]
    for x, y in np.argwhere(input_grid == Color.YELLOW):
        for symmetry in symmetries:
            x2, y2 = symmetry.apply(x, y)
            if input_grid[x2, y2] != Color.YELLOW:
                output_grid[x, y] = input_grid[x2, y2]
                break
    return output_grid
