"""A helper library for BARC-style ARC programs, importable in the sandbox as ``common``.

Programs written by BARC models (and BARC's seed programs) start with ``from common import *``
and call the helpers BARC's prompts list: ``find_connected_components``, ``blit_sprite``,
``crop``, ``detect_mirror_symmetry``, ``Color.RED``... BARC's own ``common.py`` carries no
licence, so this is an implementation of the same documented API written here: the names,
signatures and behaviour that BARC's prompts, docstrings and paper describe (including choices
programs can observe, such as the order of returned objects and how ties between symmetries are
broken), not BARC's code.

Conventions (BARC's): a grid is a 2-D numpy int array indexed ``grid[x, y]``, ``x`` the column
and ``y`` the row, so ``grid.shape`` is ``(width, height)``; colors are ints 0-9 named by
``Color``; an "object" is a grid of the full canvas size holding one object's pixels on a
background; a "sprite" is a small grid cut out of one. Functions that draw (``flood_fill``,
``draw_line``, ``blit*``) change the grid in place. Helpers meant for generating inputs
(``random_sprite``, ``random_free_location_for_sprite``, ...) are random, as BARC's are.

The sandbox runs this module's source as ``common`` for every ARC program unless another helper
library is configured. Like BARC's, ``from common import *`` also gives ``np`` and ``random``.
"""

import itertools
import math
import random

import numpy as np


class Color:
    """The ten ARC colors.

    ``Color.BLACK`` (0), ``BLUE`` (1), ``RED`` (2), ``GREEN`` (3), ``YELLOW`` (4), ``GREY`` or
    ``GRAY`` (5), ``PINK`` (6), ``ORANGE`` (7), ``TEAL`` (8), ``MAROON`` (9); ``TRANSPARENT`` and
    ``BACKGROUND`` are black. ``ALL_COLORS`` lists all ten, ``NOT_BLACK`` the nine others.
    """

    BLACK = 0
    BLUE = 1
    RED = 2
    GREEN = 3
    YELLOW = 4
    GREY = 5
    GRAY = 5
    PINK = 6
    ORANGE = 7
    TEAL = 8
    MAROON = 9
    TRANSPARENT = 0
    BACKGROUND = 0
    ALL_COLORS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]  # noqa: RUF012 - BARC's Color API: programs read these lists
    NOT_BLACK = [1, 2, 3, 4, 5, 6, 7, 8, 9]  # noqa: RUF012 - BARC's Color API: programs read these lists


def _structure(connectivity):
    """The 3x3 neighbourhood of 4- or 8-connectivity."""
    if connectivity == 4:
        return np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=bool)
    if connectivity == 8:
        return np.ones((3, 3), dtype=bool)
    raise ValueError(f"connectivity must be 4 or 8, got {connectivity!r}")


def _steps(connectivity):
    return [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if _structure(connectivity)[dx + 1, dy + 1]]


def flood_fill(grid, x, y, color, connectivity=4):
    """Paint ``color`` over the region of ``grid[x, y]``'s color that contains (x, y), in place.

    connectivity: 4 (cardinal neighbours) or 8 (diagonals too).
    """
    steps = _steps(connectivity)
    old = grid[x, y]
    if old == color:
        return
    width, height = grid.shape
    stack = [(x, y)]
    grid[x, y] = color
    while stack:
        cx, cy = stack.pop()
        for dx, dy in steps:
            nx, ny = cx + dx, cy + dy
            if 0 <= nx < width and 0 <= ny < height and grid[nx, ny] == old:
                grid[nx, ny] = color
                stack.append((nx, ny))


