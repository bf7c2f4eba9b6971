from common import *

import numpy as np

# concepts: scaling
# description: The output is the input scaled up by a factor of three.


def main(input_grid):
    scaled = scale_sprite(input_grid, 3)
    output_grid = np.zeros_like(scaled)
    x, y = random_free_location_for_sprite(output_grid, scaled, background=Color.BLACK)  # only (0, 0) fits
    blit_sprite(output_grid, scaled, x, y, background=Color.BLACK)
    return output_grid
