"""Hypothesis strategies for element types, shapes and layouts.

They live in the package (not under tests/) so that every test module, the
fuzzers and users' own property tests draw from the same distributions.
Requires ``hypothesis`` (the ``test`` extra).
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..layout import COMBINE_DIMENSION, Layout, PaddingValue, Tile
from ..shape import Shape
from ..types import ARRAY_TYPES, PrimitiveType

element_types = st.sampled_from(ARRAY_TYPES)


def dimensions(max_rank: int = 4, max_size: int = 5, min_rank: int = 0) -> st.SearchStrategy:
    return st.lists(st.integers(0, max_size), min_size=min_rank, max_size=max_rank).map(tuple)


@st.composite
def layouts(
    draw: st.DrawFn,
    dims: tuple[int, ...],
    allow_padding: bool = True,
    allow_tiles: bool = True,
) -> Layout:
    """A valid layout for an array of ``dims``: any permutation, maybe padding and tiles."""
    rank = len(dims)
    m2m = tuple(draw(st.permutations(range(rank)))) if rank else ()
    padded: tuple[int, ...] = ()
    pad_value = PaddingValue.ZERO_PAD
    if allow_padding and rank and draw(st.booleans()):
        padded = tuple(d + draw(st.integers(0, 3)) for d in dims)
        pad_value = draw(st.sampled_from([PaddingValue.ZERO_PAD, PaddingValue.ONE_PAD]))
    tiles: list[Tile] = []
    if allow_tiles and rank and draw(st.booleans()):
        tiled_rank = rank
        for _ in range(draw(st.integers(1, 2))):
            k = draw(st.integers(1, tiled_rank))
            entries = [draw(st.integers(1, 4)) for _ in range(k)]
            # '*' may combine any but the most minor tile entry.
            for i in range(k - 1):
                if draw(st.integers(0, 4)) == 0:
                    entries[i] = COMBINE_DIMENSION
            tiles.append(Tile(tuple(entries)))
            combined = entries.count(COMBINE_DIMENSION)
            tiled_rank = tiled_rank - combined + (k - combined)
    return Layout(m2m, tuple(tiles), padded_dimensions=padded, padding_value=pad_value)


@st.composite
def array_shapes(
    draw: st.DrawFn,
    element_type: PrimitiveType | None = None,
    max_rank: int = 4,
    max_size: int = 5,
    layout: str = "any",
) -> Shape:
    """An array shape; ``layout`` is "any" (maybe padded/tiled), "plain", "default" or "none"."""
    et = element_type if element_type is not None else draw(element_types)
    dims = draw(dimensions(max_rank, max_size))
    if layout == "none":
        return Shape.array(et, dims, None)
    if layout == "default":
        return Shape.array(et, dims)
    plain = layout == "plain"
    lay = draw(layouts(dims, allow_padding=not plain, allow_tiles=not plain))
    dynamic = None
    if draw(st.integers(0, 5)) == 0 and dims:
        dynamic = [draw(st.booleans()) for _ in dims]
    return Shape.array(et, dims, lay, dynamic)


def shapes(max_depth: int = 2) -> st.SearchStrategy:
    """Arrays, tokens and (nested) tuples of them."""
    leaves = st.one_of(array_shapes(), st.just(Shape.token()))
    return st.recursive(
        leaves, lambda inner: st.lists(inner, max_size=3).map(Shape.tuple), max_leaves=6
    )
