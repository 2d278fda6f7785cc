"""``RngBitGeneratorExpander``: rng-bit-generator as the integer arithmetic of its block
cipher (Philox-4x32-10 or Threefry-2x32-20), built with the builder, bit for bit the
interpreter's (``evaluator/kernels/random.py``, itself checked against XLA:CPU).

Why: both ciphers are a few dozen rounds of 32-bit adds, xors, rotations and (Philox)
32x32 -> 64-bit multiplies, elementwise over the counters; written as HLO they fuse
into one vectorized loop, where a kernel of its own would repeat that arithmetic in
another language. The key comes from the state operand at run time, so the rounds
take it as a broadcast scalar; counters are an iota plus the state's counter in u64
(Philox carries into the high word as XLA does). The layouts follow the interpreter:
three-fry's 32-bit output halves the shape along its first even dimension (else the
largest) and interleaves the halves; Philox's words go round-robin; 64-bit outputs
take two words per element, narrower ones the low bits of one.
"""

from __future__ import annotations

import math

from ... import ops
from ...builder import XlaBuilder, XlaComputation, XlaOp
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...shape import Shape
from ...types import PrimitiveType
from ...xla_data import RandomAlgorithm
from ..rewrite import ExpanderPass, splice_computation

Op = HloOpcode
P = PrimitiveType
U32, U64 = P.U32, P.U64
THREEFRY_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
THREEFRY_PARITY = 0x1BD11BDA
PHILOX_W = (0x9E3779B9, 0xBB67AE85)
PHILOX_M = (0xD2511F53, 0xCD9E8D57)
UNSIGNED = {8: P.U8, 16: P.U16, 32: P.U32, 64: P.U64, 2: P.U2, 4: P.U4}


class Lanes:
    """Values of one shape (``dims``), with the scalars broadcast to it.

    Constants are made once per value and shape: the rounds use the same few
    hundreds of times, and building each again would only slow the expansion
    down for CSE to merge them afterwards.
    """

    def __init__(self, builder: XlaBuilder, dims: list[int]) -> None:
        self.builder = builder
        self.dims = dims
        self.constants: dict[tuple, XlaOp] = {}

    def scalar(self, t: PrimitiveType, value: int) -> XlaOp:
        key = (t, value, None)
        if key not in self.constants:
            self.constants[key] = ops.ConstantR0(self.builder, value, t)
        return self.constants[key]

    def splat(self, scalar: XlaOp) -> XlaOp:
        return ops.Broadcast(scalar, self.dims)

    def const(self, t: PrimitiveType, value: int) -> XlaOp:
        key = (t, value, tuple(self.dims))
        if key not in self.constants:
            self.constants[key] = self.splat(self.scalar(t, value))
        return self.constants[key]

    def rotl(self, x: XlaOp, distance: int) -> XlaOp:
        left = ops.ShiftLeft(x, self.const(U32, distance))
        right = ops.ShiftRightLogical(x, self.const(U32, 32 - distance))
        return ops.Or(left, right)

    def low_high(self, wide: XlaOp) -> tuple[XlaOp, XlaOp]:
        """The two u32 halves of a u64 value."""
        high = ops.ShiftRightLogical(wide, self.const(U64, 32))
        return ops.ConvertElementType(wide, U32), ops.ConvertElementType(high, U32)

    def join(self, low: XlaOp, high: XlaOp) -> XlaOp:
        """A u64 from two u32 halves."""
        shifted = ops.ShiftLeft(ops.ConvertElementType(high, U64), self.const(U64, 32))
        return ops.Or(ops.ConvertElementType(low, U64), shifted)


def key_words(lanes: Lanes, state: XlaOp) -> tuple[XlaOp, XlaOp]:
    """The key's two u32 halves as scalars (the state's first word)."""
    key = word(state, 0)
    high = ops.ShiftRightLogical(key, lanes.scalar(U64, 32))
    return ops.ConvertElementType(key, U32), ops.ConvertElementType(high, U32)


def word(state: XlaOp, index: int) -> XlaOp:
    """State word ``index`` as a scalar."""
    return ops.Reshape(ops.Slice(state, [index], [index + 1], [1]), [])


