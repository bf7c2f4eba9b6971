from common import *

import numpy as np

# concepts: scaling
# description: The output is the input scaled up by a factor of two.


def main(input_grid):
    return scale_pattern(input_grid, 2)
