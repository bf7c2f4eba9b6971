from common import *

import numpy as np

# concepts: translation, recoloring
# description: The teal shape moves down one pixel and turns red.


def main(input_grid):
    output_grid = np.zeros_like(input_grid)
    moved = translate(input_grid, x=0, y=1, background=Color.BLACK)
    moved[moved == Color.TEAL] = Color.RED
    blit_object(output_grid, moved, background=Color.BLACK)
    return output_grid