def draw_line(grid, x, y, end_x=None, end_y=None, length=None, direction=None, color=None, stop_at_color=()):
    """Draw a line of ``color`` from (x, y), in place, and return its last drawn point.

    Either to (end_x, end_y), or ``length`` pixels along ``direction`` (a vector of -1/0/1
    components); with neither an end nor a length, until it leaves the grid. Pixels outside the
    grid are skipped; the line stops before the first pixel whose color is in ``stop_at_color``.
    """
    if (end_x is None) != (end_y is None):
        raise ValueError("draw_line: give both end_x and end_y, or neither")
    if x != int(x) or y != int(y):
        raise ValueError("draw_line: x and y must be integers")
    x, y = int(x), int(y)
    if end_x is not None:
        length = max(abs(end_x - x), abs(end_y - y)) + 1
        direction = (end_x - x, end_y - y)
    if length is None:
        length = 2 * max(grid.shape)
    dx, dy = (int(np.sign(d)) for d in direction)
    width, height = grid.shape
    last = (x, y)
    for step in range(length):
        px, py = x + step * dx, y + step * dy
        if 0 <= px < width and 0 <= py < height:
            if grid[px, py] in stop_at_color:
                break
            grid[px, py] = color
            last = (px, py)
    return last


def find_connected_components(grid, background=Color.BLACK, connectivity=4, monochromatic=True):
    """The connected objects of ``grid``: a list of full-size grids, each one object on ``background``.

    monochromatic: an object is one color (True) or any connected non-background pixels (False).
    Objects come color by color when monochromatic (in ``object_colors`` order), each color's in
    scan order of their first pixel (by x, then y).
    """
    from scipy import ndimage

    structure = _structure(connectivity)
    masks = [grid != background] if not monochromatic else [grid == c for c in _colors_in(grid, background)]
    components = []
    for mask in masks:
        labels, count = ndimage.label(mask, structure)
        for label in range(1, count + 1):
            components.append(np.where(labels == label, grid, background))
    return components


def _colors_in(grid, background):
    """The grid's colors other than ``background``, in the order of a Python set of its pixel
    values: the order BARC programs see (for small ints, mostly ascending, but not always)."""
    return [int(c) for c in set(np.asarray(grid).flatten().tolist()) - {background}]


def randomly_scatter_points(grid, color, density=0.5, background=Color.BLACK):
    """Color random background pixels of ``grid`` in place, ``density`` of the canvas (as far as
    background pixels last); returns the grid."""
    free = [tuple(p) for p in np.argwhere(grid == background)]
    wanted = min(len(free), math.ceil(density * grid.size))
    for px, py in random.sample(free, wanted):
        grid[px, py] = color
    return grid


def scale_sprite(sprite, factor):
    """The sprite with every pixel blown up to a ``factor`` x ``factor`` block."""
    return np.repeat(np.repeat(sprite, factor, axis=0), factor, axis=1)


def scale_pattern(pattern, scale_factor):
    """The pattern scaled up by ``scale_factor`` (the older name of ``scale_sprite``)."""
    return scale_sprite(pattern, scale_factor)


def blit(grid, sprite, x=0, y=0, background=None):
    """Copy ``sprite`` into ``grid`` with its corner at (x, y), in place, clipped to the grid.

    background: a color of the sprite treated as transparent (not copied); None copies all.
    Returns the grid.
    """
    x, y = int(x), int(y)
    width, height = grid.shape
    sw, sh = sprite.shape
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + sw, width), min(y + sh, height)
    if x0 >= x1 or y0 >= y1:
        return grid
    part = sprite[x0 - x : x1 - x, y0 - y : y1 - y]
    target = grid[x0:x1, y0:y1]
    if background is None:
        target[...] = part
    else:
        keep = part != background
        target[keep] = part[keep]
    return grid


def blit_object(grid, obj, background=Color.BLACK):
    """Draw a full-size object onto ``grid`` where it is, in place; returns the grid."""
    return blit(grid, obj, 0, 0, background=background)


def blit_sprite(grid, sprite, x, y, background=Color.BLACK):
    """Draw ``sprite`` onto ``grid`` with its upper-left corner at (x, y), in place; returns the grid."""
    return blit(grid, sprite, x, y, background=background)


