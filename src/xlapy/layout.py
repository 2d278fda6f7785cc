"""Layouts: how the elements of an array sit in linear memory.

A ``Layout`` is XLA's: ``minor_to_major`` (a permutation of the dimensions,
most minor first), optional padded dimensions with a padding value (seed 001),
tiles (spec/tiled_layout.md, repeated tilings and combined ``*`` dimensions),
the element size in bits for packed sub-byte types, and the memory space.
Layout annotations that xlapy does not interpret (``D(...)``, ``L(...)``,
``P(...)``, ``SC(...)``, ``M(...)``, ``#(...)``) are kept verbatim so that
HLO text round-trips.

The index math (XLA's ``IndexUtil``) is one vectorized function,
:func:`physical_positions`: the linear position of every logical element. Both
directions of the index mapping and every relayout are built on it, so padding
and tiling are handled in exactly one place.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .errors import InvalidArgumentError

COMBINE_DIMENSION = -1  # a tile entry that merges a dimension into the next minor one ("*")


class PaddingValue(enum.IntEnum):
    """What fills the padding of a padded layout (xla_data.proto of seed 001)."""

    INVALID_PAD = 0
    ZERO_PAD = 1
    ONE_PAD = 2
    LOWEST_PAD = 3
    HIGHEST_PAD = 4
    UNKNOWN_PAD = 5


# Canonical print order of the layout annotations after the colon (XLA's order),
# with "PAD" (xlapy's spelling of seed 001's padded dimensions) at the end.
ANNOTATION_ORDER = ("D", "T", "L", "P", "E", "S", "SC", "M", "#", "PAD")


@dataclass(frozen=True)
class Tile:
    """One level of tiling over the minor-most physical dimensions."""

    dimensions: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "dimensions", tuple(int(d) for d in self.dimensions))
        if not self.dimensions:
            raise InvalidArgumentError("a tile needs at least one dimension, e.g. T(8,128)")
        for d in self.dimensions:
            if d <= 0 and d != COMBINE_DIMENSION:
                raise InvalidArgumentError(
                    f"tile {self} has entry {d}; entries must be positive or * (combine)"
                )

    def __str__(self) -> str:
        return (
            "(" + ",".join("*" if d == COMBINE_DIMENSION else str(d) for d in self.dimensions) + ")"
        )


@dataclass(frozen=True)
class Layout:
    """The physical arrangement of an array; see the module docstring."""

    minor_to_major: tuple[int, ...]
    tiles: tuple[Tile, ...] = ()
    element_size_in_bits: int = 0
    memory_space: int = 0
    padded_dimensions: tuple[int, ...] = ()
    padding_value: PaddingValue = PaddingValue.ZERO_PAD
    # Annotations kept verbatim: name -> text inside the parentheses.
    extras: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "minor_to_major", tuple(int(d) for d in self.minor_to_major))
        object.__setattr__(
            self, "tiles", tuple(t if isinstance(t, Tile) else Tile(tuple(t)) for t in self.tiles)
        )
        object.__setattr__(self, "padded_dimensions", tuple(int(d) for d in self.padded_dimensions))
        m2m = self.minor_to_major
        if sorted(m2m) != list(range(len(m2m))):
            raise InvalidArgumentError(
                f"minor_to_major {list(m2m)} is not a permutation of 0..{len(m2m) - 1}; "
                f"it must list every dimension exactly once, e.g. {list(range(len(m2m)))[::-1]}"
            )
        if self.padded_dimensions and len(self.padded_dimensions) != len(m2m):
            raise InvalidArgumentError(
                f"padded_dimensions {list(self.padded_dimensions)} must have one entry per "
                f"dimension ({len(m2m)})"
            )
        if self.element_size_in_bits < 0 or self.memory_space < 0:
            raise InvalidArgumentError("element_size_in_bits and memory_space must be >= 0")

    # -- construction -----------------------------------------------------
    @staticmethod
    def default(rank: int) -> Layout:
        """Major-to-minor (row-major) layout: minor_to_major = (rank-1, ..., 0)."""
        return Layout(tuple(range(rank - 1, -1, -1)))

    @property
    def rank(self) -> int:
        return len(self.minor_to_major)

    @property
    def is_default(self) -> bool:
        return self == Layout.default(self.rank)

    @property
    def is_plain(self) -> bool:
        """No tiling and no padding: a pure permutation of the dimensions."""
        return not self.tiles and not self.padded_dimensions

    @property
    def major_to_minor(self) -> tuple[int, ...]:
        return self.minor_to_major[::-1]

    def replace(self, **changes: object) -> Layout:
        return dataclasses.replace(self, **changes)

    # -- text ---------------------------------------------------------------
    def __str__(self) -> str:
        text = ",".join(str(d) for d in self.minor_to_major)
        notes = self._annotations()
        return "{" + text + (":" + "".join(notes) if notes else "") + "}"

    def _annotations(self) -> list[str]:
        parts: dict[str, str] = {name: f"{name}({body})" for name, body in self.extras}
        if self.tiles:
            parts["T"] = "T" + "".join(str(t) for t in self.tiles)
        if self.element_size_in_bits:
            parts["E"] = f"E({self.element_size_in_bits})"
        if self.memory_space:
            parts["S"] = f"S({self.memory_space})"
        if self.padded_dimensions:
            pad = ",".join(str(d) for d in self.padded_dimensions)
            if self.padding_value != PaddingValue.ZERO_PAD:
                pad += ";" + self.padding_value.name
            parts["PAD"] = f"PAD({pad})"
        ordered = [parts.pop(name) for name in ANNOTATION_ORDER if name in parts]
        return ordered + list(parts.values())


# -- index math ---------------------------------------------------------------


def check_layout_for_dimensions(layout: Layout, dimensions: Sequence[int]) -> None:
    """Raise unless ``layout`` can lay out an array of ``dimensions``."""
    if layout.rank != len(dimensions):
        raise InvalidArgumentError(
            f"layout {layout} has {layout.rank} dimensions but the array has {len(dimensions)} "
            f"({list(dimensions)})"
        )
    for dim, (size, padded) in enumerate(zip(dimensions, layout.padded_dimensions, strict=False)):
        if padded < size:
            raise InvalidArgumentError(
                f"padded_dimensions[{dim}] = {padded} is smaller than the dimension size {size}"
            )
    bounds = _physical_bounds(layout, dimensions)
    for tile in layout.tiles:
        if len(tile.dimensions) > len(bounds):
            raise InvalidArgumentError(
                f"tile {tile} has {len(tile.dimensions)} dimensions but tiles a shape of "
                f"{len(bounds)} dimensions ({bounds}); a tile may cover only a suffix"
            )
        if tile.dimensions[-1] == COMBINE_DIMENSION:
            raise InvalidArgumentError(
                f"tile {tile}: the most minor entry cannot be * (nothing more minor to combine with)"
            )
        bounds = _tile_bounds(bounds, tile)


def _physical_bounds(layout: Layout, dimensions: Sequence[int]) -> list[int]:
    sizes = layout.padded_dimensions or tuple(dimensions)
    return [int(sizes[d]) for d in layout.major_to_minor]


def _tile_bounds(bounds: list[int], tile: Tile) -> list[int]:
    zeros = [np.zeros((), np.int64) for _ in bounds]
    return _apply_tile(zeros, bounds, tile)[1]


def _apply_tile(
    idx: list[np.ndarray], bounds: list[int], tile: Tile
) -> tuple[list[np.ndarray], list[int]]:
    """One tiling step on major-to-minor indices/bounds (spec/tiled_layout.md)."""
    t = list(tile.dimensions)
    prefix = len(bounds) - len(t)
    head_idx, head_b = list(idx[:prefix]), list(bounds[:prefix])
    tail_idx, tail_b, tail_t = list(idx[prefix:]), list(bounds[prefix:]), []
    # Combine '*' dimensions into the next more minor one.
    merged_idx: list[np.ndarray] = []
    merged_b: list[int] = []
    carry_idx, carry_b = None, 1
    for i, (e, d) in enumerate(zip(tail_idx, tail_b, strict=True)):
        if carry_idx is not None:
            e = carry_idx * d + e
            d = carry_b * d
            carry_idx, carry_b = None, 1
        if t[i] == COMBINE_DIMENSION:
            carry_idx, carry_b = e, d
            continue
        merged_idx.append(e)
        merged_b.append(d)
        tail_t.append(t[i])
    tiles_idx = [e // s for e, s in zip(merged_idx, tail_t, strict=True)]
    tiles_b = [-(-d // s) for d, s in zip(merged_b, tail_t, strict=True)]
    within_idx = [e % s for e, s in zip(merged_idx, tail_t, strict=True)]
    return head_idx + tiles_idx + within_idx, head_b + tiles_b + tail_t


def physical_bounds(dimensions: Sequence[int], layout: Layout) -> list[int]:
    """The row-major bounds of the physical buffer after padding and tiling."""
    check_layout_for_dimensions(layout, dimensions)
    bounds = _physical_bounds(layout, dimensions)
    for tile in layout.tiles:
        bounds = _tile_bounds(bounds, tile)
    return bounds


def physical_element_count(dimensions: Sequence[int], layout: Layout | None) -> int:
    """Elements in the physical buffer, padding and partial tiles included."""
    if layout is None:
        return int(np.prod(dimensions, dtype=np.int64))
    return int(np.prod(physical_bounds(dimensions, layout), dtype=np.int64))


def linear_indices(
    dimensions: Sequence[int], layout: Layout, indices: Sequence[np.ndarray]
) -> np.ndarray:
    """Linear buffer positions of the given multi-indices (one array per dimension)."""
    check_layout_for_dimensions(layout, dimensions)
    idx = [np.asarray(indices[d], dtype=np.int64) for d in layout.major_to_minor]
    bounds = _physical_bounds(layout, dimensions)
    for tile in layout.tiles:
        idx, bounds = _apply_tile(idx, bounds, tile)
    linear = np.zeros(np.broadcast_shapes(*(i.shape for i in idx)) if idx else (), np.int64)
    for e, d in zip(idx, bounds, strict=True):
        linear = linear * d + e
    return linear


def physical_positions(dimensions: Sequence[int], layout: Layout) -> np.ndarray:
    """For every logical element (an array of ``dimensions``), its buffer position."""
    grids = np.indices(tuple(dimensions), dtype=np.int64, sparse=True) if dimensions else []
    return np.broadcast_to(linear_indices(dimensions, layout, list(grids)), tuple(dimensions))


def linear_index(dimensions: Sequence[int], layout: Layout, multi_index: Sequence[int]) -> int:
    """IndexUtil::MultidimensionalIndexToLinearIndex for any layout."""
    if len(multi_index) != len(dimensions):
        raise InvalidArgumentError(
            f"index {list(multi_index)} has {len(multi_index)} entries; the array has "
            f"{len(dimensions)} dimensions {list(dimensions)}"
        )
    for d, (i, n) in enumerate(zip(multi_index, dimensions, strict=True)):
        if not 0 <= i < n:
            raise InvalidArgumentError(
                f"index {list(multi_index)} is out of bounds in dimension {d} (size {n})"
            )
    return int(linear_indices(dimensions, layout, [np.int64(i) for i in multi_index]))


def multi_index(dimensions: Sequence[int], layout: Layout, linear: int) -> tuple[int, ...]:
    """IndexUtil::LinearIndexToMultidimensionalIndex; error for a padding position."""
    if layout.is_plain:
        # Fast path: mixed-radix decomposition in physical order.
        count = int(np.prod(dimensions, dtype=np.int64))
        if not 0 <= linear < count:
            raise InvalidArgumentError(f"linear index {linear} is outside [0, {count})")
        out = [0] * len(dimensions)
        for d in layout.minor_to_major:
            linear, out[d] = divmod(linear, dimensions[d])
        return tuple(out)
    positions = physical_positions(dimensions, layout)
    hits = np.flatnonzero(positions.ravel() == linear)
    if hits.size == 0:
        total = physical_element_count(dimensions, layout)
        raise InvalidArgumentError(
            f"linear index {linear} of layout {layout} over {list(dimensions)} is "
            + ("padding, not an element" if 0 <= linear < total else f"outside [0, {total})")
        )
    return tuple(int(i) for i in np.unravel_index(int(hits[0]), tuple(dimensions)))


def parse_tile_list(groups: Iterable[str]) -> tuple[Tile, ...]:
    """Tiles from the bodies of ``T(8,128)(2,1)`` groups."""
    tiles = []
    for body in groups:
        dims = [COMBINE_DIMENSION if p.strip() == "*" else int(p) for p in body.split(",")]
        tiles.append(Tile(tuple(dims)))
    return tuple(tiles)


__all__ = [
    "COMBINE_DIMENSION",
    "Layout",
    "PaddingValue",
    "Tile",
    "linear_index",
    "linear_indices",
    "multi_index",
    "physical_bounds",
    "physical_element_count",
    "physical_positions",
]
