"""Interpreter kernels of the random-number ops: rng-bit-generator, rng, rng-get-and-update-state.

rng-bit-generator is bit-exact with XLA: it follows the definitions in XLA's
``prng.cc`` (Threefry-2x32 with 20 rounds, Philox-4x32 with 10 rounds, the
counter layouts, the halving of the shape for 32-bit three-fry output, the
round-robin interleaving of Philox words) and the state conventions of XLA's
``RngBitGeneratorExpander``. ``RNG_DEFAULT`` is Philox, XLA:CPU's choice;
every combination was checked against XLA:CPU (see tests/.../test_rng.py).
State layouts:

* three-fry, u64[2] ``[key, counter]``: the counter advances by the number
  of 64-bit counters consumed.
* philox, u64[3] ``[key, counter_lo, counter_hi]``: a 128-bit counter.
* philox, u64[2] ``[key, counter_lo]``: the counter's high word is the key
  (XLA reverses the vector), and only the low word is written back.

Outputs narrower than 32 bits are the low bits of 32-bit outputs (XLA wastes
the rest too); 64-bit outputs use two 32-bit words per element.

``rng`` (the stateful distributions) is what XLA's ``RngExpander`` turns it
into: a Philox draw keyed by a constant, from a counter taken with
rng-get-and-update-state, so results are deterministic given the device's
state (XLA keys it with a per-module random number instead, so only the
algorithm, not the exact bits, can match). The device state is one 128-bit
integer in ``ctx.device.rng_state[0]``.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import UnimplementedError
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ...shape import Shape
from ...types import PrimitiveType
from ...xla_data import RandomAlgorithm, RandomDistribution
from ..core import EvalContext, Value, kernel

_U32 = np.uint32
_U64 = np.uint64
_MASK64 = (1 << 64) - 1
_MASK128 = (1 << 128) - 1

# -- the two block ciphers ------------------------------------------------------------------

_THREEFRY_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
_THREEFRY_PARITY = 0x1BD11BDA


def _rotl(v: np.ndarray, distance: int) -> np.ndarray:
    return (v << _U32(distance)) | (v >> _U32(32 - distance))


def threefry2x32(key: tuple[int, int], x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, ...]:
    """Threefry-2x32, 20 rounds (Salmon et al. 2011), elementwise over uint32 arrays."""
    ks = [_U32(key[0]), _U32(key[1]), _U32(_THREEFRY_PARITY ^ key[0] ^ key[1])]
    x0 = x0.astype(_U32) + ks[0]
    x1 = x1.astype(_U32) + ks[1]
    for block in range(5):
        rotations = _THREEFRY_ROTATIONS[4 * (block % 2) : 4 * (block % 2) + 4]
        for r in rotations:
            x0 = x0 + x1
            x1 = _rotl(x1, r) ^ x0
        x0 = x0 + ks[(block + 1) % 3]
        x1 = x1 + ks[(block + 2) % 3] + _U32(block + 1)
    return x0, x1


_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)


def _mul_hi_lo(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    product = x.astype(_U64) * _U64(k)
    return (product >> _U64(32)).astype(_U32), product.astype(_U32)


def philox4x32(key: tuple[int, int], words: list[np.ndarray]) -> list[np.ndarray]:
    """Philox-4x32, 10 rounds, elementwise over four uint32 arrays."""
    k0, k1 = key
    x = [w.astype(_U32) for w in words]
    for _ in range(10):
        hi0, lo0 = _mul_hi_lo(x[0], _PHILOX_M[0])
        hi1, lo1 = _mul_hi_lo(x[2], _PHILOX_M[1])
        x = [hi1 ^ x[1] ^ _U32(k0), lo1, hi0 ^ x[3] ^ _U32(k1), lo0]
        k0, k1 = (k0 + _PHILOX_W[0]) & 0xFFFFFFFF, (k1 + _PHILOX_W[1]) & 0xFFFFFFFF
    return x


def _split_key(key: int) -> tuple[int, int]:
    return key & 0xFFFFFFFF, (key >> 32) & 0xFFFFFFFF


# -- bit generators: (key, counter) -> (bits of a shape, new counter) ---------------------


def _halves(dims: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """XLA's SplitShapeIntoHalves: the dimension split in two and the half shape.

    The first even dimension, else the largest; a scalar is treated as [2].
    """
    if not dims:
        return 0, (1,)
    even = [i for i, n in enumerate(dims) if n % 2 == 0]
    split = even[0] if even else max(range(len(dims)), key=lambda i: (dims[i], -i))
    half = list(dims)
    half[split] = -(-dims[split] // 2)
    return split, tuple(half)


def _combine_halves(
    first: np.ndarray, second: np.ndarray, split: int, dims: tuple[int, ...]
) -> np.ndarray:
    """Interleave two half arrays along ``split`` (element 2h+c comes from half c), crop."""
    if not dims:
        return first.reshape(())
    pairs = np.stack([first, second], axis=split + 1)
    merged = list(dims)
    merged[split] = 2 * first.shape[split]
    out = pairs.reshape(merged)
    return out[tuple(slice(0, n) for n in dims)]


def _counters(start: int, count: int) -> np.ndarray:
    """start, start+1, ... as uint64, wrapping modulo 2**64."""
    return np.arange(count, dtype=_U64) + _U64(start & _MASK64)


def _threefry_u32(key: int, counter: int, dims: tuple[int, ...]) -> tuple[np.ndarray, int]:
    split, half = _halves(dims)
    n = math.prod(half)
    inputs = _counters(counter, n)
    x0, x1 = threefry2x32(_split_key(key), inputs.astype(_U32), (inputs >> _U64(32)).astype(_U32))
    out = _combine_halves(x0.reshape(half), x1.reshape(half), split, dims)
    return out, (counter + n) & _MASK64


def _threefry_u64(key: int, counter: int, dims: tuple[int, ...]) -> tuple[np.ndarray, int]:
    n = math.prod(dims)
    inputs = _counters(counter, n)
    x0, x1 = threefry2x32(_split_key(key), inputs.astype(_U32), (inputs >> _U64(32)).astype(_U32))
    out = x0.astype(_U64) | (x1.astype(_U64) << _U64(32))
    return out.reshape(dims), (counter + n) & _MASK64


def _philox_blocks(key: int, counter: int, blocks: int) -> tuple[list[np.ndarray], int]:
    """Philox of the 128-bit counters counter, counter+1, ... (carry into the high word)."""
    lo, hi = counter & _MASK64, (counter >> 64) & _MASK64
    low = np.arange(blocks, dtype=_U64) + _U64(lo)
    high = np.where(low < _U64(lo), _U64((hi + 1) & _MASK64), _U64(hi)).astype(_U64)
    words = [
        low.astype(_U32),
        (low >> _U64(32)).astype(_U32),
        high.astype(_U32),
        (high >> _U64(32)).astype(_U32),
    ]
    # XLA adds the count to the low word with a carry computed the same way.
    new_lo = (lo + blocks) & _MASK64
    new_hi = (hi + 1) & _MASK64 if new_lo < lo else hi
    return philox4x32(_split_key(key), words), new_lo | (new_hi << 64)


def _philox_u32(key: int, counter: int, dims: tuple[int, ...]) -> tuple[np.ndarray, int]:
    n = math.prod(dims)
    words, new_counter = _philox_blocks(key, counter, -(-n // 4))
    out = np.stack(words, axis=1).reshape(-1)[:n]
    return out.reshape(dims), new_counter


def _philox_u64(key: int, counter: int, dims: tuple[int, ...]) -> tuple[np.ndarray, int]:
    n = math.prod(dims)
    words, new_counter = _philox_blocks(key, counter, -(-n // 2))
    w = [x.astype(_U64) for x in words]
    pairs = [w[0] | (w[1] << _U64(32)), w[2] | (w[3] << _U64(32))]
    out = np.stack(pairs, axis=1).reshape(-1)[:n]
    return out.reshape(dims), new_counter


_GENERATORS = {
    RandomAlgorithm.RNG_THREE_FRY: (_threefry_u32, _threefry_u64),
    RandomAlgorithm.RNG_PHILOX: (_philox_u32, _philox_u64),
}


def random_bits(
    algorithm: RandomAlgorithm, key: int, counter: int, dims: tuple[int, ...], bit_width: int
) -> tuple[np.ndarray, int]:
    """Unsigned bits of ``bit_width`` (<= 64) for shape ``dims``, and the advanced counter."""
    bits32, bits64 = _GENERATORS[algorithm]
    if bit_width == 64:
        return bits64(key, counter, dims)
    if bit_width > 32:
        raise UnimplementedError(f"random bits of width {bit_width} are not supported")
    out, new_counter = bits32(key, counter, dims)
    if bit_width < 32:
        out = out & _U32((1 << bit_width) - 1)
    return out, new_counter


def _as_element_type(bits: np.ndarray, t: PrimitiveType) -> np.ndarray:
    """Reinterpret unsigned bits as element type ``t`` (two's complement for signed types)."""
    width = t.bit_width
    if t.is_signed_integral or t.is_float:
        if width in (8, 16, 32, 64):
            unsigned = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
            return bits.astype(unsigned).view(t.dtype)
        signed = bits.astype(np.int64)
        signed = np.where(signed >= (1 << (width - 1)), signed - (1 << width), signed)
        return signed.astype(t.dtype)
    return bits.astype(t.dtype)


# -- rng-bit-generator --------------------------------------------------------------------

DEFAULT_ALGORITHM = RandomAlgorithm.RNG_PHILOX  # XLA:CPU's RNG_DEFAULT


@kernel(Op.RNG_BIT_GENERATOR)
def _rng_bit_generator(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    (state,) = operands
    algorithm = RandomAlgorithm(instruction.attribute("algorithm", RandomAlgorithm.RNG_DEFAULT))
    if algorithm is RandomAlgorithm.RNG_DEFAULT:
        algorithm = DEFAULT_ALGORITHM
    out_shape = instruction.shape.tuple_shapes[1]
    if state.dtype != np.uint64:
        raise ctx.fail(
            instruction,
            f"the state must be u64 (as in XLA), got {instruction.operand(0).shape}",
        )
    words = [int(v) for v in state]
    key = words[0]
    if algorithm is RandomAlgorithm.RNG_THREE_FRY:
        if len(words) != 2:
            raise ctx.fail(instruction, "rng_three_fry needs a u64[2] state [key, counter]")
        counter = words[1]
    elif len(words) == 3:
        counter = words[1] | (words[2] << 64)
    elif len(words) == 2:  # XLA reverses [key, lo] into the counter (lo, hi=key)
        counter = words[1] | (words[0] << 64)
    else:
        raise ctx.fail(instruction, "rng_philox needs a u64[2] or u64[3] state")
    element_type = out_shape.element_type
    width = element_type.bit_width
    bits, new_counter = random_bits(algorithm, key, counter, tuple(out_shape.dimensions), width)
    if len(words) == 3:
        new_words = [key, new_counter & _MASK64, new_counter >> 64]
    else:  # three-fry, or philox keeping only the low word, as XLA does
        new_words = [key, new_counter & _MASK64]
    new_state = np.array(new_words, dtype=np.uint64)
    return new_state, _as_element_type(bits, element_type)


# -- the device's stateful generator ------------------------------------------------------

# The Philox key of the ``rng`` op. XLA draws one per module; a constant keeps a
# run determined by the device's state alone.
RNG_KEY = 0x5EED_0F_C0FFEE_5EED


def get_and_update_state(ctx: EvalContext, delta: int) -> int:
    """The device's 128-bit counter before adding ``delta`` (XLA's RngGetAndUpdateState)."""
    cell = ctx.device.rng_state
    with ctx.device.lock:
        old = int(cell[0]) & _MASK128
        cell[0] = (old + delta) & _MASK128
    return old


@kernel(Op.RNG_GET_AND_UPDATE_STATE)
def _rng_get_and_update_state(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    old = get_and_update_state(ctx, int(instruction.attribute("delta", 0)))
    return np.array([old & _MASK64, old >> 64], dtype=np.uint64)


def _uniform_unit(bits: np.ndarray, width: int, t: PrimitiveType) -> np.ndarray:
    """[0, 1) from the top mantissa-many bits, as XLA's ConvertRandomBitsToUniformFloatingPoint."""
    mantissa = t.exponent_mantissa_bits[1]
    shifted = bits >> np.array(width - mantissa, dtype=bits.dtype)
    return shifted.astype(t.dtype) * t.dtype.type(2.0**-mantissa)


def _below(limit: np.ndarray) -> np.ndarray:
    """The largest value of ``limit``'s float type that is smaller than ``limit``."""
    unsigned = {2: np.uint16, 4: np.uint32, 8: np.uint64}.get(limit.dtype.itemsize, np.uint8)
    raw = limit.reshape(1).view(unsigned)
    sign = unsigned(1) << unsigned(8 * limit.dtype.itemsize - 1)
    if float(limit) == 0:
        raw = np.array([sign | unsigned(1)], unsigned)
    elif float(limit) > 0:
        raw = raw - unsigned(1)
    else:
        raw = raw + unsigned(1)
    return raw.view(limit.dtype).reshape(())


def _uniform_int(bits: np.ndarray, width: int, a: int, b: int) -> np.ndarray:
    """XLA's ConvertRandomBitsToUniformInt: a + bits mod (b - a), in unsigned arithmetic."""
    mask = (1 << width) - 1
    span = (b - a) & mask
    u = bits.astype(np.uint64)
    dist = u % np.uint64(span) if span else u  # XLA's remainder by zero is the dividend
    half = dist >> np.uint64(1)
    with np.errstate(over="ignore"):  # unsigned wrap-around is the arithmetic here
        return (np.uint64(a & mask) + half + (dist - half)) & np.uint64(mask)


def _standard_normal(
    counter: int, dims: tuple[int, ...], width: int, t: PrimitiveType
) -> np.ndarray:
    """XLA's NormalFloatingPointDistribution: Box-Muller on pairs drawn for the halved shape.

    The uniform pairs are drawn for the half shape with a new axis of 2 after
    the split dimension (a scalar draws 2 values), as XLA lays them out.
    """
    split, half = _halves(dims)
    pair_axis = split + 1 if dims else 0
    pair_dims = (*half[:pair_axis], 2, *half[pair_axis:]) if dims else (2,)
    bits, _ = random_bits(RandomAlgorithm.RNG_PHILOX, RNG_KEY, counter, pair_dims, width)
    unit = _uniform_unit(bits, width, t)
    x0, x1 = np.take(unit, [0], axis=pair_axis), np.take(unit, [1], axis=pair_axis)
    x0, x1 = (np.squeeze(v, axis=pair_axis) if dims else v for v in (x0, x1))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        radius = np.sqrt(t.dtype.type(-2.0) * np.log(np.maximum(x0, t.dtype.type(1e-7))))
        angle = t.dtype.type(2.0 * np.pi) * x1
        return _combine_halves(np.sin(angle) * radius, np.cos(angle) * radius, split, dims)


@kernel(Op.RNG)
def _rng(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """Uniform [a, b) or normal(mu, sigma) numbers from the device's Philox counter.

    Types narrower than 32 bits are drawn as 32-bit values (f16/bf16 through
    f32, as XLA's expander does) and converted.
    """
    a, b = (np.asarray(v) for v in operands)
    shape: Shape = instruction.shape
    t = shape.element_type
    dims = tuple(shape.dimensions)
    distribution = RandomDistribution(instruction.attribute("distribution"))
    wide = PrimitiveType.F64 if t == PrimitiveType.F64 else PrimitiveType.F32
    width = 64 if t.bit_width == 64 else 32
    counter = get_and_update_state(ctx, math.prod(dims) * (width // 32))
    if distribution is RandomDistribution.RNG_NORMAL:
        with np.errstate(over="ignore", invalid="ignore"):
            standard = _standard_normal(counter, dims, width, wide)
            values = a.astype(wide.dtype) + b.astype(wide.dtype) * standard
        return values.astype(t.dtype)
    if t.is_pred:  # [a, b) within {false, true} holds a alone
        return np.full(dims, bool(a))
    bits, _ = random_bits(RandomAlgorithm.RNG_PHILOX, RNG_KEY, counter, dims, width)
    if t.is_integral:
        values = _uniform_int(bits, width, int(a), int(b))
        return _as_element_type(values & np.uint64((1 << t.bit_width) - 1), t)
    lo, hi = a.astype(wide.dtype), b.astype(wide.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        values = (_uniform_unit(bits, width, wide) * (hi - lo) + lo).astype(t.dtype)
    # XLA can round up to b itself; the op promises [a, b), so such values step below b.
    limit = b.astype(t.dtype)
    if a.astype(t.dtype) < limit:
        values = np.where(values >= limit, _below(limit), values)
    return values


__all__ = ["DEFAULT_ALGORITHM", "RNG_KEY", "philox4x32", "random_bits", "threefry2x32"]