def bounding_box(grid, background=Color.BLACK):
    """(x, y, width, height) of the smallest box holding every non-background pixel."""
    width, height = grid.shape
    xs, ys = np.nonzero(grid != background)
    if len(xs) == 0:
        return width, height, -width, -height
    x, y = int(xs.min()), int(ys.min())
    return x, y, int(xs.max()) - x + 1, int(ys.max()) - y + 1


def bounding_box_mask(grid, background=Color.BLACK):
    """A bool grid, True inside the bounding box of the non-background pixels."""
    mask = np.zeros(grid.shape, dtype=bool)
    x, y, w, h = bounding_box(grid, background=background)
    mask[x : x + w, y : y + h] = True
    return mask


_ANCHORS = {
    "upperleft": (0, 0),
    "upperright": (1, 0),
    "lowerleft": (0, 1),
    "lowerright": (1, 1),
    "center": (0.5, 0.5),
    "uppercenter": (0.5, 0),
    "lowercenter": (0.5, 1),
    "leftcenter": (0, 0.5),
    "rightcenter": (1, 0.5),
}


def object_position(obj, background=Color.BLACK, anchor="upper left"):
    """(x, y) of a point of the object's bounding box, by default its upper-left corner.

    anchor: "upper left", "upper right", "lower left", "lower right", "center", "upper center",
    "lower center", "left center", "right center" ("top"/"bottom" work for "upper"/"lower").
    A center between two pixels is a half-integer float; other coordinates are ints.
    """
    key = anchor.lower().replace(" ", "").replace("top", "upper").replace("bottom", "lower")
    if key not in _ANCHORS:
        raise ValueError(f"object_position: unknown anchor {anchor!r}")
    fx, fy = _ANCHORS[key]
    x, y, w, h = bounding_box(obj, background=background)
    return _whole(x + fx * (w - 1)), _whole(y + fy * (h - 1))


def _whole(value):
    return round(value) if abs(value - round(value)) < 1e-6 else value


def object_colors(obj, background=Color.BLACK):
    """The colors of the object's pixels, background excluded (a list, in set order)."""
    return _colors_in(obj, background)


def crop(grid, background=Color.BLACK):
    """The grid cut down to the bounding box of its non-background pixels."""
    x, y, w, h = bounding_box(grid, background)
    return grid[x : x + w, y : y + h]


def translate(obj, x, y, background=Color.BLACK):
    """A copy of ``obj`` moved by (x, y) on the same canvas; what leaves the canvas is lost and
    uncovered pixels are ``background``."""
    moved = np.full(obj.shape, background, dtype=obj.dtype)
    return blit(moved, obj, int(x), int(y))


def _shifted_hits(object1, object2, dx, dy, background, steps):
    """Whether a non-background pixel of object1, moved by -(dx, dy) plus any of ``steps``,
    lands on a non-background pixel of object2."""
    points = np.argwhere(object1 != background)
    filled = object2 != background
    width, height = object2.shape
    for sx, sy in steps:
        px = points[:, 0] - dx + sx
        py = points[:, 1] - dy + sy
        inside = (px >= 0) & (px < width) & (py >= 0) & (py < height)
        if np.any(filled[px[inside], py[inside]]):
            return True
    return False


def collision(_=None, object1=None, object2=None, x1=0, y1=0, x2=0, y2=0, background=Color.BLACK):
    """Whether object1 placed at (x1, y1) and object2 placed at (x2, y2) share a non-background pixel.

    Example: ``collision(object1=output_grid, object2=sprite, x2=X, y2=Y)`` says whether the
    sprite drawn at (X, Y) would cover something.
    """
    return _shifted_hits(object1, object2, int(x2 - x1), int(y2 - y1), background, [(0, 0)])


def contact(
    _=None, object1=None, object2=None, x1=0, y1=0, x2=0, y2=0, background=Color.BLACK, connectivity=4
):
    """Whether object1 at (x1, y1) and object2 at (x2, y2) touch: overlap, or are neighbours
    (4-connectivity: side by side; 8: diagonals too)."""
    steps = _steps(connectivity)
    return _shifted_hits(object1, object2, int(x2 - x1), int(y2 - y1), background, steps)


