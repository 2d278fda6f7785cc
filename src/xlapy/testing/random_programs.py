"""Random well-typed HLO programs and inputs, for differential testing and fuzzing.

``programs()`` is a hypothesis strategy of :class:`RandomProgram`: HLO text
built from a pool of values (parameters first), where each new instruction
takes operands of matching shapes from the pool, so values are shared between
instructions (common subexpressions) and several of them end up in the root
tuple. The ops cover what the CPU backend compiles natively: elementwise
arithmetic, comparisons, select, convert, the movement ops, reductions, dots,
bounded while loops and conditionals, and (``random_programs_indexing``)
general gathers and scatters, sorts, dynamic slices and updates, windowed ops,
convolutions and bitcast-convert. Inputs mix ordinary values with NaN, infinities,
signed zeros, denormals and the integer extremes. Hypothesis shrinks a failing
program to a small one; ``RandomProgram.text`` is ready to paste into a
regression test.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

from ..types import PrimitiveType
from .random_programs_indexing import KINDS as INDEXING_KINDS

P = PrimitiveType
FLOATS = [P.F32, P.F64, P.F16, P.BF16]
INTS = [P.S32, P.S8, P.U8, P.S64, P.U32]
FLOAT_UNARY = ["negate", "abs", "exponential", "log", "tanh", "sqrt", "floor", "ceil", "sign",
               "logistic", "exponential-minus-one", "round-nearest-even", "round-nearest-afz",
               "rsqrt", "sine", "cosine"]  # fmt: skip
FLOAT_BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder", "power"]
INT_UNARY = ["negate", "abs", "not", "popcnt", "count-leading-zeros", "sign"]
INT_BINARY = ["add", "subtract", "multiply", "divide", "remainder", "and", "or", "xor", "maximum",
              "minimum", "shift-left", "shift-right-arithmetic", "shift-right-logical"]  # fmt: skip
DIRECTIONS = ["EQ", "NE", "LT", "LE", "GT", "GE"]
INEXACT = {
    "exponential",
    "log",
    "tanh",
    "logistic",
    "exponential-minus-one",
    "rsqrt",
    "sine",
    "cosine",
    "power",
    "divide",
    "sqrt",
    "reduce",
    "dot",
    "remainder",
    "reduce-window",
    "scatter",
    "select-and-scatter",
    "convolution",
    "complex",
}  # fmt: skip  (complex: a chain through complex values, fft included)
COMPLEX_OF = {P.F32: P.C64, P.F64: P.C128}


@dataclass
class RandomProgram:
    text: str
    inputs: list[np.ndarray]
    opcodes: set[str] = field(default_factory=set)

    @property
    def exact(self) -> bool:
        """True when every op is exact, so results must agree bit for bit."""
        return not (self.opcodes & INEXACT)

    def __repr__(self) -> str:
        return f"RandomProgram(\n{self.text}\n)"


def _shape_text(et: PrimitiveType, dims: tuple[int, ...]) -> str:
    return f"{et.hlo_name}[{','.join(map(str, dims))}]"


class _Builder:
    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.lines: list[str] = []
        self.pool: list[tuple[str, PrimitiveType, tuple[int, ...]]] = []
        self.params: list[tuple[PrimitiveType, tuple[int, ...]]] = []
        self.computations: list[str] = []
        self.opcodes: set[str] = set()
        self.counter = 0

    def name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def add(self, text: str, et: PrimitiveType, dims: tuple[int, ...], opcode: str) -> str:
        name = self.name("v")
        self.lines.append(f"  {name} = {_shape_text(et, dims)} {text}")
        self.pool.append((name, et, dims))
        self.opcodes.add(opcode)
        return name

    def parameter(self, et: PrimitiveType, dims: tuple[int, ...]) -> str:
        name = self.name("p")
        text = _shape_text(et, dims)
        if len(dims) >= 2 and self.draw(st.booleans()):
            # A random layout: the backend must honour it at the boundary.
            order = self.draw(st.permutations(range(len(dims))))
            text += "{" + ",".join(map(str, order)) + "}"
        self.lines.append(f"  {name} = {text} parameter({len(self.params)})")
        self.params.append((et, dims))
        self.pool.append((name, et, dims))
        return name

    def pick(self, et: PrimitiveType | None = None, dims: tuple[int, ...] | None = None):  # noqa: ANN201
        matches = [
            v for v in self.pool if (et is None or v[1] == et) and (dims is None or v[2] == dims)
        ]
        if not matches:
            return None
        return self.draw(st.sampled_from(matches))

    def constant(self, et: PrimitiveType, value: int | float) -> str:
        literal = "true" if (et is P.PRED and value) else "false" if et is P.PRED else repr(value)
        if et.is_float and isinstance(value, float) and np.isinf(value):
            literal = "inf" if value > 0 else "-inf"
        name = self.name("c")
        self.lines.append(f"  {name} = {et.hlo_name}[] constant({literal})")
        return name

    def assigner(self, et: PrimitiveType) -> str:
        """A scatter update computation that keeps the update (the last one wins)."""
        name = self.name("assign_")
        t = et.hlo_name
        self.computations.append(
            f"{name} {{\n  a = {t}[] parameter(0)\n  ROOT b = {t}[] parameter(1)\n}}"
        )
        return name

    def reducer(self, et: PrimitiveType, op: str) -> str:
        name = self.name(f"red_{op}_")
        t = et.hlo_name
        self.computations.append(
            f"{name} {{\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n  ROOT r = {t}[] {op}(a, b)\n}}"
        )
        return name


def _step(b: _Builder) -> None:
    draw = b.draw
    name, et, dims = b.pick()
    kinds = ["unary", "binary", "compare_select", "convert", "broadcast", "transpose", "reverse",
             "slice", "concatenate", "pad", "reshape", "iota", "reduce", "while", "conditional",
             "dot", "complex", *INDEXING_KINDS]  # fmt: skip
    kind = draw(st.sampled_from(kinds))
    rank = len(dims)
    if kind in INDEXING_KINDS:
        INDEXING_KINDS[kind](b, name, et, dims)
    elif kind == "unary" and et is not P.PRED:
        op = draw(st.sampled_from(FLOAT_UNARY if et.is_float else INT_UNARY))
        b.add(f"{op}({name})", et, dims, op)
    elif kind == "binary" and et is not P.PRED:
        other = b.pick(et, dims)[0]
        op = draw(st.sampled_from(FLOAT_BINARY if et.is_float else INT_BINARY))
        b.add(f"{op}({name}, {other})", et, dims, op)
    elif kind == "compare_select":
        other = b.pick(et, dims)[0]
        direction = draw(st.sampled_from(DIRECTIONS))
        pred = b.add(f"compare({name}, {other}), direction={direction}", P.PRED, dims, "compare")
        b.add(f"select({pred}, {name}, {other})", et, dims, "select")
    elif kind == "convert":
        target = draw(st.sampled_from([*FLOATS, *INTS, P.PRED]))
        b.add(f"convert({name})", target, dims, "convert")
    elif kind == "broadcast":
        extra = draw(st.integers(0, 3))
        position = draw(st.integers(0, rank))
        new_dims = dims[:position] + (extra,) + dims[position:]
        mapping = [d if d < position else d + 1 for d in range(rank)]
        b.add(
            f"broadcast({name}), dimensions={{{','.join(map(str, mapping))}}}",
            et,
            new_dims,
            "broadcast",
        )
    elif kind == "transpose" and rank >= 2:
        perm = draw(st.permutations(range(rank)))
        new_dims = tuple(dims[p] for p in perm)
        b.add(
            f"transpose({name}), dimensions={{{','.join(map(str, perm))}}}",
            et,
            new_dims,
            "transpose",
        )
    elif kind == "reverse" and rank >= 1:
        axes = sorted(set(draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank))))
        b.add(f"reverse({name}), dimensions={{{','.join(map(str, axes))}}}", et, dims, "reverse")
    elif kind == "slice" and rank >= 1:
        parts, new_dims = [], []
        for size in dims:
            start = draw(st.integers(0, size))
            limit = draw(st.integers(start, size))
            stride = draw(st.integers(1, 3))
            parts.append(f"[{start}:{limit}:{stride}]")
            new_dims.append(-(-(limit - start) // stride))
        b.add(f"slice({name}), slice={{{', '.join(parts)}}}", et, tuple(new_dims), "slice")
    elif kind == "concatenate" and rank >= 1:
        axis = draw(st.integers(0, rank - 1))
        other = b.pick(et, dims)[0]
        new_dims = tuple(d * 2 if k == axis else d for k, d in enumerate(dims))
        b.add(f"concatenate({name}, {other}), dimensions={{{axis}}}", et, new_dims, "concatenate")
    elif kind == "pad" and rank >= 1:
        value = b.constant(
            et, 0 if not et.is_float else draw(st.sampled_from([0.0, -1.5, float("inf")]))
        )
        parts, new_dims = [], []
        for size in dims:
            low, high, interior = (
                draw(st.integers(-1, 2)),
                draw(st.integers(-1, 2)),
                draw(st.integers(0, 1)),
            )
            total = low + high + size + max(size - 1, 0) * interior
            if total < 0:
                low, high = 0, 0
                total = size + max(size - 1, 0) * interior
            parts.append(f"{low}_{high}_{interior}")
            new_dims.append(total)
        b.add(f"pad({name}, {value}), padding={'x'.join(parts)}", et, tuple(new_dims), "pad")
    elif kind == "reshape":
        count = int(np.prod(dims)) if dims else 1
        new_dims = (count,) if rank != 1 else ((1, count) if draw(st.booleans()) else (count,))
        b.add(f"reshape({name})", et, new_dims, "reshape")
    elif kind == "iota" and rank >= 1:
        axis = draw(st.integers(0, rank - 1))
        target = draw(st.sampled_from([P.S32, P.F32, P.U8]))
        b.add(f"iota(), iota_dimension={axis}", target, dims, "iota")
    elif kind == "complex" and et in COMPLEX_OF:
        _complex_chain(b, name, b.pick(et, dims)[0], et, dims)
    elif kind == "reduce" and rank >= 1 and et is not P.PRED:
        axes = sorted(set(draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank))))
        # A sum of f16/bf16 values rounds at every step, so its result depends on the
        # order, which the spec leaves to the implementation: only exact reducers there.
        narrow = et in (P.F16, P.BF16)
        op = draw(
            st.sampled_from(
                ["maximum", "minimum"]
                if narrow
                else ["add", "maximum", "minimum"]
                if et.is_float or et.is_signed_integral
                else ["add", "maximum"]
            )
        )
        init = b.constant(et, 0)
        reducer = b.reducer(et, op)
        new_dims = tuple(d for k, d in enumerate(dims) if k not in axes)
        b.add(
            f"reduce({name}, {init}), dimensions={{{','.join(map(str, axes))}}}, to_apply={reducer}",
            et,
            new_dims,
            "reduce",
        )
    elif kind == "conditional" and et is not P.PRED:
        selector = b.parameter(P.PRED, ())
        shape = _shape_text(et, dims)
        on_true, on_false = b.name("then"), b.name("else")
        ops = ["negate", "abs"] if et.is_float or et.is_signed_integral else ["not", "popcnt"]
        for branch, op in ((on_true, ops[0]), (on_false, ops[1])):
            b.computations.append(
                f"{branch} {{\n  x = {shape} parameter(0)\n  ROOT y = {shape} {op}(x)\n}}"
            )
        b.add(
            f"conditional({selector}, {name}, {name}), true_computation={on_true}, "
            f"false_computation={on_false}",
            et,
            dims,
            "conditional",
        )
    elif kind == "dot" and rank == 2 and et in (P.F32, P.F64, P.S32):
        n = draw(st.integers(0, 4))
        other = b.parameter(et, (dims[1], n))
        contract = "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
        b.add(f"dot({name}, {other}), {contract}", et, (dims[0], n), "dot")
    elif kind == "while" and et is not P.PRED and (et.is_float or et.is_integral):
        trips = draw(st.integers(0, 3))
        shape = _shape_text(et, dims)
        state = f"(s32[], {shape})"
        cond, body = b.name("cond"), b.name("body")
        op = draw(st.sampled_from(["add", "multiply", "maximum"]))
        b.computations.append(
            f"{cond} {{\n  s = {state} parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
            f"  n = s32[] constant({trips})\n  ROOT lt = pred[] compare(i, n), direction=LT\n}}"
        )
        b.computations.append(
            f"{body} {{\n  s = {state} parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
            f"  x = {shape} get-tuple-element(s), index=1\n  one = s32[] constant(1)\n"
            f"  j = s32[] add(i, one)\n  y = {shape} {op}(x, x)\n  ROOT t = {state} tuple(j, y)\n}}"
        )
        zero = b.name("zero")
        b.lines.append(f"  {zero} = s32[] constant(0)")
        init = b.name("init")
        b.lines.append(f"  {init} = {state} tuple({zero}, {name})")
        loop = b.name("loop")
        b.lines.append(f"  {loop} = {state} while({init}), condition={cond}, body={body}")
        b.opcodes.add("while")
        b.add(f"get-tuple-element({loop}), index=1", et, dims, "get-tuple-element")


def _complex_chain(b: _Builder, re: str, im: str, et: PrimitiveType, dims: tuple) -> None:
    """complex(re, im) through complex arithmetic, movement and an fft, back to a real
    value: only that reaches the pool, so the other kinds never meet complex operands.
    The parts are made finite and moderate first; an fft of infinities gives NaN or
    infinity depending on the order of its sums, which the spec does not fix."""
    draw = b.draw
    ct = COMPLEX_OF[et]
    shape = _shape_text(et, dims)
    zeros = b.name("zeros")
    b.lines.append(f"  {zeros} = {shape} broadcast({b.constant(et, 0.0)}), dimensions={{}}")
    low, high = b.constant(et, -100.0), b.constant(et, 100.0)
    parts = []
    for part in (re, im):
        finite = b.add(f"is-finite({part})", P.PRED, dims, "is-finite")
        kept = b.add(f"select({finite}, {part}, {zeros})", et, dims, "select")
        parts.append(b.add(f"clamp({low}, {kept}, {high})", et, dims, "clamp"))
    z = first = b.add(f"complex({parts[0]}, {parts[1]})", ct, dims, "complex")
    b.pool.pop()  # complex values stay out of the pool
    for _ in range(draw(st.integers(1, 3))):
        op = draw(
            st.sampled_from(["add", "subtract", "multiply", "negate", "fft", "fft", "reverse"])
        )
        if op == "fft" and dims and dims[-1] > 0:
            kind = draw(st.sampled_from(["FFT", "IFFT"]))
            z2 = b.add(f"fft({z}), fft_type={kind}, fft_length={{{dims[-1]}}}", ct, dims, "fft")
        elif op == "reverse" and dims:
            z2 = b.add(f"reverse({z}), dimensions={{{len(dims) - 1}}}", ct, dims, "reverse")
        elif op == "negate":
            z2 = b.add(f"negate({z})", ct, dims, "negate")
        else:
            op = "multiply" if op in ("fft", "reverse") else op
            z2 = b.add(f"{op}({z}, {first})", ct, dims, op)
        b.pool.pop()
        z = z2
    back = draw(st.sampled_from(["real", "imag", "abs"]))
    b.add(f"{back}({z})", et, dims, back)


def _special_values(et: PrimitiveType) -> list:
    if et.is_float:
        info = np.finfo(et.dtype) if et in (P.F32, P.F64, P.F16) else None
        values = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 100.0, np.nan, np.inf, -np.inf]
        if info is not None:
            values += [float(info.smallest_subnormal), float(info.max), -float(info.tiny)]
        return values
    if et is P.PRED:
        return [True, False]
    info = np.iinfo(et.dtype)
    return [0, 1, -1 if info.min < 0 else 2, int(info.min), int(info.max), 7, 31, 64]


@st.composite
def _array(draw: st.DrawFn, et: PrimitiveType, dims: tuple[int, ...]) -> np.ndarray:
    count = int(np.prod(dims)) if dims else 1
    specials = _special_values(et)
    rng_seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(rng_seed)
    if et.is_float:
        values = rng.standard_normal(count) * draw(st.sampled_from([1.0, 10.0, 1e3]))
    elif et is P.PRED:
        values = rng.integers(0, 2, count).astype(bool)
    else:
        info = np.iinfo(et.dtype)
        values = rng.integers(max(info.min, -100), min(info.max, 100), count, endpoint=True)
    values = np.asarray(values, dtype=object if not et.is_float else np.float64)
    mask = rng.random(count) < draw(st.sampled_from([0.0, 0.1, 0.4]))
    for k in np.nonzero(mask)[0]:
        values[k] = specials[int(rng.integers(0, len(specials)))]
    with np.errstate(all="ignore"):
        return (
            np.asarray(values.astype(np.float64) if et.is_float else values)
            .astype(et.dtype)
            .reshape(dims)
        )


@st.composite
def programs(draw: st.DrawFn, max_steps: int = 8) -> RandomProgram:
    """A random program and inputs for it (see the module docstring)."""
    b = _Builder(draw)
    et = draw(
        st.sampled_from([P.F32, P.F32, P.S32, P.F64, P.F16, P.BF16, P.S8, P.U8, P.U32, P.S64])
    )
    dims = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    for _ in range(draw(st.integers(1, 3))):
        b.parameter(et, dims)
    for _ in range(draw(st.integers(1, max_steps))):
        _step(b)
    outputs = draw(
        st.lists(st.sampled_from(b.pool[len(b.params) :] or b.pool), min_size=1, max_size=3)
    )
    shapes = ", ".join(_shape_text(e, d) for _, e, d in outputs)
    b.lines.append(f"  ROOT out = ({shapes}) tuple({', '.join(n for n, _, _ in outputs)})")
    text = "HloModule random\n\n" + "".join(c + "\n\n" for c in b.computations)
    text += "ENTRY main {\n" + "\n".join(b.lines) + "\n}\n"
    inputs = [draw(_array(e, d)) for e, d in b.params]
    return RandomProgram(text, inputs, b.opcodes)