def philox(lanes: Lanes, key: tuple[XlaOp, XlaOp], words: list[XlaOp]) -> list[XlaOp]:
    k0, k1 = key
    x = list(words)
    for _ in range(10):
        lo0, hi0 = lanes.low_high(
            ops.Mul(ops.ConvertElementType(x[0], U64), lanes.const(U64, PHILOX_M[0]))
        )
        lo1, hi1 = lanes.low_high(
            ops.Mul(ops.ConvertElementType(x[2], U64), lanes.const(U64, PHILOX_M[1]))
        )
        k0s, k1s = lanes.splat(k0), lanes.splat(k1)
        x = [ops.Xor(ops.Xor(hi1, x[1]), k0s), lo1, ops.Xor(ops.Xor(hi0, x[3]), k1s), lo0]
        k0 = ops.Add(k0, lanes.scalar(U32, PHILOX_W[0]))
        k1 = ops.Add(k1, lanes.scalar(U32, PHILOX_W[1]))
    return x


def threefry(lanes: Lanes, key: tuple[XlaOp, XlaOp], x0: XlaOp, x1: XlaOp) -> tuple[XlaOp, XlaOp]:
    parity = lanes.scalar(U32, THREEFRY_PARITY)
    k2 = ops.Xor(parity, ops.Xor(key[0], key[1]))
    ks = [lanes.splat(k) for k in (key[0], key[1], k2)]
    x0 = ops.Add(x0, ks[0])
    x1 = ops.Add(x1, ks[1])
    for block in range(5):
        for r in THREEFRY_ROTATIONS[4 * (block % 2) : 4 * (block % 2) + 4]:
            x0 = ops.Add(x0, x1)
            x1 = ops.Xor(lanes.rotl(x1, r), x0)
        x0 = ops.Add(x0, ks[(block + 1) % 3])
        x1 = ops.Add(ops.Add(x1, ks[(block + 2) % 3]), lanes.const(U32, block + 1))
    return x0, x1


def interleave(parts: list[XlaOp], count: int, n: int, dims: list[int]) -> XlaOp:
    """Element i * len(parts) + j from part j (each of ``count`` elements), the first n,
    shaped ``dims``."""
    k = len(parts)
    columns = [ops.Reshape(p, [count, 1]) for p in parts]
    flat = ops.Reshape(ops.ConcatInDim(parts[0].builder, columns, 1), [count * k])
    if count * k != n:
        flat = ops.Slice(flat, [0], [n], [1])
    return ops.Reshape(flat, dims)


