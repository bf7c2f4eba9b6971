from common import *

import numpy as np

# concepts: sliding, contact
# description: The red shape slides toward the teal square until they touch.


def main(input_grid):
    red = np.where(input_grid == Color.RED, Color.RED, Color.BLACK)
    teal = np.where(input_grid == Color.TEAL, Color.TEAL, Color.BLACK)
    rx, ry = object_position(red, anchor="center")
    tx, ty = object_position(teal, anchor="center")
    rx0, _ry0, rw, _rh = bounding_box(red)
    tx0, _ty0, tw, _th = bounding_box(teal)
    overlap_x = rx0 < tx0 + tw and tx0 < rx0 + rw
    dx, dy = (0, int(np.sign(ty - ry))) if overlap_x else (int(np.sign(tx - rx)), 0)
    x, y = 0, 0
    while not contact(object1=teal, object2=red, x2=x, y2=y, connectivity=4):
        x, y = x + dx, y + dy
    output_grid = np.copy(teal)
    blit_object(output_grid, translate(red, x, y), background=Color.BLACK)
    return output_grid
