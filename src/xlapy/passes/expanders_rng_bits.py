"""``RngBitGeneratorExpander``: rng-bit-generator as the integer arithmetic of its block
cipher (Philox-4x32-10 or Threefry-2x32-20), written in HLO, bit for bit the
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

from ..hlo.instruction import HloInstruction
from ..opcode import HloOpcode
from ..types import PrimitiveType
from ..xla_data import RandomAlgorithm
from .expansion import ExpanderPass, hlo_shape, splice

Op = HloOpcode
P = PrimitiveType
_THREEFRY_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
_THREEFRY_PARITY = 0x1BD11BDA
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)


class _Lines:
    """HLO lines with fresh names; every value has the same dimensions unless told."""

    def __init__(self, dims: list[int]):
        self.dims = dims
        self.lines: list[str] = []
        self.count = 0

    def emit(self, t: str, expression: str, dims: list[int] | None = None) -> str:
        self.count += 1
        name = f"v{self.count}"
        shape = hlo_shape(t, self.dims if dims is None else dims)
        self.lines.append(f"  {name} = {shape} {expression}")
        return name

    def scalar(self, t: str, value: int) -> str:
        return self.emit(t, f"constant({value})", [])

    def splat(self, t: str, scalar: str) -> str:
        return self.emit(t, f"broadcast({scalar}), dimensions={{}}")

    def const(self, t: str, value: int) -> str:
        return self.splat(t, self.scalar(t, value))

    def op(self, t: str, opcode: str, *args: str) -> str:
        return self.emit(t, f"{opcode}({', '.join(args)})")

    def rotl(self, x: str, distance: int) -> str:
        left = self.op("u32", "shift-left", x, self.const("u32", distance))
        right = self.op("u32", "shift-right-logical", x, self.const("u32", 32 - distance))
        return self.op("u32", "or", left, right)

    def low_high(self, wide: str) -> tuple[str, str]:
        """The two u32 halves of a u64 value."""
        high = self.op("u64", "shift-right-logical", wide, self.const("u64", 32))
        return self.op("u32", "convert", wide), self.op("u32", "convert", high)

    def join(self, low: str, high: str) -> str:
        """A u64 from two u32 halves."""
        shifted = self.op(
            "u64", "shift-left", self.op("u64", "convert", high), self.const("u64", 32)
        )
        return self.op("u64", "or", self.op("u64", "convert", low), shifted)


def _key_words(text: _Lines) -> tuple[str, str]:
    """The key's two u32 halves as scalars (the state's first word)."""
    key = text.emit("u64", "slice(state), slice={[0:1]}", [1])
    key = text.emit("u64", f"reshape({key})", [])
    high = text.emit("u64", f"shift-right-logical({key}, {text.scalar('u64', 32)})", [])
    return text.emit("u32", f"convert({key})", []), text.emit("u32", f"convert({high})", [])


def _word(text: _Lines, index: int) -> str:
    """State word ``index`` as a scalar."""
    word = text.emit("u64", f"slice(state), slice={{[{index}:{index + 1}]}}", [1])
    return text.emit("u64", f"reshape({word})", [])


def _philox(text: _Lines, key: tuple[str, str], words: list[str]) -> list[str]:
    k0, k1 = key
    x = list(words)
    for _ in range(10):
        lo0, hi0 = text.low_high(
            text.op(
                "u64", "multiply", text.op("u64", "convert", x[0]), text.const("u64", _PHILOX_M[0])
            )
        )
        lo1, hi1 = text.low_high(
            text.op(
                "u64", "multiply", text.op("u64", "convert", x[2]), text.const("u64", _PHILOX_M[1])
            )
        )
        k0s, k1s = text.splat("u32", k0), text.splat("u32", k1)
        x = [
            text.op("u32", "xor", text.op("u32", "xor", hi1, x[1]), k0s),
            lo1,
            text.op("u32", "xor", text.op("u32", "xor", hi0, x[3]), k1s),
            lo0,
        ]
        k0 = text.emit("u32", f"add({k0}, {text.scalar('u32', _PHILOX_W[0])})", [])
        k1 = text.emit("u32", f"add({k1}, {text.scalar('u32', _PHILOX_W[1])})", [])
    return x


def _threefry(text: _Lines, key: tuple[str, str], x0: str, x1: str) -> tuple[str, str]:
    parity = text.scalar("u32", _THREEFRY_PARITY)
    k2 = text.emit("u32", f"xor({parity}, {text.emit('u32', f'xor({key[0]}, {key[1]})', [])})", [])
    ks = [text.splat("u32", k) for k in (key[0], key[1], k2)]
    x0 = text.op("u32", "add", x0, ks[0])
    x1 = text.op("u32", "add", x1, ks[1])
    for block in range(5):
        for r in _THREEFRY_ROTATIONS[4 * (block % 2) : 4 * (block % 2) + 4]:
            x0 = text.op("u32", "add", x0, x1)
            x1 = text.op("u32", "xor", text.rotl(x1, r), x0)
        x0 = text.op("u32", "add", x0, ks[(block + 1) % 3])
        x1 = text.op(
            "u32",
            "add",
            text.op("u32", "add", x1, ks[(block + 2) % 3]),
            text.const("u32", block + 1),
        )
    return x0, x1


def _interleave(text: _Lines, t: str, parts: list[str], count: int, n: int, dims: list[int]) -> str:
    """Element i * len(parts) + j from part j (each of ``count`` elements), the first n,
    shaped ``dims``."""
    k = len(parts)
    columns = [text.emit(t, f"reshape({p})", [count, 1]) for p in parts]
    stacked = text.emit(t, f"concatenate({', '.join(columns)}), dimensions={{1}}", [count, k])
    flat = text.emit(t, f"reshape({stacked})", [count * k])
    if count * k != n:
        flat = text.emit(t, f"slice({flat}), slice={{[0:{n}]}}", [n])
    return text.emit(t, f"reshape({flat})", dims)


def _halves(dims: list[int]) -> tuple[int, list[int]]:
    """XLA's SplitShapeIntoHalves (the interpreter's ``_halves``)."""
    if not dims:
        return 0, [1]
    even = [i for i, n in enumerate(dims) if n % 2 == 0]
    split = even[0] if even else max(range(len(dims)), key=lambda i: (dims[i], -i))
    half = list(dims)
    half[split] = -(-dims[split] // 2)
    return split, half


def _threefry_bits(text: _Lines, dims: list[int], wide: bool) -> tuple[str, str]:
    """(bits, new counter scalar) of three-fry: u64 bits if ``wide``, else u32."""
    key = _key_words(text)
    counter = _word(text, 1)
    split, half = ([0], dims) if wide else _halves(dims)
    n = math.prod(half)
    text.dims = [n]
    inputs = text.op(
        "u64", "add", text.emit("u64", "iota(), iota_dimension=0"), text.splat("u64", counter)
    )
    x0, x1 = _threefry(text, key, *text.low_high(inputs))
    new_counter = text.emit("u64", f"add({counter}, {text.scalar('u64', n)})", [])
    if wide:
        return text.emit("u64", f"reshape({text.join(x0, x1)})", dims), new_counter
    if not dims:
        return text.emit("u32", f"reshape({x0})", []), new_counter
    first = text.emit("u32", f"reshape({x0})", half)
    second = text.emit("u32", f"reshape({x1})", half)
    paired = [*half[: split + 1], 2, *half[split + 1 :]]
    columns = [
        text.emit("u32", f"reshape({h})", [*half[: split + 1], 1, *half[split + 1 :]])
        for h in (first, second)
    ]
    stacked = text.emit(
        "u32", f"concatenate({', '.join(columns)}), dimensions={{{split + 1}}}", paired
    )
    merged = list(half)
    merged[split] *= 2
    out = text.emit("u32", f"reshape({stacked})", merged)
    if merged != dims:
        window = ", ".join(f"[0:{d}]" for d in dims)
        out = text.emit("u32", f"slice({out}), slice={{{window}}}", dims)
    return out, new_counter


def _philox_bits(
    text: _Lines, dims: list[int], wide: bool, state_words: int
) -> tuple[str, list[str]]:
    """(bits, new state words) of Philox."""
    key = _key_words(text)
    key_word = _word(text, 0)
    lo = _word(text, 1)
    hi = _word(text, 2) if state_words == 3 else key_word  # XLA reverses [key, lo]
    n = math.prod(dims)
    per_block = 2 if wide else 4
    blocks = max(1, -(-n // per_block))
    text.dims = [blocks]
    low = text.op("u64", "add", text.emit("u64", "iota(), iota_dimension=0"), text.splat("u64", lo))
    wrapped = text.emit("pred", f"compare({low}, {text.splat('u64', lo)}), direction=LT")
    hi_plus = text.emit("u64", f"add({hi}, {text.scalar('u64', 1)})", [])
    high = text.op("u64", "select", wrapped, text.splat("u64", hi_plus), text.splat("u64", hi))
    words = [*text.low_high(low), *text.low_high(high)]
    x = _philox(text, key, words)
    if wide:
        bits = _interleave(
            text, "u64", [text.join(x[0], x[1]), text.join(x[2], x[3])], blocks, n, dims
        )
    else:
        bits = _interleave(text, "u32", x, blocks, n, dims)
    new_lo = text.emit("u64", f"add({lo}, {text.scalar('u64', blocks if n else 0)})", [])
    carried = text.emit("pred", f"compare({new_lo}, {lo}), direction=LT", [])
    new_hi = text.emit("u64", f"select({carried}, {hi_plus}, {hi})", [])
    return bits, [key_word, new_lo, new_hi][:state_words]


def _as_element_type(
    text: _Lines, bits: str, source: str, t: PrimitiveType, dims: list[int]
) -> str:
    """Unsigned ``source`` bits as ``t``: its low bits, reinterpreted."""
    width = t.bit_width
    if t.hlo_name == source:
        return bits
    unsigned = P.from_hlo_name(f"u{width}") if width in (2, 4, 8, 16, 32, 64) else None
    if unsigned is None:
        raise ValueError(f"no unsigned type of width {width}")
    low = (
        bits
        if unsigned.hlo_name == source
        else text.emit(unsigned.hlo_name, f"convert({bits})", dims)
    )
    if unsigned == t:
        return low
    return text.emit(t.hlo_name, f"bitcast-convert({low})", dims)


def expansion_text(instruction: HloInstruction) -> str | None:
    """HLO text of a computation ``state -> (new state, bits)``, or None to leave it."""
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
    text = _Lines(dims)
    if algorithm is RandomAlgorithm.RNG_THREE_FRY:
        if words != 2:
            return None
        bits, new_counter = _threefry_bits(text, dims, wide)
        new_words = [_word(text, 0), new_counter]
    elif words in (2, 3):
        bits, new_words = _philox_bits(text, dims, wide, words)
    else:
        return None
    source = "u64" if wide else "u32"
    text.dims = dims
    if not wide and t.bit_width < 32:
        mask = text.splat(source, text.scalar(source, (1 << t.bit_width) - 1))
        bits = text.op(source, "and", bits, mask)
    value = _as_element_type(text, bits, source, t, dims)
    pieces = [text.emit("u64", f"reshape({w})", [1]) for w in new_words]
    state = text.emit("u64", f"concatenate({', '.join(pieces)}), dimensions={{0}}", [words])
    body = "\n".join(text.lines)
    return (
        "HloModule rng_bits\n\nENTRY rng_bits {\n"
        f"  state = u64[{words}] parameter(0)\n{body}\n"
        f"  ROOT result = (u64[{words}], {hlo_shape(t.hlo_name, dims)}) tuple({state}, {value})\n}}\n"
    )


class RngBitGeneratorExpander(ExpanderPass):
    name = "rng-bit-generator-expander"
    opcodes = frozenset({Op.RNG_BIT_GENERATOR})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        text = expansion_text(instruction)
        return None if text is None else splice(instruction, text)
