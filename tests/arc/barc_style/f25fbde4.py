from common import *

import numpy as np

# concepts: cropping, scaling
# description: Crop the yellow shape and scale it up by two.


def main(input_grid):
    return scale_sprite(crop(input_grid, background=Color.BLACK), factor=2)