def randomly_spaced_indices(max_len, n_indices, border_size=1, padding=1):
    """``n_indices`` random sorted indices in [border_size, max_len - border_size), no two within
    ``padding`` of each other (e.g. where to draw dividers). Raises ValueError when they cannot fit."""
    chosen = []
    for _ in range(n_indices):
        free = [
            i for i in range(border_size, max_len - border_size) if all(abs(i - c) > padding for c in chosen)
        ]
        if not free:
            raise ValueError(f"cannot place {n_indices} indices spaced by {padding} in {max_len}")
        chosen.append(random.choice(free))
    return np.array(sorted(chosen), dtype=int)


def check_between_objects(obj1, obj2, x, y, padding=0, background=Color.BLACK):
    """Whether pixel (x, y) lies in the straight gap between the two objects' bounding boxes:
    horizontally between them within the rows both span, or vertically between them within the
    columns both span, at least ``padding`` pixels from those rows' or columns' ends."""
    boxes = [bounding_box(o, background=background) for o in (obj1, obj2)]
    (ax, ay, aw, ah), (bx, by, bw, bh) = sorted(boxes, key=lambda b: b[0])
    if ax + aw <= x < bx and y - padding >= max(ay, by) and y + padding < min(ay + ah, by + bh):
        return True
    (ax, ay, aw, ah), (bx, by, bw, bh) = sorted(boxes, key=lambda b: b[1])
    return ay + ah <= y < by and x - padding >= max(ax, bx) and x + padding < min(ax + aw, bx + bw)


def random_free_location_for_sprite(
    grid, sprite, background=Color.BLACK, border_size=0, padding=0, padding_connectivity=8
):
    """A random (x, y) where ``sprite`` fits inside ``grid`` without covering anything, for ``blit_sprite``.

    border_size: keep this far from the grid's edges; padding: keep this many pixels (by
    ``padding_connectivity``) away from what is already drawn. Raises ValueError when no place fits.
    """
    from scipy import ndimage

    taken = grid != background
    if padding > 0:
        taken = ndimage.binary_dilation(taken, structure=_structure(padding_connectivity), iterations=padding)
    shape = sprite != background
    width, height = grid.shape
    sw, sh = sprite.shape
    places = [
        (x, y)
        for x in range(border_size, width + 1 - border_size - sw)
        for y in range(border_size, height + 1 - border_size - sh)
        if not np.any(taken[x : x + sw, y : y + sh] & shape)
    ]
    if not places:
        raise ValueError("No free location for sprite found.")
    return random.choice(places)


def _outside(grid, background):
    """Background pixels connected (4-way, through background) to the canvas edge."""
    from scipy import ndimage

    empty = grid == background
    labels, _ = ndimage.label(empty, _structure(4))
    edge = np.concatenate([labels[0, :], labels[-1, :], labels[:, 0], labels[:, -1]])
    return np.isin(labels, edge[edge > 0])


def object_interior(grid, background=Color.BLACK):
    """A bool grid: the object's pixels and every pixel it encloses (not reachable from the
    canvas edge through background)."""
    return ~_outside(grid, background)


def object_boundary(grid, background=Color.BLACK):
    """A bool grid: the object's pixels that touch (4-way) the outside, or lie on the canvas edge."""
    from scipy import ndimage

    near_outside = ndimage.binary_dilation(_outside(grid, background), structure=_structure(4))
    edge = np.zeros(grid.shape, dtype=bool)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = True
    return (grid != background) & (near_outside | edge)


def object_neighbors(grid, background=Color.BLACK, connectivity=4):
    """A bool grid: background pixels next to the object's boundary (4- or 8-way)."""
    from scipy import ndimage

    ring = _structure(connectivity).copy()
    ring[1, 1] = False
    near = ndimage.binary_dilation(object_boundary(grid, background), structure=ring)
    return near & (grid == background)


