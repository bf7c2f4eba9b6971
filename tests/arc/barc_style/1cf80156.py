from common import *

import numpy as np

# concepts: cropping
# description: Output the single shape, cropped.


def main(input_grid):
    return crop(input_grid, background=Color.BLACK)
