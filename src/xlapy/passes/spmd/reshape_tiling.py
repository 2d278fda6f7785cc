"""The tiling of a reshape's result from its operand's (or back), when each device's
tile is still one tile after the reshape.

Why: a reshape only regroups the row-major sequence of elements. Write every
tiled dim of size S cut into n tiles as two factors, n (tiled) then S/n (whole),
and every other dim as one whole factor; the reshape maps tiles to tiles exactly
when the other shape's dims are groupings of these factors (a factor may be cut
in two to fit) in which the tiled factors come first. ``[8] tiled 4 -> [2,4]``
becomes ``[2,2]`` tiles; ``[2,4] tiled (2,2) -> [8]`` becomes 4 tiles;
``[8,6] tiled on 6 -> [48]`` does not map (each tile is not contiguous).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InvalidArgumentError
from .tiling import Tiling


@dataclass
class _Factor:
    size: int
    coords: np.ndarray | None  # per-device tile index for tiled factors, None for whole

    def split(self, major: int) -> tuple[_Factor, _Factor]:
        minor = self.size // major
        if self.coords is None:
            return _Factor(major, None), _Factor(minor, None)
        return _Factor(major, self.coords // minor), _Factor(minor, self.coords % minor)


def _factors(tiling: Tiling, dims: Sequence[int]) -> list[_Factor] | None:
    coords = tiling.coords()
    factors = []
    for d, size in enumerate(dims):
        count = tiling.counts[d]
        if count > 1:
            if size % count:
                return None
            factors.append(_Factor(count, coords[:, d].copy()))
            factors.append(_Factor(size // count, None))
        else:
            factors.append(_Factor(size, None))
    return [f for f in factors if f.size > 1]


def reshape_tiling(
    tiling: Tiling, from_dims: Sequence[int], to_dims: Sequence[int]
) -> Tiling | None:
    """The tiling of the ``to_dims`` array holding the same tiles, or None (see above)."""
    factors = _factors(tiling, from_dims)
    if factors is None:
        return None
    counts: list[int] = []
    coords = np.zeros((tiling.num_devices, len(to_dims)), dtype=np.int64)
    for j, size in enumerate(to_dims):
        taken: list[_Factor] = []
        product = 1
        while product < size:
            if not factors:
                return None
            factor = factors.pop(0)
            need = size // product
            if size % product:
                return None
            if factor.size <= need and need % factor.size == 0:
                taken.append(factor)
                product *= factor.size
            elif factor.size % need == 0:
                major, minor = factor.split(need)
                taken.append(major)
                factors.insert(0, minor)
                product *= need
            else:
                return None
        tiled = [f for f in taken if f.coords is not None]
        if any(f.coords is None for f in taken[: len(tiled)]):
            return None  # a whole factor before a tiled one: the tile is not contiguous
        count, coord = 1, np.zeros(tiling.num_devices, dtype=np.int64)
        for factor in tiled:
            coord = coord * factor.size + factor.coords
            count *= factor.size
        counts.append(count)
        coords[:, j] = coord
    if factors:
        return None
    try:
        return Tiling.from_coords(coords, counts)
    except InvalidArgumentError:
        return None


__all__ = ["reshape_tiling"]