def _as_coordinates(x, y):
    """Whole-number results of a symmetry as ints (arrays stay arrays)."""
    if isinstance(x, np.ndarray):
        return np.rint(x).astype(int), np.rint(y).astype(int)
    return round(x), round(y)


class Symmetry:
    """A transformation of the plane that preserves a grid's structure; ``apply(x, y, iters)``
    maps a point. Returned by the ``detect_*_symmetry`` functions, used by ``orbit``."""

    def apply(self, x, y, iters=1):
        raise NotImplementedError

    def _iter_range(self, grid_shape):
        """The iteration counts ``orbit`` tries: ``range(*self._iter_range(shape))``."""
        raise NotImplementedError


class TranslationalSymmetry(Symmetry):
    """Repeated translation by (translate_x, translate_y)."""

    def __init__(self, translate_x, translate_y):
        self.translate_x, self.translate_y = translate_x, translate_y

    def apply(self, x, y, iters=1):
        return _as_coordinates(x + iters * self.translate_x, y + iters * self.translate_y)

    def _iter_range(self, grid_shape):
        reach = 0
        if self.translate_x:
            reach = math.ceil(grid_shape[0] / abs(self.translate_x))
        if self.translate_y:
            reach = max(reach, math.ceil(grid_shape[1] / abs(self.translate_y)))
        return -reach, reach + 1

    def __repr__(self):
        return f"TranslationalSymmetry(translate_x={self.translate_x}, translate_y={self.translate_y})"


class MirrorSymmetry(Symmetry):
    """Reflection across the vertical line x = mirror_x and/or the horizontal line y = mirror_y
    (None for no reflection on that axis); half-integer lines fall between pixels."""

    def __init__(self, mirror_x, mirror_y):
        self.mirror_x, self.mirror_y = mirror_x, mirror_y

    def apply(self, x, y, iters=1):
        if iters % 2 == 0:
            return x, y
        if self.mirror_x is not None:
            x = 2 * self.mirror_x - x
        if self.mirror_y is not None:
            y = 2 * self.mirror_y - y
        return _as_coordinates(x, y)

    def _iter_range(self, grid_shape):
        return 0, 2

    def __repr__(self):
        return f"MirrorSymmetry(mirror_x={self.mirror_x}, mirror_y={self.mirror_y})"


class RotationalSymmetry(Symmetry):
    """Rotation by quarter turns around (center_x, center_y): ``iters`` > 0 clockwise, < 0 counter."""

    def __init__(self, center_x, center_y):
        self.center_x, self.center_y = center_x, center_y

    def apply(self, x, y, iters=1):
        dx, dy = x - self.center_x, y - self.center_y
        for _ in range(iters % 4):
            dx, dy = dy, -dx
        return _as_coordinates(dx + self.center_x, dy + self.center_y)

    def _iter_range(self, grid_shape):
        return 0, 4

    def __repr__(self):
        return f"RotationalSymmetry(center_x={self.center_x}, center_y={self.center_y})"


def orbit(grid, x, y, symmetries):
    """Every point of the canvas that (x, y) reaches by applying each symmetry some number of
    times (in order, each intermediate point on the canvas); a list of (x, y)."""
    width, height = grid.shape
    points = set()
    for counts in itertools.product(*(range(*s._iter_range(grid.shape)) for s in symmetries)):
        px, py = x, y
        for symmetry, count in zip(symmetries, counts, strict=True):
            px, py = symmetry.apply(px, py, count)
            if not (0 <= px < width and 0 <= py < height):
                break
        else:
            points.add((int(px), int(py)))
    return list(points)


def _symmetry_counts(grid, symmetry, ignore_colors, background):
    """(pixels mapped onto their own color, pixels mapped off the canvas, pixels mapped onto a
    different color that is not ignored), over the pixels that are neither ignored nor background."""
    ignored = np.isin(grid, list(ignore_colors))
    occupied = ~ignored if background is None else ~ignored & (grid != background)
    points = np.argwhere(occupied)
    tx, ty = symmetry.apply(points[:, 0], points[:, 1])
    width, height = grid.shape
    inside = (tx >= 0) & (tx < width) & (ty >= 0) & (ty < height)
    original = grid[points[inside, 0], points[inside, 1]]
    mapped = grid[tx[inside], ty[inside]]
    conflicts = np.sum((original != mapped) & ~np.isin(mapped, list(ignore_colors)))
    return int(np.sum(original == mapped)), int(np.sum(~inside)), int(conflicts)


