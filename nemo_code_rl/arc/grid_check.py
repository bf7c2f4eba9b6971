"""What counts as an ARC grid, in one function used both inside and outside the sandbox.

The sandbox driver converts a program's return value with ``as_grid`` before it leaves the
sandbox (so a huge or exotic value never crosses), and the verifier applies ``as_grid`` again to
the decoded JSON, which is the check that counts. One definition keeps the two from drifting.

This module is shipped into the sandbox as source text, before the driver: it must import
nothing but the standard library and define nothing but what the driver needs.
"""

MAX_SIDE = 30
COLORS = 10


class InvalidGrid(ValueError):
    """A value that is not a valid ARC grid; the message says why."""


def as_grid(value):
    """``value`` as a plain ARC grid (a list of equally long lists of ints 0-9, at most 30x30).

    Accepts lists or tuples of rows and numpy arrays (anything numpy's ``tolist`` turns into
    rows). Cells may be ints, numpy integers or integral floats (``3.0``, as in a float array
    built with ``np.zeros``); bools, strings and fractional numbers are refused.

    >>> as_grid(((1, 2), (3, 4.0)))
    [[1, 2], [3, 4]]
    >>> as_grid([[1, 2], [3]])
    Traceback (most recent call last):
    ...
    nemo_code_rl.arc.grid_check.InvalidGrid: row 1 has 1 cells, row 0 has 2
    """
    value = _numpy_to_list(value)
    if not isinstance(value, (list, tuple)):
        raise InvalidGrid(f"expected a list of rows, got {type(value).__name__}")
    if not value:
        raise InvalidGrid("the grid has no rows")
    if len(value) > MAX_SIDE:
        raise InvalidGrid(f"the grid has {len(value)} rows (at most {MAX_SIDE})")
    rows = []
    for number, row in enumerate(value):
        row = _numpy_to_list(row)
        if not isinstance(row, (list, tuple)):
            raise InvalidGrid(f"row {number} is a {type(row).__name__}, not a list of cells")
        if not row:
            raise InvalidGrid(f"row {number} is empty")
        if len(row) > MAX_SIDE:
            raise InvalidGrid(f"row {number} has {len(row)} cells (at most {MAX_SIDE})")
        if rows and len(row) != len(rows[0]):
            raise InvalidGrid(f"row {number} has {len(row)} cells, row 0 has {len(rows[0])}")
        rows.append([_color(cell, number, column) for column, cell in enumerate(row)])
    return rows


def _numpy_to_list(value):
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return value.tolist()
    return value


def _color(cell, row, column):
    kind = type(cell)
    if kind.__name__ in ("bool", "bool_") or not (
        isinstance(cell, (int, float)) or kind.__module__ == "numpy"
    ):
        raise InvalidGrid(f"cell ({row}, {column}) is a {kind.__name__}, not an int")
    try:
        number = float(cell)
        color = int(number)
    except (TypeError, ValueError, OverflowError):
        raise InvalidGrid(f"cell ({row}, {column}) is not a number: {cell!r:.40}") from None
    if color != number:
        raise InvalidGrid(f"cell ({row}, {column}) is not a whole number: {cell!r:.40}")
    if not 0 <= color < COLORS:
        raise InvalidGrid(f"cell ({row}, {column}) is {color}, not a color 0-9")
    return color
