"""Packing for xlapy's GEMM: one KC-deep panel of op(A) and of op(B) copied into slivers.

A sliver of A is ``MR`` rows of op(A) over the panel's ``kc`` steps, stored step by step
(``sliver[p * MR + r]``), so the micro-kernel reads it as ``MR / W`` whole vectors per
step whatever A's transpose; a sliver of B is ``NR`` columns stored the same way
(``sliver[p * NR + c]``), one broadcast per column and step. Rows (columns) past the
matrix's edge are zeros, so the micro-kernel always computes a whole tile and only the
store at the edges of C is partial. Each sliver is copied step by step, its lanes unrolled: a
vector at a time where the lanes are adjacent in the source, else one element per lane
(each lane then reads a contiguous run of the source over the steps, and each step
writes one contiguous row of the sliver).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from llvmlite import ir

from ..ir_support import for_range, i64

Address = Callable[[ir.Value, ir.Value], ir.Value]


@contextlib.contextmanager
def scalar_loop(
    b: ir.IRBuilder, stop: ir.Value, name: str, start: ir.Value | None = None
) -> Iterator[ir.Value]:
    """``for p in range(start, stop)`` that LLVM's loop vectorizer leaves alone: the
    packing loops are vectorized by hand (vector copies, 4 x 4 transposes); vectorized
    again, they became gathers and scatters, slower, and a third of the GEMM's compile
    time."""
    with for_range(b, i64(0) if start is None else start, stop, name, vectorize=False) as p:
        yield p


def emit_pack_slivers(
    b: ir.IRBuilder,
    source_at: Address,
    destination: ir.Value,
    slivers: tuple[ir.Value, ir.Value],
    lanes: int,
    total: ir.Value,
    p0: ir.Value,
    kc: ir.Value,
    lanes_adjacent: bool,
    align: int,
    width: int,
) -> None:
    """Slivers ``[first, stop)`` of one panel: ``destination[(s * kc + p) * lanes + l] =
    source(s * lanes + l, p0 + p)`` for ``p < kc``, zero for lanes past ``total``.
    ``source_at(lane, step)`` is the source element's address; ``width``: lanes per
    vector, for copying adjacent lanes a vector at a time.

    Adjacent lanes are copied step by step across all the slivers (each step reads one
    contiguous run of the source, rather than a few lines a leading dimension apart,
    which misses the TLB and defeats the prefetcher); other lanes one at a time, each a
    contiguous run of the source over the steps."""
    first, stop = slivers
    scalar = destination.type.pointee
    zero = ir.Constant(scalar, 0.0)
    last_lane = b.sub(total, i64(1))
    panel = b.mul(kc, i64(lanes))  # elements per sliver

    def valid_of(s: ir.Value) -> ir.Value:
        left = b.sub(total, b.mul(s, i64(lanes)))
        return b.select(b.icmp_signed("<", left, i64(lanes)), left, i64(lanes))

    if lanes_adjacent:
        vector = ir.VectorType(scalar, width).as_pointer()
        with scalar_loop(b, kc, "pack_p") as p:
            step = b.add(p0, p)
            with scalar_loop(b, stop, "pack_s", first) as s:
                base_lane = b.mul(s, i64(lanes))
                slot = b.add(b.mul(s, panel), b.mul(p, i64(lanes)))
                full = b.icmp_signed("==", valid_of(s), i64(lanes))
                with b.if_else(full) as (whole, edge):
                    with whole:
                        chunk = width if lanes % width == 0 else 1  # a vector, else lanes
                        kind = vector if chunk > 1 else scalar.as_pointer()
                        for lane in range(0, lanes, chunk):
                            source = b.bitcast(source_at(b.add(base_lane, i64(lane)), step), kind)
                            target = b.bitcast(b.gep(destination, [b.add(slot, i64(lane))]), kind)
                            b.store(b.load(source, align=align), target, align=align)
                    with edge:
                        valid = valid_of(s)
                        with scalar_loop(b, i64(lanes), "pack_e") as lane:
                            index = b.add(base_lane, lane)
                            clamped = b.select(
                                b.icmp_signed("<", index, last_lane), index, last_lane
                            )
                            value = b.load(source_at(clamped, step), align=align)
                            inside = b.icmp_signed("<", lane, valid)
                            target = b.gep(destination, [b.add(slot, lane)])
                            b.store(b.select(inside, value, zero), target, align=align)
        return
    with scalar_loop(b, stop, "pack_s", first) as s:
        base_lane = b.mul(s, i64(lanes))
        sliver = b.mul(s, panel)
        valid = valid_of(s)
        by_lane = (b, source_at, destination, base_lane, sliver, lanes, valid, p0, kc, align)
        if lanes % _SQUARE:
            _lane_by_lane(*by_lane)
        else:
            full = b.icmp_signed("==", valid, i64(lanes))
            with b.if_else(full) as (whole, edge):
                with whole:
                    _transposed(b, source_at, destination, base_lane, sliver, lanes, p0, kc, align)
                with edge:
                    _lane_by_lane(*by_lane)


_SQUARE = 4  # the transposed blocks: 4 lanes by 4 steps


def _transposed(b, source_at, destination, base_lane, sliver, lanes, p0, kc, align) -> None:  # noqa: ANN001
    """A whole sliver whose steps are contiguous in the source: 4 x 4 blocks, each read
    as 4 vectors (one per lane, 4 steps each) and transposed in registers into 4 rows
    of the sliver (a quarter of the scalar copy's loads and stores)."""
    scalar = destination.type.pointee
    vector = ir.VectorType(scalar, _SQUARE)
    pointer = vector.as_pointer()
    quads = b.udiv(kc, i64(_SQUARE))
    with scalar_loop(b, quads, "pack_q") as q:
        p = b.mul(q, i64(_SQUARE))
        step = b.add(p0, p)
        for group in range(0, lanes, _SQUARE):
            rows = [
                b.load(
                    b.bitcast(source_at(b.add(base_lane, i64(group + r)), step), pointer),
                    align=align,
                )
                for r in range(_SQUARE)
            ]
            for s, row in enumerate(_transpose4(b, rows)):
                slot = b.add(sliver, b.add(b.mul(b.add(p, i64(s)), i64(lanes)), i64(group)))
                b.store(row, b.bitcast(b.gep(destination, [slot]), pointer), align=align)
    with scalar_loop(b, kc, "pack_t", b.mul(quads, i64(_SQUARE))) as p:
        for lane in range(lanes):
            value = b.load(source_at(b.add(base_lane, i64(lane)), b.add(p0, p)), align=align)
            slot = b.add(sliver, b.add(b.mul(p, i64(lanes)), i64(lane)))
            b.store(value, b.gep(destination, [slot]), align=align)


def _transpose4(b: ir.IRBuilder, rows: list[ir.Value]) -> list[ir.Value]:
    """The 4 x 4 transpose of four 4-vectors (unpack low/high, then move pairs)."""
    mask = lambda *lanes: ir.Constant(ir.VectorType(ir.IntType(32), 4), list(lanes))  # noqa: E731
    t0 = b.shuffle_vector(rows[0], rows[1], mask(0, 4, 1, 5))
    t1 = b.shuffle_vector(rows[0], rows[1], mask(2, 6, 3, 7))
    t2 = b.shuffle_vector(rows[2], rows[3], mask(0, 4, 1, 5))
    t3 = b.shuffle_vector(rows[2], rows[3], mask(2, 6, 3, 7))
    return [
        b.shuffle_vector(t0, t2, mask(0, 1, 4, 5)),
        b.shuffle_vector(t0, t2, mask(2, 3, 6, 7)),
        b.shuffle_vector(t1, t3, mask(0, 1, 4, 5)),
        b.shuffle_vector(t1, t3, mask(2, 3, 6, 7)),
    ]


def _lane_by_lane(
    b, source_at, destination, base_lane, sliver, lanes, valid, p0, kc, align
) -> None:  # noqa: ANN001
    """Each lane a contiguous run of the source over the steps; zeros past ``valid``."""
    zero = ir.Constant(destination.type.pointee, 0.0)
    with scalar_loop(b, i64(lanes), "pack_l") as lane:
        inside = b.icmp_signed("<", lane, valid)
        with b.if_else(inside) as (copy, clear):
            with copy, scalar_loop(b, kc, "pack_lp") as p:
                value = b.load(source_at(b.add(base_lane, lane), b.add(p0, p)), align=align)
                slot = b.add(sliver, b.add(b.mul(p, i64(lanes)), lane))
                b.store(value, b.gep(destination, [slot]), align=align)
            with clear, scalar_loop(b, kc, "pack_zp") as p:
                slot = b.add(sliver, b.add(b.mul(p, i64(lanes)), lane))
                b.store(zero, b.gep(destination, [slot]), align=align)


__all__ = ["emit_pack_slivers", "scalar_loop"]
