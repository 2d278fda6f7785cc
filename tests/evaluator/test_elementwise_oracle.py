"""Differential tests of the elementwise kernels against the real XLA (XLA:CPU via jaxlib).

For every opcode family and element type one HLO module holds every applicable op as a
tuple of results, so XLA compiles it once; the interpreter runs each op's instruction
(the same text) on the same inputs. Exact ops must agree bit for bit (any NaN equals any
NaN; bitcast-convert compares raw bits, payloads included); the inexact ones within the
measured bounds of ``INEXACT_BOUNDS``.

Denormals: XLA:CPU flushes f32/f64 denormals to zero (in arguments, results and
intermediates) where the interpreter keeps IEEE values. The inputs here avoid values that
are denormal in the type XLA computes in (f32 for every float narrower than f64), complex
inputs also keep their parts' products and ratios away from them, and results are
compared after flushing such values to (signed) zero on both sides.

Only ops XLA:CPU compiles are compared (StableHLO has no mulhi; pred has no subtract,
divide...; u-types no abs; XLA:CPU lacks acos & co. for f16/f32/f64 and complex); the
semantic tests of test_elementwise.py cover those.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest

import xlapy.evaluator.kernels.elementwise  # noqa: F401  (registers the kernels)
from xlapy.backends.interpreter import run
from xlapy.types import ARRAY_TYPES, PrimitiveType

jax = pytest.importorskip("jax", reason="the differential tests need the real XLA (jax)")
from xlapy.testing import xla_oracle  # noqa: E402

P = PrimitiveType
RNG_SEED = 20240917


def oracle(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    with jax.enable_x64(True):
        return xla_oracle.run_hlo_text(text, args)


# -- inputs -------------------------------------------------------------------------------


def flush_threshold(et: PrimitiveType) -> float:
    """The smallest normal magnitude of the type XLA:CPU computes ``et`` in."""
    if et in (P.F64, P.C128):
        return float(np.finfo(np.float64).tiny)
    return float(np.finfo(np.float32).tiny)


def float_values(et: PrimitiveType, rng: np.random.Generator, extra: int = 24) -> np.ndarray:
    """Edge values (representable in ``et``, none denormal for XLA) and random ones."""
    info = ml_dtypes.finfo(et.dtype)
    big, tiny = float(info.max), float(info.smallest_normal)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 0.5, -0.5, 1.5]
    values += [2.5, -2.5, 3.0, -7.0, 0.25, 10.0, big, -big, tiny, -tiny, big / 3, 1e10]
    values += [-1e10, 1e-10, 6.0, -6.0, 100.5, -100.5, 2.0**31, -(2.0**31), 2.0**63]
    values += list(rng.standard_normal(extra) * 10.0) + list(np.exp(rng.uniform(-30, 30, 8)))
    x = np.array(values, dtype=np.float64)
    with np.errstate(all="ignore"):
        x = x.astype(np.float32).astype(et.dtype) if et is not P.F64 else x
    wide = x.astype(np.float64)
    keep = ~((np.abs(wide) < flush_threshold(et)) & (wide != 0))
    return x[keep]


def int_values(et: PrimitiveType, rng: np.random.Generator, extra: int = 12) -> np.ndarray:
    info = ml_dtypes.iinfo(et.dtype)
    lo, hi = int(info.min), int(info.max)
    width = et.bit_width
    values = {0, 1, 2, 3, lo, hi, lo + 1, hi - 1, width - 1, width, width + 1, 7, 100, 127}
    values |= {-1, -2, -3, -100, -width}
    values |= (
        {int(v) for v in rng.integers(lo, hi, extra, dtype=np.int64, endpoint=True)}
        if (hi < 2**63)
        else {int(v) for v in rng.integers(0, 2**63, extra, dtype=np.uint64)}
    )
    return np.array(sorted(v for v in values if lo <= v <= hi), dtype=object).astype(et.dtype)


def values_of(et: PrimitiveType, rng: np.random.Generator) -> np.ndarray:
    if et.is_pred:
        return np.array([False, True])
    if et.is_integral:
        return int_values(et, rng)
    if et.is_complex:
        # XLA flushes denormal intermediates too (a ratio of parts in a division, say), so
        # complex inputs keep their parts' products and ratios far from them.
        parts = float_values(et.component_type, rng, extra=4)[::2]
        wide = np.abs(parts.astype(np.float64))
        parts = parts[(wide == 0) | ~np.isfinite(wide) | ((wide > 1e-15) & (wide < 1e15))]
        re, im = (a.ravel() for a in np.meshgrid(parts, parts))
        z = np.empty(re.shape, et.dtype)
        z.real, z.imag = re, im
        return z
    return float_values(et, rng)


def pairs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = (v.ravel() for v in np.meshgrid(values, values, indexing="ij"))
    return a.copy(), b.copy()


def math_values(et: PrimitiveType, rng: np.random.Generator) -> np.ndarray:
    """Inputs for transcendental functions: special values and dense, wide ranges."""
    if et.is_complex:
        component = math_values(et.component_type, rng)
        specials = component[:12]
        finite = component[np.isfinite(component.astype(np.float64))]
        re = np.concatenate([rng.choice(finite, 600), np.repeat(specials, len(specials))])
        im = np.concatenate([rng.choice(finite, 600), np.tile(specials, len(specials))])
        z = np.empty(re.shape, et.dtype)
        z.real, z.imag = re.astype(np.float64), im.astype(np.float64)
        return z
    info = ml_dtypes.finfo(et.dtype)
    values = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0]
    values += [float(info.max), -float(info.max), 0.999, -0.999, 1.001, -1.001, 10, -10]
    values += list(rng.uniform(-4, 4, 300)) + list(rng.uniform(-1, 1, 200))
    magnitudes = np.exp(rng.uniform(-20, 20, 300))
    values += list(magnitudes * rng.choice([-1.0, 1.0], 300))
    values += list(np.exp(rng.uniform(np.log(1e-30), np.log(1e30), 100)))
    x = np.array(values, np.float64)
    with np.errstate(all="ignore"):
        x = x.astype(np.float32).astype(et.dtype) if et is not P.F64 else x
    wide = x.astype(np.float64)
    return x[~((np.abs(wide) < flush_threshold(et)) & (wide != 0))]


# -- running both ---------------------------------------------------------------------------


@dataclass
class Op:
    """One instruction of a family module: ``opcode(p_i, p_j, ...)`` with a result type."""

    name: str
    opcode: str
    operands: tuple[int, ...]
    result: str  # HLO shape text of the result, e.g. "f32[12]"
    attributes: str = ""

    def instruction(self, param_names: list[str]) -> str:
        args = ", ".join(param_names[i] for i in self.operands)
        return f"{self.name} = {self.result} {self.opcode}({args}){self.attributes}"


def shape_text(x: np.ndarray) -> str:
    et = PrimitiveType.from_dtype(x.dtype)
    return f"{et.hlo_name}[{','.join(str(d) for d in x.shape)}]"


def family_module(params: list[np.ndarray], ops: list[Op]) -> str:
    names = [f"p{i}" for i in range(len(params))]
    lines = [
        f"  {n} = {shape_text(x)} parameter({i})"
        for i, (n, x) in enumerate(zip(names, params, strict=True))
    ]
    lines += [f"  {op.instruction(names)}" for op in ops]
    root = ", ".join(op.name for op in ops)
    shapes = ", ".join(op.result for op in ops)
    lines.append(f"  ROOT result = ({shapes}) tuple({root})")
    return "HloModule family\n\nENTRY main {\n" + "\n".join(lines) + "\n}\n"


def single_module(params: list[np.ndarray], op: Op) -> tuple[str, list[np.ndarray]]:
    used = sorted(set(op.operands))
    renumber = {old: new for new, old in enumerate(used)}
    names = [f"p{i}" for i in range(len(params))]
    lines = [f"  {names[i]} = {shape_text(params[i])} parameter({renumber[i]})" for i in used]
    lines.append(f"  ROOT {op.instruction(names)}")
    return "HloModule single\n\nENTRY main {\n" + "\n".join(lines) + "\n}\n", [
        params[i] for i in used
    ]


def run_both(params: list[np.ndarray], ops: list[Op]) -> list[tuple[Op, np.ndarray, np.ndarray]]:
    expected = oracle(family_module(params, ops), params)
    results = []
    for op, xla in zip(ops, expected, strict=True):
        text, args = single_module(params, op)
        results.append((op, np.asarray(run(text, *args)), xla))
    return results


# -- comparing ------------------------------------------------------------------------------


def flushed(x: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """Values as f64 with the denormals XLA flushes made signed zeros (f8e8m0fnu, which has
    no zero, gets NaN as XLA does)."""
    wide = np.asarray(x).astype(np.float64)
    flush_to = np.nan if et is P.F8E8M0FNU else np.copysign(0.0, wide)
    return np.where(np.abs(wide) < flush_threshold(et), flush_to, wide)


def _order_key(v: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """Integers counting ``et``'s values in order (sign-magnitude bits made two's complement)."""
    if et is P.F8E8M0FNU:  # no sign bit: the bits are already in order
        return np.asarray(v).astype(et.dtype).view(np.uint8).astype(np.int64)
    dtype = np.dtype(et.dtype)
    bits = np.ascontiguousarray(np.asarray(v).astype(dtype)).view(f"u{dtype.itemsize}")
    width = np.uint64(et.bit_width)
    bits = bits.astype(np.uint64)
    magnitude = (bits & ((np.uint64(1) << (width - np.uint64(1))) - np.uint64(1))).astype(np.int64)
    negative = ((bits >> (width - np.uint64(1))) & np.uint64(1)) == 1
    return np.where(negative, -magnitude, magnitude)


def ulp_distance(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """How many values of ``et`` apart f64 values a and b (of that type) are (NaNs: 0; the
    caller compares special values)."""
    nan = np.isnan(a) | np.isnan(b)
    a, b = np.where(nan, 0.0, a), np.where(nan, 0.0, b)
    with np.errstate(all="ignore"):
        narrow = (lambda v: v) if et is P.F64 else (lambda v: v.astype(np.float32))
        key_a, key_b = (_order_key(narrow(v), et) for v in (a, b))
    # Same signs: exact in int64; opposite ones may pass 2^63 and are far apart anyway.
    same = (key_a >= 0) == (key_b >= 0)
    exact = np.abs(np.where(same, key_a - key_b, 0)).astype(np.float64)
    apart = np.abs(key_a.astype(np.float64)) + np.abs(key_b.astype(np.float64))
    return np.where(same, exact, apart)


def errors(ours, xla, et: PrimitiveType, absolute: bool = False, scale=None):
    """(error of each element in units, whether its special values disagree).

    Units: integers and pred 0 (any difference is a special disagreement); reals ULPs of
    ``et`` (or epsilons when ``absolute``), -0 and +0 disagreeing; complex parts
    epsilons of their type times ``scale`` (by default the larger modulus). NaN, infinities
    and XLA's flushed denormals must agree exactly.
    """
    if not (et.is_float or et.is_complex):
        return np.zeros(ours.shape), ours != xla
    if et.is_float:
        a, b = flushed(ours, et), flushed(xla, et)
        special = ~np.isfinite(a) | ~np.isfinite(b)
        disagree = special & ~((a == b) | (np.isnan(a) & np.isnan(b)))
        with np.errstate(invalid="ignore"):
            if absolute:
                error = np.abs(a - b) / float(ml_dtypes.finfo(et.dtype).eps)
            else:
                error = ulp_distance(a, b, et)
        error = np.where(special, 0.0, error)
        disagree |= (np.signbit(a) != np.signbit(b)) & (a == 0) & (b == 0)  # -0 vs +0
        return error, disagree
    part = et.component_type
    eps = float(np.finfo(part.dtype).eps)
    if scale is None:
        scale = np.maximum(np.abs(ours.astype(np.complex128)), np.abs(xla.astype(np.complex128)))
    scale = np.nan_to_num(np.asarray(scale, np.float64), nan=0.0, posinf=np.finfo(np.float64).max)
    error, disagree = np.zeros(ours.shape), np.zeros(ours.shape, bool)
    for get in (np.real, np.imag):
        a, b = flushed(get(ours), part), flushed(get(xla), part)
        special = ~np.isfinite(a) | ~np.isfinite(b)
        disagree |= special & ~((a == b) | (np.isnan(a) & np.isnan(b)))
        with np.errstate(invalid="ignore", divide="ignore"):
            relative = np.abs(a - b) / (eps * scale + flush_threshold(et))
        error = np.maximum(error, np.where(special, 0.0, relative))
    return error, disagree


def assert_agree(name, ours, xla, inputs, bound=0.0, scale=None, absolute=False):
    ours, xla = np.asarray(ours), np.asarray(xla)
    assert ours.dtype == xla.dtype and ours.shape == xla.shape, (name, ours.dtype, xla.dtype)
    et = PrimitiveType.from_dtype(xla.dtype)
    error, disagree = errors(ours, xla, et, absolute, scale)
    bad = disagree | (error > bound)
    if np.any(bad):
        index = np.flatnonzero(bad.ravel())[:8]
        rows = [
            (
                tuple(np.asarray(x).ravel()[i].item() for x in inputs),
                ours.ravel()[i].item(),
                xla.ravel()[i].item(),
            )
            for i in index
        ]
        worst = float(np.max(np.where(disagree, 0, error)))
        pytest.fail(
            f"{name}: {int(np.sum(bad))} of {bad.size} differ (worst error {worst:.3g}, "
            f"bound {bound}); (inputs, ours, xla): {rows}"
        )


def check_all(params: list[np.ndarray], ops: list[Op], bound=lambda op, et: 0.0, scale=None):
    """Every op of a family module against XLA; all disagreements are reported together."""
    failures = []
    for op, ours, xla in run_both(params, ops):
        inputs = [params[i] for i in op.operands]
        et = PrimitiveType.from_dtype(xla.dtype)
        absolute = op.opcode in ABSOLUTE_ERROR and et.is_float
        try:
            name = f"{op.opcode} {op.name}"
            assert_agree(name, ours, xla, inputs, bound(op, et), scale and scale(op), absolute)
        except pytest.fail.Exception as e:
            failures.append(str(e))
    if failures:
        pytest.fail("\n".join(failures))


# XLA computes logistic as 0.5 + 0.5 tanh(x / 2): accurate to an epsilon absolutely, not
# relatively (logistic(-20) is 0 in f32 where the interpreter gives 2.06e-9).
ABSOLUTE_ERROR = {"logistic"}


def ids(et: PrimitiveType) -> str:
    return et.hlo_name


def array_text(et: PrimitiveType, n: int) -> str:
    return f"{et.hlo_name}[{n}]"


# -- tolerances -----------------------------------------------------------------------------


def precision_class(et: PrimitiveType) -> str:
    """f32, f64, c64, c128, or "narrow" for every float XLA computes in f32 (or f16)."""
    if et in (P.F32, P.F64, P.C64, P.C128):
        return et.hlo_name
    return "narrow"


# Bounds on the error between XLA:CPU and the interpreter for the inexact ops: ULPs for
# reals, epsilons times the conditioned modulus for complex results (see errors()), each
# a little above what was measured (the report of ``python -m`` this file prints them).
# Everything else must agree exactly.
INEXACT_BOUNDS: dict[str, dict[str, float]] = {
    # measured maxima: f32/f64 ULPs; narrow: ULPs of their own; complex: conditioned epsilons
    "power": {"f32": 1, "f64": 1, "narrow": 1, "c64": 64, "c128": 64},  # 0 0 0 41 32
    "atan2": {"f32": 2, "f64": 1, "narrow": 1, "c64": 8, "c128": 8},  # 1 0 0 3.2 3.3
    "multiply": {"c64": 2, "c128": 2},  # 0 0.92
    "divide": {"c64": 2, "c128": 2},  # 0 0.94
    "exponential": {"f32": 2, "f64": 2, "narrow": 1, "c64": 2, "c128": 2},  # 1 1 0 .55 .72
    "exponential-minus-one": {"f32": 4, "f64": 3, "narrow": 2, "c64": 4, "c128": 4},  # 3 2 2 1 .89
    "log": {"f32": 2, "f64": 1, "narrow": 1, "c64": 4, "c128": 4},  # 1 0 0 .71 1.3
    "log-plus-one": {"f32": 3, "f64": 128, "narrow": 1, "c64": 4, "c128": 32},  # 2 110 0 .72 17
    "logistic": {"f32": 2, "f64": 2, "narrow": 2, "c64": 4, "c128": 4},  # .5 1 .5 .64 .79 (eps)
    "sqrt": {"narrow": 1, "c64": 2, "c128": 2},  # 0 0 0 .57 .65
    # On an AVX-512 host (2026-11-24) XLA:CPU's f64 rsqrt and cbrt are 2 ULPs off, and its
    # c128 sine of a number with a tiny real part is off by 88 conditioned epsilons.
    "rsqrt": {"f32": 2, "f64": 2, "narrow": 1, "c64": 4, "c128": 4},  # 1 2 0 1.2 .87
    "cbrt": {"f32": 2, "f64": 2, "narrow": 1},  # 1 2 0
    "sine": {"f32": 2, "f64": 1, "narrow": 1, "c64": 8, "c128": 128},  # 1 0 0 3.5 88
    "cosine": {"f32": 2, "f64": 1, "narrow": 1, "c64": 4, "c128": 4},  # 1 0 0 .89 .89
    "tan": {"f32": 2, "f64": 1, "narrow": 1, "c64": 4, "c128": 4},  # 1 0 0 1 .63
    "tanh": {"f32": 4, "f64": 4, "narrow": 1, "c64": 4, "c128": 4},  # 3 3 0 1.1 .8
    "erf": {"f32": 4, "f64": 3, "narrow": 1},  # 3 2 0
    "sign": {"c64": 2, "c128": 2},  # 0 0
    **{name: {"narrow": 1} for name in ("acos", "acosh", "asin", "asinh", "atanh", "cosh")},
    "sinh": {"narrow": 1},  # these seven: 0
}


def bound_of(op: Op, et: PrimitiveType) -> float:
    return INEXACT_BOUNDS.get(op.opcode, {}).get(precision_class(et), 0)


# numpy's versions of the complex functions, to estimate how much a relative error of the
# input moves the result (the condition number scales the tolerance of complex results).
NUMPY_COMPLEX = {
    "exponential": np.exp,
    "exponential-minus-one": lambda z: np.exp(z) - 1,
    "log": np.log,
    "log-plus-one": lambda z: np.log(1 + z),
    "logistic": lambda z: 1 / (1 + np.exp(-z)),
    "sqrt": np.sqrt,
    "rsqrt": lambda z: 1 / np.sqrt(z),
    "sign": lambda z: z / np.abs(z),
    "sine": np.sin,
    "cosine": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
}


def conditioned_scale(opcode: str, z: np.ndarray) -> np.ndarray:
    """|f(z)| (1 + cond f(z)), cond estimated from relative steps of z along 1 and i."""
    f = NUMPY_COMPLEX[opcode]
    z = z.astype(np.complex128)
    step = 1e-7
    with np.errstate(all="ignore"):
        value = f(z)
        cond = np.zeros(z.shape)
        for direction in (1, 1j):
            moved = f(z * (1 + step * direction))
            cond = np.maximum(cond, np.abs(moved - value) / (step * np.abs(value)))
        scale = np.abs(value) * (1 + np.nan_to_num(cond, nan=0.0, posinf=0.0))
    return np.where(np.isfinite(scale), scale, 0.0)


# -- binary ---------------------------------------------------------------------------------

# What XLA:CPU (through StableHLO) accepts, by kind of element type.
BINARY = {
    "pred": ["add", "multiply", "maximum", "minimum", "and", "or", "xor"],
    "int": ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power"]
    + ["and", "or", "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical"],
    "float": ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum"]
    + ["power", "atan2"],
    "complex": ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "atan2"],
}


def kind(et: PrimitiveType) -> str:
    if et.is_pred:
        return "pred"
    if et.is_integral:
        return "int"
    return "complex" if et.is_complex else "float"


def moderate(values: np.ndarray) -> np.ndarray:
    """Complex values with parts that are 0, special or of magnitude in [1e-3, 10]: power
    and atan2 go through exp, log and trigonometry of products of their parts, which
    elsewhere overflow or become the denormals XLA flushes."""
    re, im = (np.abs(p.astype(np.float64)) for p in (values.real, values.imag))

    def fine(m: np.ndarray) -> np.ndarray:
        return (m == 0) | ~np.isfinite(m) | ((m >= 1e-3) & (m <= 10))

    return values[fine(re) & fine(im)]


@pytest.mark.parametrize("et", ARRAY_TYPES, ids=ids)
def test_binary_ops_match_xla(et):
    rng = np.random.default_rng(RNG_SEED)
    values = values_of(et, rng)
    a, b = pairs(values)
    params = [a, b]
    names = BINARY[kind(et)]
    ops = [Op(f"r{i}", name, (0, 1), array_text(et, a.size)) for i, name in enumerate(names)]
    if not et.is_complex:
        check_all(params, ops, bound_of)
        return
    c, d = pairs(moderate(values))
    # Complex atan2 of operands with zero parts turns on the signs of zeros that XLA's FMA
    # contractions produce along its formula (it lands on the other side of a branch
    # cut): compared on nonzero parts only.
    nonzero = moderate(values)
    nonzero = nonzero[(nonzero.real != 0) & (nonzero.imag != 0)]
    e, f = pairs(nonzero)
    params += [c, d, e, f]
    for op in ops:
        if op.opcode == "power":
            op.operands, op.result = (2, 3), array_text(et, c.size)
        if op.opcode == "atan2":
            op.operands, op.result = (4, 5), array_text(et, e.size)
    failures = []
    for op, ours, xla in run_both(params, ops):
        inputs = [params[i] for i in op.operands]
        scale = None  # relative to the result's modulus
        if op.opcode == "multiply":
            with np.errstate(invalid="ignore"):
                scale = np.abs(a.astype(np.complex128)) * np.abs(b.astype(np.complex128))
        if op.opcode == "atan2":
            # The result's real part is an angle whose sign at the branch cut (+-pi) comes
            # down to rounding noise in XLA's formula: compare e^(i w), continuous there.
            ours, xla = (np.exp(1j * w.astype(np.complex128)).astype(w.dtype) for w in (ours, xla))
        try:
            assert_agree(f"{op.opcode} {op.name}", ours, xla, inputs, bound_of(op, et), scale)
        except pytest.fail.Exception as e:
            failures.append(str(e))
    if failures:
        pytest.fail("\n".join(failures))


# -- unary ----------------------------------------------------------------------------------

EXACT_UNARY = {
    "pred": ["not", "copy"],
    "sint": ["abs", "negate", "sign", "not", "popcnt", "count-leading-zeros", "copy"],
    "uint": ["negate", "not", "popcnt", "count-leading-zeros", "copy"],
    "float": ["abs", "negate", "sign", "ceil", "floor", "round-nearest-afz"]
    + ["round-nearest-even", "is-finite", "real", "imag", "copy"],
    "complex": ["abs", "negate", "real", "imag", "copy"],
}
MATH_UNARY = {
    "float": ["exponential", "exponential-minus-one", "log", "log-plus-one", "logistic"]
    + ["sqrt", "rsqrt", "cbrt", "sine", "cosine", "tan", "tanh", "erf"],
    "complex": ["exponential", "exponential-minus-one", "log", "log-plus-one", "logistic"]
    + ["sqrt", "rsqrt", "sign", "sine", "cosine", "tan", "tanh"],
}
# XLA:CPU implements these only for the types it computes in f32 after widening them (not
# for f16, f32, f64: "UNIMPLEMENTED"), and jaxlib's XLA does not know ``atan``.
NEWER_MATH = ["acos", "acosh", "asin", "asinh", "atanh", "cosh", "sinh"]
# XLA:CPU compiles 8-bit float math slowly (~70 ms an op) and computes every 8-/4-bit
# float's math with one scheme (in f16 from f32 results; f8e8m0fnu in f32), which these
# types cover: e5m2, e4m3fn, e3m4 (where rounding through f16 shows), a fnuz kind, e8m0
# and f4. The exact ops and the semantic tests (test_elementwise.py) cover every type.
MATH_NARROW = {P.F8E5M2, P.F8E4M3FN, P.F8E3M4, P.F8E4M3FNUZ, P.F8E8M0FNU, P.F4E2M1FN}
NEWER_MATH_TYPES = {P.BF16, P.F8E4M3FN, P.F8E8M0FNU}


def unary_result(opcode: str, et: PrimitiveType) -> PrimitiveType:
    if opcode == "is-finite":
        return P.PRED
    if opcode in ("abs", "real", "imag"):
        return et.component_type
    return et


def exact_unary_kind(et: PrimitiveType) -> str:
    if et.is_integral:
        return "sint" if et.is_signed_integral else "uint"
    return kind(et)


def unary_ops(et: PrimitiveType, n_exact: int, n_math: int) -> list[Op]:
    ops = []
    for name in EXACT_UNARY[exact_unary_kind(et)]:
        ops.append(Op(f"e{len(ops)}", name, (0,), array_text(unary_result(name, et), n_exact)))
    math_names = list(MATH_UNARY.get(kind(et), []))
    if et.bit_width <= 8 and et not in MATH_NARROW:
        math_names = []
    if et in NEWER_MATH_TYPES:
        math_names += NEWER_MATH
    for name in math_names:
        ops.append(Op(f"m{len(ops)}", name, (1,), array_text(et, n_math)))
    return ops


@pytest.mark.parametrize("et", ARRAY_TYPES, ids=ids)
def test_unary_ops_match_xla(et):
    rng = np.random.default_rng(RNG_SEED)
    x = values_of(et, rng)
    y = math_values(et, rng) if et.is_float or et.is_complex else x
    params = [x, y]
    ops = unary_ops(et, x.size, y.size)

    def scale(op):
        if et.is_complex and op.opcode in NUMPY_COMPLEX and op.operands == (1,):
            return conditioned_scale(op.opcode, y)
        return None

    check_all(params, ops, bound_of, scale)


# -- compare, select, clamp, complex ----------------------------------------------------------

DIRECTIONS = ["EQ", "NE", "LT", "LE", "GT", "GE"]


@pytest.mark.parametrize("et", ARRAY_TYPES, ids=ids)
def test_compare_matches_xla(et):
    """Every direction with the default comparison type (and TOTALORDER for floats)."""
    rng = np.random.default_rng(RNG_SEED)
    a, b = pairs(values_of(et, rng))
    directions = DIRECTIONS[:2] if et.is_complex else DIRECTIONS
    types = ["", ", type=TOTALORDER"] if et.is_float else [""]
    ops = [
        Op(f"c{i}", "compare", (0, 1), f"pred[{a.size}]", f", direction={d}{t}")
        for i, (d, t) in enumerate(itertools.product(directions, types))
    ]
    check_all([a, b], ops)


@pytest.mark.parametrize("et", ARRAY_TYPES, ids=ids)
def test_select_and_clamp_match_xla(et):
    """select with an array and a scalar predicate; clamp with array and scalar bounds."""
    rng = np.random.default_rng(RNG_SEED)
    values = values_of(et, rng)
    a, b = pairs(values)
    n = a.size
    pred = rng.integers(0, 2, n).astype(bool)
    if et.is_complex:
        lo = hi = b
    else:
        wide = np.stack([b, b[::-1]]).astype(np.float64 if et.is_float else object)
        lo, hi = (np.asarray(v).astype(et.dtype) for v in np.sort(wide, 0))
    params = [pred, a, b, np.array(True), np.array(False), lo, hi, values[:1].reshape(())]
    params += [values[-1:].reshape(())]
    t = array_text(et, n)
    ops = [
        Op("sel0", "select", (0, 1, 2), t),
        Op("sel1", "select", (3, 1, 2), t),
        Op("sel2", "select", (4, 1, 2), t),
    ]
    if not et.is_complex:
        ops += [Op("clamp0", "clamp", (5, 1, 6), t), Op("clamp1", "clamp", (7, 1, 8), t)]
        ops += [Op("clamp2", "clamp", (1, 2, 5), t)]  # bounds in any order, NaNs included
    check_all(params, ops)


def test_complex_matches_xla():
    rng = np.random.default_rng(RNG_SEED)
    for part, whole in ((P.F32, P.C64), (P.F64, P.C128)):
        re, im = pairs(float_values(part, rng))
        check_all([re, im], [Op("z", "complex", (0, 1), array_text(whole, re.size))])


# -- convert, bitcast-convert, reduce-precision, stochastic-convert ---------------------------


def rounding_probes(et: PrimitiveType) -> list[float]:
    """Values at and beside the rounding ties of narrower floats (in et's precision), and
    a sweep over f8e8m0fnu's range ends: where double rounding or its rules would show."""
    probes: list[float] = []
    if not (et.is_float and et.bit_width >= 32):
        return probes
    nudge = 2.0**-40 if et is P.F64 else 2.0**-20
    for target in (P.F16, P.BF16, P.F8E5M2, P.F8E4M3FN, P.F8E3M4, P.F4E2M1FN, P.F8E4M3FNUZ):
        grid = np.array([1.0, 1.25, 2.5, 3.0, 0.75, 100.0, 0.01]).astype(target.dtype)
        step = grid.astype(np.float64) * float(ml_dtypes.finfo(target.dtype).eps)
        for tie in grid.astype(np.float64) + step / 2:
            probes += [tie, tie * (1 + nudge), tie * (1 - nudge), -tie]
    for exponent in (-129, -128, -127, -126, 0, 126, 127):
        for mantissa in (1.0, 1.25, 1.4999999, 1.5, 1.75):
            probes.append(mantissa * 2.0**exponent)
    return probes


def convert_values(et: PrimitiveType, rng: np.random.Generator) -> np.ndarray:
    base = values_of(et, rng)
    if et.is_integral:
        info = ml_dtypes.iinfo(et.dtype)
        extra = [2**24 + 1, 3 * 2**39 - 1, 257 * 2**16 + 1, 2**53 + 1, 2**63 - 1, -(2**31)]
        extra = [v for v in extra if int(info.min) <= v <= int(info.max)]
        return np.concatenate([base, np.array(extra, dtype=object).astype(et.dtype)])
    probes = np.array(rounding_probes(et), np.float64)
    if not probes.size:
        return base
    probes = probes.astype(et.dtype)
    wide = np.abs(probes.astype(np.float64))
    probes = probes[wide >= flush_threshold(et)]
    return np.concatenate([base, probes])


@pytest.mark.parametrize("src", ARRAY_TYPES, ids=ids)
def test_convert_matches_xla(src):
    """src to every type (complex only to complex), in one module."""
    rng = np.random.default_rng(RNG_SEED)
    x = convert_values(src, rng)
    targets = [t for t in ARRAY_TYPES if t.is_complex or not src.is_complex]
    ops = [Op(f"to_{t.hlo_name}", "convert", (0,), array_text(t, x.size)) for t in targets]
    check_all([x], ops)


def bits_of(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x)
    bits = x.view(f"u{min(8, x.dtype.itemsize)}")
    et = PrimitiveType.from_dtype(x.dtype)
    return bits & ((1 << et.bit_width) - 1) if et.bit_width < 8 else bits


@pytest.mark.parametrize("src", [t for t in ARRAY_TYPES if not t.is_pred], ids=ids)
def test_bitcast_convert_matches_xla(src):
    """src to every type whose width divides or is divided by src's: bits, exactly."""
    rng = np.random.default_rng(RNG_SEED)
    width = src.bit_width
    # XLA, through StableHLO, does not bitcast between complex and real types, and aborts
    # (a CHECK) on c64 <-> c128: complex types only to themselves.
    targets = [
        t
        for t in ARRAY_TYPES
        if not t.is_pred
        and (t == src if src.is_complex else not t.is_complex)
        and (t.bit_width % width == 0 or width % t.bit_width == 0)
    ]
    # raw bit patterns, so that every NaN payload and sign takes part
    n = 8 * 16
    octets = rng.integers(0, 256, n * max(1, width // 8), dtype=np.uint8)
    if width >= 8:
        x = octets.view(src.dtype)[:n]
    else:
        x = (octets[:n] & ((1 << width) - 1)).astype(np.uint8).astype(src.dtype)
    params, ops = [x.reshape(n)], []
    for t in targets:
        if t.bit_width <= width:
            shape = (
                f"{t.hlo_name}[{n}]"
                if t.bit_width == width
                else f"{t.hlo_name}[{n},{width // t.bit_width}]"
            )
            ops.append(Op(f"to_{t.hlo_name}", "bitcast-convert", (0,), shape))
        else:
            k = t.bit_width // width
            params.append(x.reshape(n // k, k))
            ops.append(
                Op(
                    f"to_{t.hlo_name}",
                    "bitcast-convert",
                    (len(params) - 1,),
                    f"{t.hlo_name}[{n // k}]",
                )
            )
    failures = []
    for op, ours, xla in run_both(params, ops):
        ours = np.asarray(ours)
        if ours.shape != xla.shape or not np.array_equal(bits_of(ours), bits_of(xla)):
            failures.append(
                f"{op.name}: bits differ: {bits_of(ours).ravel()[:8]} vs {bits_of(xla).ravel()[:8]}"
            )
    if failures:
        pytest.fail("\n".join(failures))


def precision_pairs(et: PrimitiveType) -> list[tuple[int, int]]:
    e, m = et.exponent_mantissa_bits
    pairs_ = {(1, 0), (2, 1), (3, 2), (4, 3), (5, 2), (5, 10), (8, 7), (8, 23), (11, 52)}
    pairs_ |= {(e, m), (e, 0), (max(1, e - 1), m), (e + 1, m + 1)}
    return sorted(p for p in pairs_ if p[0] >= 1)


@pytest.mark.parametrize("et", [t for t in ARRAY_TYPES if t.is_float], ids=ids)
def test_reduce_precision_matches_xla(et):
    rng = np.random.default_rng(RNG_SEED)
    x = np.concatenate([convert_values(et, rng), values_of(et, rng)])
    if et.bit_width <= 8:  # every value
        every = np.arange(1 << et.bit_width, dtype=np.uint8)
        x = every.view(et.dtype) if et.bit_width == 8 else every.astype(et.dtype)
    ops = [
        Op(
            f"rp_{e}_{m}",
            "reduce-precision",
            (0,),
            array_text(et, x.size),
            f", exponent_bits={e}, mantissa_bits={m}",
        )
        for e, m in precision_pairs(et)
    ]
    check_all([x], ops)


STOCHASTIC = [
    (P.F32, P.U32, [P.S2, P.S4, P.S8, P.S16, P.S32, P.S64]),
    (P.F16, P.U16, [P.S8, P.S32]),
    (P.BF16, P.U16, [P.S16]),
    (P.F64, P.U64, [P.S32, P.S64]),
]


@pytest.mark.parametrize(
    "src,random_type,targets", STOCHASTIC, ids=lambda v: getattr(v, "hlo_name", "")
)
def test_stochastic_convert_matches_xla(src, random_type, targets):
    """XLA:CPU rounds up when the random bits, as a fraction, are below the fraction."""
    rng = np.random.default_rng(RNG_SEED)
    base = values_of(src, rng)
    x = np.concatenate(
        [
            base,
            (rng.uniform(-300, 300, 400)).astype(src.dtype),
            np.array([1.25, -1.25, 0.5, 127.5, -128.5]).astype(src.dtype),
        ]
    )
    bits = random_type.bit_width
    random = rng.integers(0, 2**bits - 1, x.size, dtype=np.uint64, endpoint=True).astype(
        random_type.dtype
    )
    fraction = np.array(
        [0, 2 ** (bits - 2) - 1, 2 ** (bits - 2), 2 ** (bits - 1), 2**bits - 1], dtype=object
    )
    random[: fraction.size] = fraction.astype(random_type.dtype)
    ops = [
        Op(f"sc_{t.hlo_name}", "stochastic-convert", (0, 1), array_text(t, x.size)) for t in targets
    ]
    check_all([x, random], ops)