def detect_translational_symmetry(grid, ignore_colors=(Color.BLACK,), background=None):
    """The grid's translational symmetries: grid[x, y] == grid[x + tx, y + ty] wherever neither
    pixel is ignored (nor background). Returns the best along x and the best along y (smallest
    shift among equals); only when neither exists, the best diagonal one; [] when none fits."""
    width, height = grid.shape

    def score(symmetry):
        kept, off, bad = _symmetry_counts(grid, symmetry, ignore_colors, background)
        return kept - 0.01 * off - 100000 * bad

    def best(candidates, tie_break):
        scored = [(score(s), s) for s in candidates]
        scored = [(value, s) for value, s in scored if value > 0]
        return [max(scored, key=lambda item: (item[0], tie_break(item[1])))[1]] if scored else []

    along_x = [TranslationalSymmetry(sign * t, 0) for sign in (1, -1) for t in range(1, width)]
    along_y = [TranslationalSymmetry(0, sign * t) for sign in (1, -1) for t in range(1, height)]
    found = best(along_x, lambda s: -s.translate_x) + best(along_y, lambda s: -s.translate_y)
    if found:
        return found
    diagonal = [TranslationalSymmetry(tx, ty) for tx in range(1, width) for ty in range(1, height)]
    return best(diagonal, lambda s: -s.translate_x - s.translate_y)


def detect_mirror_symmetry(grid, ignore_colors=(Color.BLACK,), background=None):
    """The grid's best mirror symmetries (several when they tie): grid[x, y] == grid[2*mirror_x - x,
    2*mirror_y - y] wherever neither pixel is ignored; candidates with any conflict are rejected.
    Returns a list of MirrorSymmetry, [] when none fits."""
    width, height = grid.shape
    halves = (0, 0.5)
    candidates = [MirrorSymmetry(x + z, None) for x in range(width) for z in halves]
    candidates += [MirrorSymmetry(None, y + z) for y in range(height) for z in halves]
    candidates += [MirrorSymmetry(x + z, y + z) for x in range(width) for y in range(height) for z in halves]
    best, best_score = [], 0
    for symmetry in candidates:
        kept, off, bad = _symmetry_counts(grid, symmetry, ignore_colors, background)
        if bad or not kept:
            continue
        value = kept - 0.01 * off
        if value > best_score:
            best, best_score = [symmetry], value
        elif value == best_score:
            best.append(symmetry)
    return best


def detect_rotational_symmetry(grid, ignore_colors=(Color.BLACK,), background=None):
    """The grid's best quarter-turn rotational symmetry (a RotationalSymmetry with ``center_x``,
    ``center_y``; ``apply(x, y, iters=1)`` rotates clockwise), or None when none fits."""
    width, height = grid.shape
    best, best_score = None, 0
    for x, y, z in itertools.product(range(width), range(height), (0, 0.5)):
        symmetry = RotationalSymmetry(x + z, y + z)
        kept, off, bad = _symmetry_counts(grid, symmetry, ignore_colors, background)
        value = kept - 5 * off - 1000 * bad
        if value > best_score:
            best, best_score = symmetry, value
    return best


def is_contiguous(bitmask, background=Color.BLACK, connectivity=4):
    """Whether the non-background pixels form exactly one connected piece."""
    from scipy import ndimage

    _, count = ndimage.label(bitmask != background, _structure(connectivity))
    return count == 1


_SPRITE_SYMMETRIES = ("horizontal", "vertical", "not_symmetric", "mirror", "diagonal", "radial")


