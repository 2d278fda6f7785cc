"""The GEMM's register tile and cache blocks, per element type and vector width.

Register tile (``MR x NR``: MR rows of C in ``MR / W`` vectors of W lanes, NR columns),
measured on a 1024^3 GEMM on one core of a Sapphire Rapids host (docs/gemm.md): with
AVX-512's 32 registers, 2 vectors x 12 columns (24 accumulators, 2 for A, the broadcast
folded into the FMA); with AVX2's 16, 2 vectors x 6 columns (12 accumulators). Narrower
targets (aarch64's NEON in ahead-of-time objects, SSE) take 2 vectors x 4.

Cache blocks as BLIS chooses them: a packed sliver of B (``KC x NR``) stays in L1
while the slivers of A stream past it, so KC is about 3/4 of L1 over ``NR`` elements; a
block of packed A (``MC x KC``) stays in L2 while the block's columns go by, so MC is
about half of L2 over KC elements. The cache sizes are read once per process from
``/sys/devices/system/cpu/cpu0/cache`` (32 KiB L1 and 1 MiB L2 where unknown). The
blocking never changes a result: every element of C is summed in the order
p = 0, ..., k - 1 whatever the blocks (docs/gemm.md).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

from ....types import PrimitiveType

P = PrimitiveType
_CACHE_ROOT = Path("/sys/devices/system/cpu/cpu0/cache")
_DEFAULT_L1 = 32 * 1024
_DEFAULT_L2 = 1024 * 1024
# The part of L1 a packed sliver of B (KC x NR) may fill: 3/4 (KC 512 for f32 with 12
# columns in 32 KiB; BLIS takes 384 on Skylake-X). Measured on two cores of a Cascade
# Lake, variants taking turns: against 40% (KC 272, four passes over C in a 1024^3 GEMM
# instead of two) 1.10x faster; against 9/16 1.01-1.04x (f32 1024^3, 2048^3, k 1000 and
# 4096), f64 1.05x, AVX2 1.03-1.09x; 7/8 and all of L1 were slower again (docs/gemm.md).
B_SLIVER_SHARE_OF_L1 = 0.75
# (vectors of A per tile, columns per tile) by vector width in bits.
_REGISTER_TILES = {512: (2, 12), 256: (2, 6), 128: (2, 4)}
GEMM_REAL_TYPES = frozenset({P.F32, P.F64})


@dataclass(frozen=True)
class Blocking:
    """The tile and block sizes of one GEMM variant (all in elements)."""

    width: int  # lanes per vector
    vectors: int  # vectors of A per register tile
    nr: int  # columns per register tile
    kc: int  # steps of k per block (the most; a smaller workspace lowers it)
    mc: int  # rows of A per cache block (a multiple of mr)

    @property
    def mr(self) -> int:
        return self.width * self.vectors


def _size(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1024, "M": 1024 * 1024, "G": 1024**3}.get(text[-1:], 1)
    return int(text.rstrip("KMG")) * scale


@functools.cache
def cache_sizes() -> tuple[int, int]:
    """(L1 data, L2) in bytes for this host's first CPU, defaults where unknown."""
    found = {1: _DEFAULT_L1, 2: _DEFAULT_L2}
    try:
        for index in sorted(os.listdir(_CACHE_ROOT)):
            if not index.startswith("index"):
                continue
            folder = _CACHE_ROOT / index
            level = int((folder / "level").read_text())
            kind = (folder / "type").read_text().strip()
            if level in found and kind in ("Data", "Unified"):
                found[level] = _size((folder / "size").read_text())
    except (OSError, ValueError):
        pass
    return found[1], found[2]


def blocking(et: PrimitiveType, bits: int) -> Blocking:
    """The blocks of a GEMM of ``et`` with ``bits``-wide vectors on this host."""
    size = et.byte_width
    width = max(1, bits // (8 * size))
    vectors, nr = _REGISTER_TILES.get(bits, _REGISTER_TILES[128])
    l1, l2 = cache_sizes()
    kc = max(64, min(1024, int(B_SLIVER_SHARE_OF_L1 * l1) // (nr * size)) // 16 * 16)
    mr = width * vectors
    mc = max(mr, min(1024, (l2 // 2) // (kc * size)) // mr * mr)
    return Blocking(width, vectors, nr, kc, mc)


def round_up(x: int, step: int) -> int:
    return -(-x // step) * step


def workspace_bytes(et: PrimitiveType, bits: int, m: int, n: int, k: int, most: int) -> int:
    """The workspace a GEMM of these sizes gets: packed A and B (rows and columns rounded
    up to the tile) for all of k where that takes at most ``most`` bytes, else for as
    many steps as fit (one KC-deep panel at least). The GEMM lowers its panels to what
    the workspace it is given holds, so a program stored by another process stays safe."""
    if et not in GEMM_REAL_TYPES:
        return 0
    block = blocking(et, bits)
    per_step = (round_up(m, block.mr) + round_up(n, block.nr)) * et.byte_width
    steps = min(max(k, 1), max(block.kc, most // max(1, per_step)))
    return per_step * steps


__all__ = ["GEMM_REAL_TYPES", "Blocking", "blocking", "cache_sizes", "round_up", "workspace_bytes"]
