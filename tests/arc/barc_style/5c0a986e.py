from common import *

import numpy as np

# concepts: diagonal lines, objects
# description: The blue square shoots a diagonal line up-left from its corner, the red square down-right.


def main(input_grid):
    output_grid = np.copy(input_grid)
    for square in find_connected_components(input_grid, monochromatic=True):
        color = object_colors(square)[0]
        x, y, w, h = bounding_box(square)
        if color == Color.BLUE:
            draw_line(output_grid, x - 1, y - 1, direction=(-1, -1), color=Color.BLUE)
        elif color == Color.RED:
            draw_line(output_grid, x + w, y + h, direction=(1, 1), color=Color.RED)
    return output_grid