def random_sprite(
    n, m, density=0.5, symmetry=None, color_palette=None, connectivity=4, background=Color.BLACK
):
    """A random connected sprite of n x m pixels touching all four sides, as a numpy array.

    n, m: sizes, or lists/ranges to pick them from. symmetry: "horizontal", "vertical",
    "diagonal", "radial", "mirror" or "not_symmetric" (random when None; diagonal and radial need
    a square). color_palette: the colors to use (a random few when None). density: the share of
    pixels filled (1 fills the whole sprite).
    """
    sizes_n = list(n) if isinstance(n, (list, range, tuple)) else [n]
    sizes_m = list(m) if isinstance(m, (list, range, tuple)) else [m]
    squares = [(a, b) for a in sizes_n for b in sizes_m if a == b]
    kinds = [k for k in _SPRITE_SYMMETRIES if squares or k not in ("diagonal", "radial")]
    kind = symmetry or random.choice(kinds)
    if kind not in _SPRITE_SYMMETRIES:
        raise ValueError(f"random_sprite: unknown symmetry {kind!r}")
    if color_palette is None:
        count = 1
        while count < 9 and random.random() < 0.3:
            count += 1
        color_palette = random.sample([c for c in Color.ALL_COLORS if c != background], count)
    for _ in range(1000):
        if kind in ("diagonal", "radial"):
            if not squares:
                raise ValueError(f"random_sprite: {kind} symmetry needs a square size")
            width, height = random.choice(squares)
        else:
            width, height = random.choice(sizes_n), random.choice(sizes_m)
        fill = 1.0 if min(width, height) == 1 else density
        sprite = _symmetric_sprite(width, height, kind, fill, color_palette, connectivity, background)
        sides = (sprite[0], sprite[-1], sprite[:, 0], sprite[:, -1])
        touches = all(np.any(side != background) for side in sides)
        if touches and is_contiguous(sprite, background=background, connectivity=connectivity):
            return sprite
    raise ValueError("random_sprite: could not make a connected sprite touching all sides")


def _symmetric_sprite(width, height, kind, density, palette, connectivity, background):
    """One attempt: a random walk on the part of the sprite the symmetry does not determine,
    then that part mirrored or rotated over the rest."""
    half_w, half_h = (width + 1) // 2, (height + 1) // 2
    corner = (half_w - 1, half_h - 1)
    if kind == "horizontal":
        part = _random_walk(half_w, height, (half_w - 1, None), density, palette, connectivity, background)
        return np.concatenate([part, part[: width - half_w][::-1]], axis=0)
    if kind == "vertical":
        part = _random_walk(width, half_h, (None, half_h - 1), density, palette, connectivity, background)
        return np.concatenate([part, part[:, : height - half_h][:, ::-1]], axis=1)
    if kind == "mirror":
        part = _random_walk(half_w, half_h, corner, density, palette, connectivity, background)
        top = np.concatenate([part, part[: width - half_w][::-1]], axis=0)
        return np.concatenate([top, top[:, : height - half_h][:, ::-1]], axis=1)
    if kind == "diagonal":
        sprite = _random_walk(width, height, ("diagonal", None), density, palette, connectivity, background)
        mirrored = sprite.T
        sprite = np.where(sprite != background, sprite, mirrored)
        return np.where(mirrored != background, mirrored, sprite) if random.random() < 0.5 else sprite
    if kind == "radial":
        part = _random_walk(half_w, half_h, corner, density, palette, connectivity, background)
        sprite = np.full((width, height), background, dtype=int)
        sprite[:half_w, :half_h] = part
        for _ in range(3):
            turned = np.rot90(sprite)
            sprite = np.where(sprite != background, sprite, turned)
        return sprite
    return _random_walk(width, height, (None, None), density, palette, connectivity, background)


