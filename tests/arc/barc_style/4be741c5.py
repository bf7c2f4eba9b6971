from common import *

import numpy as np

# concepts: color bands, ordering
# description: List the colors of the bands, in order, as a single row or column.


def main(input_grid):
    colors = object_colors(input_grid, background=Color.BLACK)
    first_x = {c: np.argwhere(input_grid == c)[:, 0].mean() for c in colors}
    first_y = {c: np.argwhere(input_grid == c)[:, 1].mean() for c in colors}
    spread_x = np.ptp(list(first_x.values()))
    spread_y = np.ptp(list(first_y.values()))
    if spread_x >= spread_y:
        ordered = sorted(colors, key=lambda c: first_x[c])
        return np.array(ordered, dtype=int).reshape(len(ordered), 1)
    ordered = sorted(colors, key=lambda c: first_y[c])
    return np.array(ordered, dtype=int).reshape(1, len(ordered))