def halves(dims: list[int]) -> tuple[int, list[int]]:
    """XLA's SplitShapeIntoHalves (the interpreter's ``_halves``)."""
    if not dims:
        return 0, [1]
    even = [i for i, n in enumerate(dims) if n % 2 == 0]
    split = even[0] if even else max(range(len(dims)), key=lambda i: (dims[i], -i))
    half = list(dims)
    half[split] = -(-dims[split] // 2)
    return split, half


def threefry_bits(lanes: Lanes, state: XlaOp, dims: list[int], wide: bool) -> tuple[XlaOp, XlaOp]:
    """(bits, new counter scalar) of three-fry: u64 bits if ``wide``, else u32."""
    key = key_words(lanes, state)
    counter = word(state, 1)
    split, half = (0, dims) if wide else halves(dims)
    n = math.prod(half)
    lanes.dims = [n]
    inputs = ops.Add(ops.Iota(lanes.builder, Shape.array(U64, [n]), 0), lanes.splat(counter))
    x0, x1 = threefry(lanes, key, *lanes.low_high(inputs))
    new_counter = ops.Add(counter, lanes.scalar(U64, n))
    if wide:
        return ops.Reshape(lanes.join(x0, x1), dims), new_counter
    if not dims:
        return ops.Reshape(x0, []), new_counter
    first = ops.Reshape(x0, half)
    second = ops.Reshape(x1, half)
    columns = [ops.Reshape(h, [*half[: split + 1], 1, *half[split + 1 :]]) for h in (first, second)]
    stacked = ops.ConcatInDim(lanes.builder, columns, split + 1)
    merged = list(half)
    merged[split] *= 2
    out = ops.Reshape(stacked, merged)
    if merged != dims:
        out = ops.Slice(out, [0] * len(dims), dims, [1] * len(dims))
    return out, new_counter


def philox_bits(
    lanes: Lanes, state: XlaOp, dims: list[int], wide: bool, state_words: int
) -> tuple[XlaOp, list[XlaOp]]:
    """(bits, new state words) of Philox."""
    key = key_words(lanes, state)
    key_word = word(state, 0)
    lo = word(state, 1)
    hi = word(state, 2) if state_words == 3 else key_word  # XLA reverses [key, lo]
    n = math.prod(dims)
    per_block = 2 if wide else 4
    blocks = max(1, -(-n // per_block))
    lanes.dims = [blocks]
    low = ops.Add(ops.Iota(lanes.builder, Shape.array(U64, [blocks]), 0), lanes.splat(lo))
    wrapped = ops.Lt(low, lanes.splat(lo))
    hi_plus = ops.Add(hi, lanes.scalar(U64, 1))
    high = ops.Select(wrapped, lanes.splat(hi_plus), lanes.splat(hi))
    words = [*lanes.low_high(low), *lanes.low_high(high)]
    x = philox(lanes, key, words)
    if wide:
        bits = interleave([lanes.join(x[0], x[1]), lanes.join(x[2], x[3])], blocks, n, dims)
    else:
        bits = interleave(x, blocks, n, dims)
    new_lo = ops.Add(lo, lanes.scalar(U64, blocks if n else 0))
    new_hi = ops.Select(ops.Lt(new_lo, lo), hi_plus, hi)
    return bits, [key_word, new_lo, new_hi][:state_words]


def as_element_type(bits: XlaOp, source: PrimitiveType, t: PrimitiveType) -> XlaOp:
    """Unsigned ``source`` bits as ``t``: its low bits, reinterpreted."""
    if t == source:
        return bits
    unsigned = UNSIGNED.get(t.bit_width)
    if unsigned is None:
        raise ValueError(f"no unsigned type of width {t.bit_width}")
    low = bits if unsigned == source else ops.ConvertElementType(bits, unsigned)
    return low if unsigned == t else ops.BitcastConvertType(low, t)


def expansion(instruction: HloInstruction) -> XlaComputation | None:
    """A computation ``state -> (new state, bits)``, or None to leave the instruction."""
    state_shape = instruction.operand(0).shape
    out = instruction.shape.tuple_shapes[1]
    t = out.element_type
    if state_shape.element_type is not P.U64 or state_shape.rank != 1 or not out.is_static:
        return None
    if t.is_pred or t.is_complex or t.bit_width > 64 or (32 < t.bit_width < 64):
        return None
    algorithm = RandomAlgorithm(instruction.attribute("algorithm", RandomAlgorithm.RNG_DEFAULT))
    if algorithm is RandomAlgorithm.RNG_DEFAULT:
        algorithm = RandomAlgorithm.RNG_PHILOX  # the interpreter's (XLA:CPU's) default
    words = state_shape.dimensions[0]
    dims = list(out.dimensions)
    wide = t.bit_width == 64
    b = XlaBuilder(f"{instruction.name}_expanded")
    state = ops.Parameter(b, 0, Shape.array(U64, [words]), "state")
    lanes = Lanes(b, dims)
    if algorithm is RandomAlgorithm.RNG_THREE_FRY:
        if words != 2:
            return None
        bits, new_counter = threefry_bits(lanes, state, dims, wide)
        new_words = [word(state, 0), new_counter]
    elif words in (2, 3):
        bits, new_words = philox_bits(lanes, state, dims, wide, words)
    else:
        return None
    source = U64 if wide else U32
    lanes.dims = dims
    if not wide and t.bit_width < 32:
        bits = ops.And(bits, lanes.const(source, (1 << t.bit_width) - 1))
    value = as_element_type(bits, source, t)
    new_state = ops.ConcatInDim(b, [ops.Reshape(w, [1]) for w in new_words], 0)
    return b.build(ops.Tuple(b, [new_state, value]))


class RngBitGeneratorExpander(ExpanderPass):
    name = "rng-bit-generator-expander"
    opcodes = frozenset({Op.RNG_BIT_GENERATOR})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        built = expansion(instruction)
        return None if built is None else splice_computation(instruction, built)