def _random_walk(width, height, start, density, palette, connectivity, background):
    """Fill ``density`` of a width x height canvas by a random walk from ``start`` (None: random),
    changing color now and then; the filled pixels are connected."""
    canvas = np.full((width, height), background, dtype=int)
    if start[0] == "diagonal":
        x = random.randrange(width)
        y = x
    else:
        x = start[0] if start[0] is not None else random.randrange(width)
        y = start[1] if start[1] is not None else random.randrange(height)
    steps = [s for s in _steps(connectivity) if s != (0, 0)]
    color = random.choice(palette)
    target = max(1, math.ceil(density * width * height))
    while np.sum(canvas != background) < target:
        canvas[x, y] = color
        if random.random() < 0.33:
            color = random.choice(palette)
        dx, dy = random.choice(steps)
        if 0 <= x + dx < width and 0 <= y + dy < height:
            x, y = x + dx, y + dy
    return canvas


def detect_objects(
    grid,
    _=None,
    predicate=None,
    background=Color.BLACK,
    monochromatic=False,
    connectivity=None,
    allowed_dimensions=None,
    colors=None,
    can_overlap=False,
):
    """Objects of ``grid`` (full-size grids) that meet a specification.

    connectivity: 4 or 8 to find connected objects (``find_connected_components``); predicate: a
    test of an object's cropped sprite; colors: the colors an object may have (besides
    background); allowed_dimensions: a list of (width, height): objects must have that shape,
    and every window of that shape with some non-background pixel (passing ``colors`` and
    ``predicate``) is a candidate too. Unless ``can_overlap``, overlapping candidates are thinned
    to a non-overlapping set covering as many pixels as possible, the largest objects first.
    """

    def allowed_colors(pixels):
        return colors is None or all(c in colors or c == background for c in np.unique(pixels))

    objects = []
    if connectivity:
        objects = find_connected_components(
            grid, background=background, connectivity=connectivity, monochromatic=monochromatic
        )
        if colors:
            objects = [o for o in objects if allowed_colors(o)]
        if predicate:
            objects = [o for o in objects if predicate(crop(o, background=background))]
    if allowed_dimensions:
        objects = [o for o in objects if o.shape in allowed_dimensions]
        windows = []
        for w, h in allowed_dimensions:
            for x in range(grid.shape[0] - w + 1):
                for y in range(grid.shape[1] - h + 1):
                    window = grid[x : x + w, y : y + h]
                    if not np.any(window != background) or not allowed_colors(window):
                        continue
                    if predicate is not None and not predicate(window):
                        continue
                    candidate = np.full(grid.shape, background)
                    candidate[x : x + w, y : y + h] = window
                    if not any(np.array_equal(candidate, o) for o in objects):
                        windows.append(candidate)
        objects += windows
    return objects if can_overlap else _without_overlaps(objects, background)


def _without_overlaps(objects, background):
    """Objects sorted largest first (box area, then pixels); those overlapping no other are kept,
    and among the others the first subset (in that order) covering the most pixels."""

    def size(obj):
        w, h = crop(obj, background).shape
        return w * h, int(np.sum(obj != background))

    objects = sorted(objects, key=size, reverse=True)
    masks = [o != background for o in objects]
    overlaps = [[i != j and bool(np.any(a & b)) for j, b in enumerate(masks)] for i, a in enumerate(masks)]
    alone = [o for i, o in enumerate(objects) if not any(overlaps[i])]
    contested = [i for i in range(len(objects)) if any(overlaps[i])]
    if not contested:
        return alone
    reachable = int(np.sum(np.logical_or.reduce([masks[i] for i in contested])))

    def search(remaining, chosen, covered):
        if not remaining:
            return chosen, int(np.sum(covered))
        first, rest = remaining[0], remaining[1:]
        if any(overlaps[i][first] for i in chosen):
            return search(rest, chosen, covered)
        with_first = search(rest, [*chosen, first], covered | masks[first])
        if with_first[1] == reachable:
            return with_first
        without_first = search(rest, chosen, covered)
        return with_first if with_first[1] > without_first[1] else without_first

    picked, _ = search(contested, [], np.zeros_like(masks[0]))
    return alone + [objects[i] for i in picked]
