from common import *

import numpy as np

# concepts: objects, size
# description: Among overlapping colored rectangles, output the smallest one.


def main(input_grid):
    rectangles = find_connected_components(input_grid, monochromatic=True, connectivity=4)

    def area(rectangle):
        _x, _y, w, h = bounding_box(rectangle)
        return w * h

    return crop(min(rectangles, key=area))
