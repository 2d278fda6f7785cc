"""Generate the corpus of real XLA HLO text used by the HLO parser's round-trip tests.

A hand-written parser is only as good as the text it has seen, and XLA's printer has many
corners (tuple shapes with ``/*index=N*/`` comments, elided constants, stack-frame tables,
fusion ``calls=``, ``backend_config`` JSON, scheduled modules, sharding annotations, every
dtype from ``pred`` to ``f4e2m1fn``). So instead of inventing examples we let JAX and XLA:CPU
print them. Each case below is a small JAX function; for each we write three files:

* ``NAME.hlo``         -- short form, ``XlaComputation.as_hlo_text(print_large_constants=True)``
                          (large constants are printed so that the text fully defines the module)
* ``NAME.verbose.hlo`` -- ``HloModule.to_string`` with XLA's default ``HloPrintOptions`` plus
                          operand shapes: ``%`` names, ``metadata={...}``, the FileNames /
                          FunctionNames / FileLocations / StackFrames tables, and large
                          constants elided as ``{...}``
* ``NAME.opt.hlo``     -- after XLA:CPU's optimisation pipeline, ``compile().as_text()``
                          (scheduled, fused, with layouts assigned)

plus ``MANIFEST.json`` listing the JAX version and each file's distinct opcodes, so that tests
can check coverage without JAX and notice drift when JAX is upgraded.

A few cases are lowered for another platform (``tpu``/``cuda``) because only there does JAX
emit the dedicated HLO op (cholesky, triangular-solve, ragged-dot, send/recv); those have no
``.opt.hlo`` since XLA:CPU cannot compile for them. The ``raw_*`` cases reach HLO ops that no
JAX API emits (infeed, outfeed, map, batch-norm-*, replica-id, scan, bounded dynamic shapes,
async collectives, ...) through a throwaway JAX primitive whose lowering rule writes the
StableHLO/CHLO op directly; the HLO text is still XLA's own.

The output is deterministic for a given JAX version (fixed shapes, seeded constants, source
paths reduced to the basename, driver frames hidden from the stack-frame tables).

Run: ``.venv/bin/python tools/gen_hlo_corpus.py [--out DIR] [--only NAME,NAME]``.
"""

from __future__ import annotations

import os

# Four host devices give the collectives something to talk to. Set before JAX is imported,
# and overwrite any user XLA_FLAGS so that the optimised HLO does not depend on them.
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import dataclasses  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Callable  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.extend import source_info_util  # noqa: E402

# Metadata carries source paths; keep only the basename so the corpus does not depend on
# where the repository is checked out.
jax.config.update("jax_hlo_source_file_canonicalization_regex", r".*/")

# JAX records the Python stack of every traced op and XLA prints it as the StackFrames table.
# The driver's own frames (main, generate_case, ...) would be in every file, so driver
# functions are moved to a pseudo file that JAX treats as library code, and main runs on a
# worker thread so that the script's top level is not on the stack either.
_DRIVER_FILE = "<gen_hlo_corpus driver>"
source_info_util.register_exclusion(_DRIVER_FILE)


def _driver(fn):
    fn.__code__ = fn.__code__.replace(co_filename=_DRIVER_FILE)
    return fn


REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "tests" / "data" / "hlo_corpus"

# Every opcode this XLA knows (xla/hlo/ir/hlo_opcode.h), in its textual spelling; used to
# report which ones the corpus does not reach.
ALL_OPCODES = sorted("""
abs acos acosh add add-dependency after-all all-gather all-gather-done all-gather-start
all-reduce all-reduce-done all-reduce-start all-to-all and asin asinh async-done async-start
async-update atan2 atanh batch-norm-grad batch-norm-inference batch-norm-training bitcast
bitcast-convert broadcast call cbrt ceil cholesky clamp collective-broadcast
collective-permute collective-permute-done collective-permute-start compare complex
concatenate conditional constant convert convolution copy copy-done copy-start cosine cosh
count-leading-zeros custom-call divide domain dot dynamic-reshape dynamic-slice
dynamic-update-slice erf exponential exponential-minus-one fft floor fusion gather
get-dimension-size get-tuple-element imag infeed iota is-finite log log-plus-one logistic map
maximum minimum mulhi multiply negate not opt-barrier or outfeed pad parameter partition-id
popcnt power ragged-all-to-all ragged-dot real recv recv-done reduce reduce-precision
reduce-scatter reduce-window remainder replica-id reshape reverse rng rng-bit-generator
rng-get-and-update-state round-nearest-afz round-nearest-even rsqrt scaled-dot scan scatter
select select-and-scatter send send-done set-dimension-size shift-left
shift-right-arithmetic shift-right-logical sign sine sinh slice sort sqrt stochastic-convert
subtract tan tanh topk transpose triangular-solve tuple while xor
""".split())

_ASYNC = ("only XLA:GPU/TPU passes create it (memory-space assignment, async scheduling); "
          "XLA converts StableHLO async_start only around collectives")
_CHLO = ("JAX emits the CHLO op, but XLA's StableHLO-to-HLO conversion always expands it "
         "into elementary ops")
# Why the opcodes the corpus lacks are out of reach from JAX 0.10 on a CPU-only machine.
UNREACHABLE = {
    **dict.fromkeys(["acos", "acosh", "asin", "asinh", "atanh", "cosh", "sinh"], _CHLO),
    **dict.fromkeys(["async-update", "copy-start", "copy-done"], _ASYNC),
    "scaled-dot": "JAX decomposes lax.scaled_dot into convert/multiply/dot on every platform",
    "add-dependency": "no StableHLO counterpart; only XLA-internal passes create it",
    "domain": "no StableHLO counterpart; only XLA's sharding-domain passes create it",
    "stochastic-convert": "no StableHLO counterpart (only the XlaBuilder API has it)",
}

# `name = shape opcode(`: the shape never contains " word(", so the first such match
# after "=" is the opcode, in all three printing styles.
_OPCODE_RE = re.compile(r"^\s*(?:ROOT\s+)?%?\S+\s+=\s+.*?\s([a-z][a-z0-9-]*)\(", re.M)


def opcodes_of(text: str) -> list[str]:
    """Distinct opcodes, with XLA's async sugar (`all-to-all-start(...)` is an async-start
    wrapping an all-to-all) mapped back to the real opcode."""
    ops = set()
    for name in _OPCODE_RE.findall(text):
        if name not in ALL_OPCODES:
            stem, _, phase = name.rpartition("-")
            if stem and phase in ("start", "update", "done"):
                name = f"async-{phase}"
        ops.add(name)
    return sorted(ops)


# --------------------------------------------------------------------------------------
# Case registry
# --------------------------------------------------------------------------------------

_DTYPES = {
    "pred": jnp.bool_, "s8": jnp.int8, "s16": jnp.int16, "s32": jnp.int32, "s64": jnp.int64,
    "u8": jnp.uint8, "u16": jnp.uint16, "u32": jnp.uint32, "u64": jnp.uint64,
    "bf16": jnp.bfloat16, "f16": jnp.float16, "f32": jnp.float32, "f64": jnp.float64,
    "c64": jnp.complex64, "c128": jnp.complex128, "s4": jnp.int4, "u4": jnp.uint4,
    "f8e4m3fn": jnp.float8_e4m3fn, "f8e5m2": jnp.float8_e5m2,
}


def spec(s: str) -> jax.ShapeDtypeStruct:
    """Shapes are written as HLO spells them, so a case reads like the HLO it produces."""
    m = re.fullmatch(r"(\w+)\[([\d,]*)\]", s)
    assert m, s
    dims = tuple(int(d) for d in m.group(2).split(",") if d)
    return jax.ShapeDtypeStruct(dims, _DTYPES[m.group(1)])


@dataclasses.dataclass
class Case:
    name: str
    fn: Callable
    args: tuple  # HLO shape strings, ShapeDtypeStructs, or thunks returning one
    jit_kwargs: dict
    platform: str | None = None  # lower for this platform instead of the host CPU
    opt: bool = True  # also compile with XLA:CPU
    x64: bool = False

    def make_args(self):
        out = []
        for a in self.args:
            if callable(a) and not isinstance(a, jax.ShapeDtypeStruct):
                a = a()
            out.append(spec(a) if isinstance(a, str) else a)
        return out


CASES: list[Case] = []


def case(*args, platform=None, opt=True, x64=False, **jit_kwargs):
    def deco(fn):
        CASES.append(Case(fn.__name__, fn, args, jit_kwargs, platform,
                          opt and platform is None, x64))
        return fn
    return deco


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------

@case("f32[2,3]")
def unary_float(x):
    return (
        jnp.abs(x), jnp.ceil(x), jnp.floor(x), jnp.cos(x), jnp.sin(x), jnp.tan(x),
        jnp.tanh(x), jnp.exp(x), jnp.expm1(x), jnp.log(x), jnp.log1p(x), lax.logistic(x),
        lax.rsqrt(x), jnp.sqrt(x), jnp.cbrt(x), jnp.sign(x), -x, jnp.isfinite(x),
        lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
        lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), lax.erf(x), lax.exp2(x),
        lax.exp(x, accuracy=lax.Tolerance(atol=1e-5, rtol=0.0, ulps=2)),
        lax.tanh(x, accuracy=lax.AccuracyMode.HIGHEST),
    )


@case("f32[4]", "f32[4]")
def binary_float(x, y):
    return (
        x + y, x - y, x * y, x / y, jnp.maximum(x, y), jnp.minimum(x, y), lax.pow(x, y),
        lax.rem(x, y), jnp.arctan2(x, y), lax.nextafter(x, y), lax.clamp(-1.0, x, 1.0),
        lax.select(x > y, x, y), lax.integer_pow(x, 3), jnp.hypot(x, y),
    )


@case("f32[3]", "f32[3]", "s32[3]", "s32[3]", "u32[3]", "u32[3]", "c64[3]", "pred[3]")
def compare_all(x, y, i, j, u, v, c, b):
    return (
        x == y, x != y, x < y, x <= y, x > y, x >= y,
        lax.eq_to_p.bind(x, y), lax.lt_to_p.bind(x, y), lax.le_to_p.bind(x, y),
        i == j, i < j, i >= j, u < v, u >= v, u != v,
        c == c, c != c, b == b, b < b,
    )


@case("s32[5]", "s32[5]", "u32[5]", "u8[5]")
def integer_ops(x, y, u, b):
    return (
        x & y, x | y, x ^ y, ~x, lax.shift_left(x, y), lax.shift_right_arithmetic(x, y),
        lax.shift_right_logical(x, y), lax.population_count(x), lax.clz(x), x // y, x % y,
        lax.div(x, y), lax.rem(x, y), jnp.maximum(x, y), jnp.minimum(x, y), jnp.abs(x),
        jnp.sign(x), -x, lax.mulhi(u, u), lax.integer_pow(x, 5), lax.clamp(0, x, 7),
        lax.population_count(b), lax.clz(b), lax.shift_right_logical(u, u), ~u,
    )


@case("pred[4]", "pred[4]")
def bool_ops(a, b):
    return a & b, a | b, a ^ b, ~a, lax.select(a, b, ~b), jnp.logical_xor(a, b)


@case("c64[3]", "c64[3]", "f32[3]")
def complex_ops(a, b, r):
    z = lax.complex(r, r * 2)
    return (
        z, jnp.real(a), jnp.imag(a), jnp.abs(a), jnp.conj(a), a * b, a / b, jnp.exp(a),
        jnp.sqrt(a), jnp.angle(a), jnp.log(a), a + z, jnp.tanh(a), lax.rsqrt(b),
    )


@case("c128[2]", "f64[2]", x64=True)
def complex128_ops(a, r):
    return a * lax.complex(r, r) + jnp.sin(a), jnp.abs(a), jnp.expm1(a), jnp.log1p(a)


@case("f32[4]")
def special_functions(x):
    return (
        lax.lgamma(x), lax.digamma(x), lax.erf_inv(x), lax.bessel_i1e(x), lax.acos(x),
        lax.asin(x), lax.atan(x), lax.acosh(x), lax.asinh(x), lax.atanh(x), lax.cosh(x),
        lax.sinh(x), jax.nn.gelu(x), jax.nn.softplus(x),
    )


# --------------------------------------------------------------------------------------
# Dtypes and conversions
# --------------------------------------------------------------------------------------

_CONVERT_TARGETS = [
    jnp.bfloat16, jnp.float16, jnp.int8, jnp.uint8, jnp.int16, jnp.uint16, jnp.int32,
    jnp.uint32, jnp.bool_, jnp.complex64, jnp.float8_e4m3fn, jnp.float8_e5m2,
    jnp.float8_e4m3b11fnuz, jnp.float8_e4m3fnuz, jnp.float8_e5m2fnuz, jnp.float8_e3m4,
    jnp.float8_e4m3, jnp.float8_e8m0fnu, jnp.float4_e2m1fn, jnp.int4, jnp.uint4, jnp.int2,
    jnp.uint2,
]


@case("f32[3]")
def convert_dtypes(x):
    return tuple(x.astype(t) for t in _CONVERT_TARGETS)


@case("f64[3]", "s64[3]", "u64[3]", x64=True)
def convert_64bit(x, i, u):
    return (x.astype(jnp.float32), x.astype(jnp.int64), i.astype(jnp.float64),
            u.astype(jnp.float64), i.astype(jnp.uint64), x.astype(jnp.complex128),
            jnp.sin(x) * 2.5, i * i, u >> 3)


@case("f32[4]", "u8[4,4]", "bf16[2]", "s32[2]")
def bitcast_convert(x, b, h, i):
    return (
        lax.bitcast_convert_type(x, jnp.uint32), lax.bitcast_convert_type(x, jnp.uint8),
        lax.bitcast_convert_type(b, jnp.float32), lax.bitcast_convert_type(h, jnp.int16),
        lax.bitcast_convert_type(i, jnp.float32),
        lax.bitcast_convert_type(x, jnp.float16),
    )


@case("f32[8]")
def reduce_precision(x):
    return (lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10),
            lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7),
            lax.reduce_precision(x, exponent_bits=4, mantissa_bits=3))


@case("bf16[4,8]", "bf16[8,2]", "f16[4]")
def low_precision(a, b, h):
    return (jnp.dot(a, b), jnp.dot(a, b, preferred_element_type=jnp.float32),
            jnp.sin(a), jnp.exp(h) + h, jnp.sum(a, axis=1), jnp.mean(h))


@case("f8e4m3fn[4,8]", "f8e5m2[8,2]", "s4[8]")
def fp8_int4(a, b, q):
    return (jnp.dot(a, b, preferred_element_type=jnp.float32), a.astype(jnp.float32) * 2,
            q.astype(jnp.int32) + 1, q + q)


@case("f64[3,3]", x64=True)
def float64_math(x):
    return x @ x.T, jnp.linalg.norm(x), jnp.cumsum(x, axis=0), jnp.arange(3.0) * x


# --------------------------------------------------------------------------------------
# Shapes and data movement
# --------------------------------------------------------------------------------------

@case("f32[2,3,4]", "f32[3]")
def shape_ops(x, v):
    return (
        lax.broadcast_in_dim(v, (2, 3, 5), (1,)), jnp.broadcast_to(v, (4, 3)),
        x.reshape(6, 4), x.transpose(2, 0, 1), x[:, 1:, ::2], x[..., ::-1],
        lax.slice(x, (0, 0, 1), (2, 3, 4), (1, 2, 2)),
        jnp.concatenate([x, x * 2], axis=1),
        lax.pad(x, 0.0, ((1, 2, 0), (0, 0, 1), (-1, 1, 2))), lax.rev(x, (0, 2)),
        lax.iota(jnp.int32, 5), lax.broadcasted_iota(jnp.float32, (3, 4), 1),
        jnp.expand_dims(v, 0), x[:, :1].squeeze(1), jnp.tile(v, 2), jnp.roll(v, 1),
        jnp.flip(x, 1).ravel(),
    )


@case("f32[8,6]", "s32[]", "s32[]", "f32[2,3]")
def dynamic_slicing(x, i, j, u):
    return (
        lax.dynamic_slice(x, (i, j), (3, 2)), lax.dynamic_update_slice(x, u, (i, j)),
        lax.dynamic_slice_in_dim(x, i, 2, axis=1), lax.dynamic_index_in_dim(x, j, 0),
    )


@case("f32[0,3]", "f32[4,3]", "s32[0]")
def zero_size(e, x, ei):
    return (e + 1, jnp.concatenate([e, x]), jnp.sum(e, axis=0), e.reshape(3, 0), e.T,
            jnp.max(e, axis=0, initial=0.0), ei * 2, x[:0], jnp.zeros((2, 0, 5)))


@case("f32[2,3]")
def tuple_results(x):
    """Nested pytrees flatten to a tuple with more than five elements, which XLA prints
    with /*index=5*/ comments inside the tuple shape."""
    return {"a": x, "b": (x * 2, (x + 1, x.sum()))}, [x.T, x[0], x[1], x[:, 0]], x.astype(int)


@case("f32[]", "s32[]")
def scalars(x, i):
    return x * 2 + 1, i + 3, jnp.where(x > 0, x, -x), x.astype(jnp.int32) + i


# --------------------------------------------------------------------------------------
# Dot and convolution
# --------------------------------------------------------------------------------------

@case("f32[2,3,4]", "f32[2,4,5]", "f32[4]", "s8[3,4]", "s8[4,2]")
def dot_general(a, b, v, i, j):
    hi = lax.Precision.HIGHEST
    return (
        lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))), precision=hi),
        jnp.einsum("bij,bjk->bik", a, b, precision=(lax.Precision.DEFAULT, hi)),
        jnp.dot(a, v), jnp.einsum("bij,j->bi", a, v),
        jnp.einsum("bij,bij->", a, a, precision=lax.Precision.HIGH),
        lax.dot(i, j, preferred_element_type=jnp.int32), jnp.outer(v, v), jnp.vdot(v, v),
        lax.dot_general(a, a, (((1, 2), (1, 2)), ((), ()))),
    )


_CONV_DN = ("NCHW", "OIHW", "NCHW")


@case("f32[2,3,9,9]", "f32[4,3,3,3]")
def conv2d(x, w):
    return (
        lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=_CONV_DN),
        lax.conv_general_dilated(x, w, (2, 2), ((1, 0), (2, 1)), dimension_numbers=_CONV_DN),
        lax.conv_general_dilated(x, w, (1, 1), "VALID", rhs_dilation=(2, 2),
                                 dimension_numbers=_CONV_DN),
        lax.conv_general_dilated(x, w, (1, 1), ((0, 0), (1, 1)), lhs_dilation=(2, 1),
                                 dimension_numbers=_CONV_DN,
                                 precision=lax.Precision.HIGHEST),
        lax.conv_transpose(x, w.transpose(1, 0, 2, 3), (2, 2), "SAME", transpose_kernel=True,
                           dimension_numbers=_CONV_DN),
    )


@case("f32[2,9,9,4]", "f32[3,3,2,6]", "f32[3,3,1,4]")
def conv_grouped(x, w, dw):
    nhwc = ("NHWC", "HWIO", "NHWC")
    return (
        lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=nhwc,
                                 feature_group_count=2),
        lax.conv_general_dilated(x, dw, (2, 2), "SAME", dimension_numbers=nhwc,
                                 feature_group_count=4),
    )


@case("f32[4,3,8,8]", "f32[2,3,3,3]")
def conv_batch_grouped(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=_CONV_DN,
                                    batch_group_count=2)


@case("f32[2,6,9,9]", "f32[4,3,3,3]")
def conv_grouped_grad(x, w):
    """The weight gradient of a grouped convolution is where XLA sees batch_group_count."""
    def loss(x, w):
        y = lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=_CONV_DN,
                                     feature_group_count=2)
        return jnp.sum(y * y)
    return jax.grad(loss, argnums=(0, 1))(x, w)


@case("f32[2,5,3]", "f32[3,3,4]", "f32[1,2,6,6,6]", "f32[3,2,2,2,2]")
def conv_1d_3d(x, w, v, k):
    return (
        lax.conv_general_dilated(x, w, (2,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")),
        lax.conv_general_dilated(v, k, (1, 2, 1), "VALID", rhs_dilation=(1, 1, 2)),
    )


@case("f32[6,4]", "f32[2,4,3]", "s32[2]")
def ragged_dot(a, b, g):
    """XLA:CPU gets a decomposition; see ragged_dot_tpu for the ragged-dot op."""
    return lax.ragged_dot(a, b, g)


@case("f32[6,4]", "f32[2,4,3]", "s32[2]", platform="tpu")
def ragged_dot_tpu(a, b, g):
    return lax.ragged_dot(a, b, g)


@case("f8e4m3fn[2,4,32]", "f8e4m3fn[2,32,8]", "f32[2,4,1]", "f32[2,1,8]")
def scaled_dot(a, b, sa, sb):
    return lax.scaled_dot(a, b, lhs_scale=sa.astype(jnp.float8_e8m0fnu),
                          rhs_scale=sb.astype(jnp.float8_e8m0fnu),
                          preferred_element_type=jnp.float32)


# --------------------------------------------------------------------------------------
# Reductions and windows
# --------------------------------------------------------------------------------------

@case("f32[3,4]", "pred[3,4]", "s32[3,4]")
def reductions(x, b, i):
    return (
        jnp.sum(x), jnp.sum(x, axis=0), jnp.max(x, axis=1), jnp.min(x), jnp.prod(x, axis=1),
        jnp.all(b, axis=0), jnp.any(b), jnp.mean(x, axis=1), jnp.argmax(x, axis=1),
        jnp.argmin(x, axis=0), jax.nn.logsumexp(x, axis=1), jnp.var(x), jnp.sum(i),
        jnp.max(i, axis=0), lax.reduce_xor(i, (1,)), jax.nn.softmax(x),
    )


@case("f32[3,4]", "s32[3,4]")
def variadic_reduce(x, i):
    def comp(a, b):
        (ax, ai), (bx, bi) = a, b
        take = ax >= bx
        return jnp.where(take, ax, bx), jnp.where(take, ai, bi)
    return lax.reduce((x, i), (-jnp.inf, 0), comp, (1,))


@case("f32[1,8,8,2]", "f32[3,7]")
def reduce_window(x, v):
    win = (1, 2, 2, 1)
    return (
        lax.reduce_window(x, -jnp.inf, lax.max, win, win, "VALID"),
        lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0,
        lax.reduce_window(v, 0.0, lax.add, (1, 7), (1, 1), ((0, 0), (6, 0))),
        lax.reduce_window(x, 1.0, lax.mul, win, (1, 1, 1, 1), "VALID",
                          base_dilation=(1, 2, 1, 1), window_dilation=(1, 1, 2, 1)),
        jnp.cumsum(v, axis=1), jnp.cumprod(v, axis=0), lax.cummax(v, axis=1),
        lax.reduce_window((v, v * 2), (0.0, -jnp.inf),
                          lambda a, b: (a[0] + b[0], jnp.maximum(a[1], b[1])),
                          (2, 2), (1, 1), "VALID"),
    )


@case("f32[2,8,8,3]")
def maxpool_grad(x):
    """Gradients of max pooling are the only route to select-and-scatter."""
    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "SAME")
    return jax.grad(lambda x: jnp.sum(pool(x) ** 2))(x)


# --------------------------------------------------------------------------------------
# Gather, scatter, sort
# --------------------------------------------------------------------------------------

@case("f32[5,4]", "s32[3]", "s32[5,2]")
def gather(x, idx, idx2):
    return (
        x[idx], x[:, idx[:2]], x[idx, idx], jnp.take_along_axis(x, idx2, axis=1),
        jnp.take(x, idx, axis=1, mode="clip"), x.at[idx].get(mode="fill", fill_value=-1.0),
        lax.index_take(x, (idx, idx), (0, 1)),
    )


@case("f32[5,4]", "s32[3]", "f32[3,4]", "s32[6]", "f32[6]")
def scatter(x, idx, upd, seg, data):
    return (
        x.at[idx].set(upd), x.at[idx].add(upd), x.at[idx].mul(upd), x.at[idx].min(upd),
        x.at[idx].max(upd), x.at[idx, 1].set(0.0, unique_indices=True, indices_are_sorted=True),
        jax.ops.segment_sum(data, seg, num_segments=4), x.at[idx].add(upd, mode="drop"),
    )


@case("f32[4,6]", "s32[4,6]", "f32[6]")
def sort(x, k, v):
    return (
        jnp.sort(x, axis=1), jnp.argsort(x, axis=0, stable=True), jnp.sort(v)[::-1],
        lax.sort((k, x), dimension=1, num_keys=2, is_stable=True),
        lax.sort((x, k, v.astype(jnp.int32)[None].repeat(4, 0)), dimension=1, num_keys=1),
        jnp.lexsort((v, -v)), jnp.argsort(v, descending=True),
    )


@case("f32[3,10]")
def top_k(x):
    return lax.top_k(x, 3), lax.approx_max_k(x, 2)


# --------------------------------------------------------------------------------------
# Control flow and calls
# --------------------------------------------------------------------------------------

@case("f32[3]", "s32[]")
def loops(x, n):
    a = lax.fori_loop(0, 5, lambda i, c: c * 2 + i, x)
    b = lax.fori_loop(0, n, lambda i, c: c + jnp.sin(c), x)

    def cond(c):
        return c[0] < 10

    def body(c):
        i, v, w = c
        return i + 1, v * 1.5, w + v.sum()
    c = lax.while_loop(cond, body, (0, x, jnp.float32(0)))
    carry, ys = lax.scan(lambda c, e: (c + e, c * e), 0.0, x)
    rc, rys = lax.scan(lambda c, e: (c * e, (c, e)), 1.0, x, reverse=True, unroll=2)
    return a, b, c, carry, ys, rc, rys, lax.associative_scan(jnp.add, x)


@case("f32[3]", "s32[]", "pred[]")
def conditionals(x, i, p):
    a = lax.cond(p, lambda v: v * 2, lambda v: jnp.sin(v), x)
    b = lax.switch(i, [lambda v: v + 1, lambda v: v * v, lambda v: -v], x)
    c = lax.cond(x[0] > 0, lambda: (x, i), lambda: (x * 0, i + 1))
    d = jnp.where(p, x, 0.0)
    return a, b, c, d, lax.platform_dependent(x, cpu=jnp.cos, default=jnp.sin)


@case("f32[4]", "s32[]")
def nested_control(x, n):
    def step(c, e):
        def inner(c):
            return lax.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] * 0.5),
                                  (0, c))[1]
        return lax.cond(e > 0, inner, lambda c: c + e, c), e
    return lax.scan(step, x, x)


@jax.jit
def _helper_jit(x):
    return jnp.tanh(x) * 3


@case("f32[4]")
def calls(x):
    """Nested jit becomes an HLO call; composite adds composite attributes to it."""
    y = _helper_jit(x) + _helper_jit(x * 2)
    z = lax.composite(lambda v, *, alpha: v * alpha, name="corpus.scale",
                      version=2)(x, alpha=np.float32(0.5))
    w = jax.checkpoint(lambda v: jnp.sin(jnp.sin(v)))(x)
    with jax.named_scope("my_scope"):
        s = jax.named_call(lambda v: v * 3, name="triple")(x)
    return y, z, w, s


@case("f32[3,4]", "f32[4,2]", "f32[3,2]")
def mlp_grad(x, w, t):
    def loss(w):
        h = jax.nn.relu(x @ w)
        return jnp.mean((h - t) ** 2)
    return jax.value_and_grad(loss)(w), jax.hessian(lambda v: jnp.sum(jnp.sin(v) ** 3))(x[0])


@jax.custom_vjp
def _clip_gradient(x):
    return x


_clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1.0, 1.0),))


@jax.custom_jvp
def _safe_log(x):
    return jnp.log(x)


_safe_log.defjvp(lambda p, t: (_safe_log(p[0]), t[0] / jnp.maximum(p[0], 1e-6)))


@case("f32[4]")
def custom_derivatives(x):
    return jax.grad(lambda v: jnp.sum(_clip_gradient(v) ** 3 + _safe_log(v)))(x)


@case("f32[4]")
def remat_policy(x):
    f = jax.checkpoint(lambda v: jnp.sum(jnp.sin(v) @ jnp.cos(v)),
                       policy=jax.checkpoint_policies.nothing_saveable)
    return jax.grad(f)(x)


@case("f32[4]")
def xla_metadata(x):
    from jax.experimental.xla_metadata import set_xla_metadata
    with set_xla_metadata(corpus_tag="hello", priority=3):
        y = jnp.sin(x) * 2
    return y + 1


# --------------------------------------------------------------------------------------
# Linear algebra, FFT
# --------------------------------------------------------------------------------------

@case("f32[4,4]", "f32[4,2]")
def linalg_cpu(a, b):
    """On CPU JAX lowers linear algebra to LAPACK custom-calls with typed-FFI configs."""
    spd = a @ a.T + 4 * jnp.eye(4)
    lo = jnp.linalg.cholesky(spd)
    return (
        lo, lax.linalg.triangular_solve(lo, b.T, left_side=False, lower=True),
        jnp.linalg.qr(a), jnp.linalg.eigh(spd), jnp.linalg.svd(a, full_matrices=False),
        jnp.linalg.det(a), jnp.linalg.solve(spd, b), jnp.linalg.inv(a),
        jax.scipy.linalg.lu(a), jnp.linalg.eigvals(a),
    )


@case("f32[4,4]", "f32[4,3]", platform="tpu")
def linalg_tpu(a, b):
    """JAX emits XLA's own cholesky and triangular-solve ops only when lowering for TPU."""
    spd = a @ a.T + 4 * jnp.eye(4)
    lo = lax.linalg.cholesky(spd)
    return (
        lo, lax.linalg.triangular_solve(lo, b, left_side=True, lower=True),
        lax.linalg.triangular_solve(lo, b.T, left_side=False, lower=True,
                                    transpose_a=True, conjugate_a=True, unit_diagonal=True),
    )


@case("c64[4,8]", "f32[2,4,8]")
def fft(c, r):
    return (
        jnp.fft.fft(c), jnp.fft.ifft(c, axis=0), jnp.fft.rfft(r), jnp.fft.irfft(c),
        jnp.fft.fft2(c), jnp.fft.ifftn(r.astype(jnp.complex64)), jnp.fft.rfftn(r),
        jnp.fft.irfftn(jnp.fft.rfftn(r), s=r.shape), jnp.fft.fftshift(c),
    )


# --------------------------------------------------------------------------------------
# Randomness
# --------------------------------------------------------------------------------------

@case("u32[2]")
def random_threefry(k):
    key = jax.random.wrap_key_data(k, impl="threefry2x32")
    k1, k2 = jax.random.split(key)
    return jax.random.normal(k1, (2, 2)), jax.random.permutation(k2, 5)


@case("u32[4]")
def random_rbg(k):
    key = jax.random.wrap_key_data(k, impl="rbg")
    return jax.random.uniform(key, (3,)), jax.random.split(key)


@case("u32[4]")
def random_unsafe_rbg(k):
    key = jax.random.wrap_key_data(k, impl="unsafe_rbg")
    return jax.random.normal(key, (2, 3)), jax.random.gumbel(key, (2,))


@case("u32[4]", x64=True)
def rng_bit_generator(k):
    return (
        lax.rng_bit_generator(k, (3, 4)),
        lax.rng_bit_generator(k, (2,), algorithm=lax.RandomAlgorithm.RNG_PHILOX,
                              dtype=jnp.uint64),
        lax.rng_bit_generator(k, (5,), algorithm=lax.RandomAlgorithm.RNG_THREE_FRY,
                              dtype=jnp.uint8),
    )


@case("f32[]")
def rng_uniform(hi):
    """lax.rng_uniform is the only JAX API that emits XLA's stateful rng op."""
    return lax.rng_uniform(0.0, hi, (3,)), lax.rng_uniform(np.int32(0), np.int32(9), (2,))


# --------------------------------------------------------------------------------------
# Side effects, tokens, callbacks
# --------------------------------------------------------------------------------------

@case("f32[3]", "f32[3]")
def optimization_barrier(x, y):
    a, b = lax.optimization_barrier((x * 2, y + 1))
    return a + b


@case("f32[3]")
def callbacks(x):
    from jax.experimental import io_callback
    jax.debug.print("x = {}", x, ordered=False)
    a = jax.pure_callback(lambda v: np.asarray(v) * 2, x, x)
    b = io_callback(lambda v: np.asarray(v) + 1, x, x, ordered=True)
    return a + b


@case("f32[4]", donate_argnums=(0,))
def donated_args(x):
    return x * 2, x.sum()


# --------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------

_BIG = _rng(1234).standard_normal((96, 64)).astype(np.float32)


@case("f32[96,64]")
def large_constant(x):
    """The one deliberately big constant: a parser must handle a long literal line."""
    return x * _BIG + _BIG[::-1]


@case("f32[6]", "f16[4]", "bf16[4]", "s64[3]", "u64[2]", "f64[5]", "c64[2]", x64=True)
def special_constants(x, h, b, i, u, d, c):
    nan_payload = np.array([0x7FC00001, 0xFFC00000], np.uint32).view(np.float32)
    xs = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-45, 3.4028235e38], np.float32)
    return (
        x + xs, x + np.concatenate([nan_payload, xs[:4]]),
        h * np.array([np.inf, np.nan, 65504, 6e-8], np.float16),
        b + np.array([np.inf, -np.nan, 3.0e38, 1e-40], jnp.bfloat16),
        i + np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, -1], np.int64),
        u ^ np.array([np.iinfo(np.uint64).max, 1 << 63], np.uint64),
        d * np.array([np.pi, 5e-324, np.nan, -np.inf, 1 / 3], np.float64),
        c * np.array([1 + 2j, np.nan - np.inf * 1j], np.complex64),
        jnp.array([True, False]), jnp.int8(-128), jnp.uint8(255),
        jnp.array([1.5, -2.25], jnp.float8_e4m3fn), jnp.array([0.5, 448], jnp.float8_e5m2),
    )


# --------------------------------------------------------------------------------------
# Collectives and sharding (four host devices)
# --------------------------------------------------------------------------------------

def _mesh():
    from jax.sharding import AxisType
    return jax.make_mesh((4,), ("i",), axis_types=(AxisType.Auto,))


def _sm(f, in_specs=None, out_specs=None, **kw):
    from jax.sharding import PartitionSpec as P
    return jax.shard_map(f, mesh=_mesh(), in_specs=P("i") if in_specs is None else in_specs,
                         out_specs=P("i") if out_specs is None else out_specs, **kw)


def _P(*a):
    from jax.sharding import PartitionSpec
    return PartitionSpec(*a)


@case("f32[8,4]")
def all_reduce(x):
    return (_sm(lambda a: lax.psum(a, "i"), out_specs=_P())(x),
            _sm(lambda a: lax.pmax(a, "i"), out_specs=_P())(x),
            _sm(lambda a: lax.pmin(a.astype(jnp.int32), "i"), out_specs=_P())(x),
            _sm(lambda a: lax.pmean(a, "i"), out_specs=_P())(x))


@case("f32[8,4]")
def all_gather(x):
    return (_sm(lambda a: lax.all_gather(a, "i", tiled=True), out_specs=_P(),
                check_vma=False)(x),
            _sm(lambda a: lax.all_gather(a, "i", axis=1))(x))


@case("f32[32,4]")
def reduce_scatter(x):
    return _sm(lambda a: lax.psum_scatter(a, "i", tiled=True))(x)


@case("f32[16,4]")
def all_to_all(x):
    return _sm(lambda a: lax.all_to_all(a, "i", 0, 1, tiled=True))(x)


@case("f32[8,4]")
def collective_permute(x):
    return _sm(lambda a: lax.ppermute(a, "i", [(j, (j + 1) % 4) for j in range(4)]))(x)


@case("f32[8,4]")
def partition_id(x):
    return _sm(lambda a: a + lax.axis_index("i"))(x)


@case("f32[16]")
def ragged_all_to_all(x):
    """XLA:CPU has no ragged-all-to-all thunk, so only the unoptimised forms exist."""
    def f(a):
        ones = jnp.ones((4,), jnp.int32)
        offs = jnp.arange(4, dtype=jnp.int32)
        return lax.ragged_all_to_all(a, jnp.zeros_like(a), offs, ones, offs, ones,
                                     axis_name="i")
    return _sm(f)(x)


@case("f32[8,4]", platform="cuda")
def send_recv(x):
    """psend/precv are implemented for GPU only; lowering for cuda still gives HLO text."""
    perm = [(0, 1), (1, 2), (2, 3)]

    def f(a):
        t = lax.psend(a, "i", perm)
        return lax.precv(t, jax.ShapeDtypeStruct(a.shape, a.dtype), "i", perm)
    return _sm(f)(x)


def _sharded(shape, *names):
    from jax.sharding import NamedSharding
    return lambda: jax.ShapeDtypeStruct(shape, jnp.float32,
                                        sharding=NamedSharding(_mesh(), _P(*names)))


@case(_sharded((8, 4), "i"), _sharded((4, 8), None, "i"))
def sharded_jit(x, w):
    """SPMD partitioning shows up as sharding={...} attributes and, after
    optimisation, as the collectives XLA inserted on its own."""
    from jax.sharding import NamedSharding
    y = jnp.sin(x) @ w
    y = lax.with_sharding_constraint(y, NamedSharding(_mesh(), _P(None, "i")))
    return y.sum(axis=0), y


@case("f32[4,3]")
def pmap_psum(x):
    return jax.pmap(lambda a: lax.psum(a, "i") * lax.axis_index("i"), axis_name="i")(x)


# --------------------------------------------------------------------------------------
# HLO ops that no JAX API emits: a primitive whose lowering writes the StableHLO op
# --------------------------------------------------------------------------------------

def _raw(name, out_avals, lower):
    """A throwaway primitive: abstract eval from `out_avals`, lowering from `lower`."""
    from jax.extend.core import Primitive
    from jax.interpreters import mlir
    p = Primitive(f"corpus_{name}")
    p.multiple_results = True
    p.def_abstract_eval(lambda *avals, **kw: out_avals(*avals))
    mlir.register_lowering(p, lower)
    return p


def _hlo():
    from jax.extend.mlir import ir
    from jax.extend.mlir.dialects import stablehlo as hlo
    from jax.interpreters import mlir
    return ir, hlo, mlir


def _scalar_block(op_region, ir, hlo, elem, nargs):
    return op_region.blocks.append(*[ir.RankedTensorType.get([], elem)] * nargs)


def _lower_infeed_outfeed(ctx, x):
    ir, hlo, mlir = _hlo()
    ty = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    tok = hlo.create_token()
    inf = hlo.InfeedOp([ty, hlo.TokenType.get()], tok, infeed_config="corpus")
    tok2 = hlo.after_all([inf.results[1], tok])
    hlo.OutfeedOp([x, inf.results[0]], tok2, outfeed_config="corpus")
    return [hlo.add(x, inf.results[0])]


@case("f32[3]")
def raw_infeed_outfeed(x):
    return _raw("infeed_outfeed", lambda a: [a], _lower_infeed_outfeed).bind(x)[0]


def _lower_replica_id(ctx, x):
    ir, hlo, mlir = _hlo()
    rid = hlo.replica_id()
    ty = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return [hlo.add(x, hlo.broadcast_in_dim(ty, hlo.convert(
        ir.RankedTensorType.get([], ir.IntegerType.get_signless(32)), rid),
        mlir.dense_int_array([])))]


@case("s32[3]")
def raw_replica_id(x):
    return _raw("replica_id", lambda a: [a], _lower_replica_id).bind(x)[0]


def _lower_map(ctx, x, y):
    ir, hlo, mlir = _hlo()
    ty = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    op = hlo.MapOp(ty, [x, y], [0, 1])
    blk = _scalar_block(op.computation, ir, hlo, ty.element_type, 2)
    with ir.InsertionPoint(blk):
        a, b = blk.arguments
        hlo.return_([hlo.add(hlo.multiply(a, a), b)])
    return [op.result]


@case("f32[2,3]", "f32[2,3]")
def raw_map(x, y):
    return _raw("map", lambda a, b: [a], _lower_map).bind(x, y)[0]


def _lower_batch_norm(ctx, x, scale, offset, grad):
    ir, hlo, mlir = _hlo()
    tys = [mlir.aval_to_ir_type(ctx.module_context, a) for a in ctx.avals_out]
    tr = hlo.BatchNormTrainingOp(x, scale, offset, 1e-3, 3, results=tys[:3])
    y, mean, var = tr.results
    inf = hlo.BatchNormInferenceOp(x, scale, offset, mean, var, 1e-3, 3, results=[tys[0]])
    gr = hlo.BatchNormGradOp(x, scale, mean, var, grad, 1e-3, 3, results=tys[:3])
    return [y, mean, var, inf.result, *gr.results]


@case("f32[2,4,4,3]", "f32[3]", "f32[3]", "f32[2,4,4,3]")
def raw_batch_norm(x, scale, offset, grad):
    def avals(x, s, o, g):
        return [x, s, s, x, x, s, s]
    return _raw("batch_norm", avals, _lower_batch_norm).bind(x, scale, offset, grad)


def _lower_dynamic_shapes(ctx, x, n):
    ir, hlo, mlir = _hlo()
    f32 = ir.F32Type.get()
    dyn = ir.ShapedType.get_dynamic_size()
    bounded = ir.RankedTensorType.get([2, dyn], f32, ir.Attribute.parse("#stablehlo.bounds<?, 7>"))
    d = hlo.SetDimensionSizeOp(x, n, 1, results=[bounded]).result
    flat_ty = ir.RankedTensorType.get([dyn], f32, ir.Attribute.parse("#stablehlo.bounds<14>"))
    s = hlo.get_dimension_size(d, 1)
    two = mlir.ir_constant(np.int32(2))
    shape = hlo.reshape(ir.RankedTensorType.get([1], ir.IntegerType.get_signless(32)),
                        hlo.multiply(s, two))
    flat = hlo.DynamicReshapeOp(flat_ty, d, shape).result
    return [hlo.add(s, hlo.get_dimension_size(flat, 0))]


@case("f32[2,7]", "s32[]")
def raw_dynamic_shapes(x, n):
    """Bounded dynamic shapes (f32[2,<=7]) only appear through set-dimension-size."""
    return _raw("dynamic_shapes", lambda a, b: [b], _lower_dynamic_shapes).bind(x, n)[0]


def _lower_logistic(ctx, x):
    ir, hlo, mlir = _hlo()
    return [hlo.logistic(x)]


@case("f32[4]")
def raw_logistic(x):
    """lax.logistic is expanded by JAX itself; XLA's logistic op needs the StableHLO op."""
    return _raw("logistic", lambda a: [a], _lower_logistic).bind(x)[0]


def _lower_variadic_scatter(ctx, x, y, idx, u, v):
    ir, hlo, mlir = _hlo()
    tys = [mlir.aval_to_ir_type(ctx.module_context, a) for a in ctx.avals_out]
    dn = hlo.ScatterDimensionNumbers.get(
        update_window_dims=[1], inserted_window_dims=[0], input_batching_dims=[],
        scatter_indices_batching_dims=[], scattered_dims_to_operand_dims=[0],
        index_vector_dim=1)
    op = hlo.ScatterOp(tys, [x, y], idx, [u, v], dn,
                       indices_are_sorted=ir.BoolAttr.get(False),
                       unique_indices=ir.BoolAttr.get(False))
    f32 = ir.F32Type.get()
    s32 = ir.IntegerType.get_signless(32)
    blk = op.update_computation.blocks.append(*[ir.RankedTensorType.get([], t)
                                               for t in (f32, s32, f32, s32)])
    with ir.InsertionPoint(blk):
        a, b, c, d = blk.arguments
        hlo.return_([hlo.add(a, c), hlo.maximum(b, d)])
    return list(op.results)


@case("f32[5,3]", "s32[5,3]", "s32[2,1]", "f32[2,3]", "s32[2,3]")
def raw_variadic_scatter(x, y, idx, u, v):
    return _raw("variadic_scatter", lambda x, y, *_: [x, y],
                _lower_variadic_scatter).bind(x, y, idx, u, v)


def _lower_scan(ctx, x, c):
    from jax.extend.mlir.dialects import chlo
    ir, hlo, mlir = _hlo()
    ty, cty = (mlir.aval_to_ir_type(ctx.module_context, a) for a in ctx.avals_out)
    op = chlo.ScanOp([ty], [cty], [x], [c], 1, is_reverse=True, is_associative=True)
    row = cty  # the body sees one slice along `dimension`, shaped like the carry
    blk = op.regions[0].blocks.append(row, row)
    with ir.InsertionPoint(blk):
        a, b = blk.arguments
        t = hlo.add(a, b)
        hlo.return_([t, t])
    return list(op.results)


@case("f32[2,5]", "f32[2]")
def raw_scan(x, c):
    """chlo.scan has no StableHLO decomposition, so XLA keeps it as its scan op."""
    return _raw("scan", lambda a, b: [a, b], _lower_scan).bind(x, c)


def _lower_async_collectives(ctx, x):
    ir, hlo, mlir = _hlo()
    ty = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    groups = ir.DenseIntElementsAttr.get(np.array([[0]], np.int64))
    scalar = ir.RankedTensorType.get([], ir.F32Type.get())

    def with_sum(op):
        blk = op.regions[0].blocks.append(scalar, scalar)
        with ir.InsertionPoint(blk):
            hlo.return_([hlo.add(*blk.arguments)])
        return op.results[0]

    builders = [
        lambda a: hlo.AllGatherOp([ty], [a], 0, groups).results[0],
        lambda a: hlo.CollectivePermuteOp(
            a, ir.DenseIntElementsAttr.get(np.array([[0, 0]], np.int64)), results=[ty]).result,
        lambda a: with_sum(hlo.AllReduceOp([ty], [a], groups)),
        lambda a: hlo.AllToAllOp([a], 0, 0, 1, groups, results=[ty]).results[0],
        lambda a: with_sum(hlo.ReduceScatterOp(ty, a, 0, groups)),
    ]
    acc = x
    for build in builders:
        start = hlo.AsyncStartOp(ir.Type.parse(f"!stablehlo.future<{ty}>"), [x])
        blk = start.body.blocks.append(ty)
        with ir.InsertionPoint(blk):
            hlo.return_([build(blk.arguments[0])])
        acc = hlo.add(acc, hlo.AsyncDoneOp(start.result, results=[ty]).result)
    return [acc]


@case("f32[5]")
def raw_async_collectives(x):
    """StableHLO async_start/async_done around collectives become XLA's *-start/*-done ops
    (all-to-all and reduce-scatter print as sugared async-start/async-done)."""
    return _raw("async_collectives", lambda a: [a], _lower_async_collectives).bind(x)[0]


def _lower_collective_broadcast(ctx, x):
    ir, hlo, mlir = _hlo()
    groups = ir.DenseIntElementsAttr.get(np.array([[0]], np.int64))
    ty = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return [hlo.CollectiveBroadcastOp(x, groups, results=[ty]).result]


@case("f32[3]")
def raw_collective_broadcast(x):
    return _raw("collective_broadcast", lambda a: [a], _lower_collective_broadcast).bind(x)[0]


# --------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------

@_driver
def _lower(c: Case):
    fn = jax.jit(c.fn, **c.jit_kwargs)
    args = c.make_args()
    if c.platform:
        return fn.trace(*args).lower(lowering_platforms=(c.platform,))
    return fn.lower(*args)


def _verbose_options():
    from jaxlib import _hlo
    opts = _hlo.HloPrintOptions()  # XLA's defaults: % names, metadata, stack frames
    opts.print_operand_shape = True
    return opts


@_driver
def generate_case(c: Case) -> dict[str, str]:
    """Return {suffix: text} for one case; raises if JAX cannot lower it."""
    with jax.enable_x64(True) if c.x64 else contextlib.nullcontext():
        lowered = _lower(c)
        comp = lowered.compiler_ir("hlo")
        out = {
            ".hlo": comp.as_hlo_text(print_large_constants=True),
            ".verbose.hlo": comp.get_hlo_module().to_string(_verbose_options()),
        }
        if c.opt:
            try:
                out[".opt.hlo"] = lowered.compile().as_text()
            except Exception as e:  # XLA:CPU lacks a few ops; keep the rest
                out["opt-error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    return out


@_driver
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--verbose-errors", action="store_true")
    args = ap.parse_args(argv)

    only = {s for s in args.only.split(",") if s}
    unknown = only - {c.name for c in CASES}
    if unknown:
        ap.error(f"unknown cases: {sorted(unknown)}")
    cases = [c for c in CASES if not only or c.name in only]

    args.out.mkdir(parents=True, exist_ok=True)
    if not only:  # a full run owns the directory: drop files of renamed/removed cases
        for p in args.out.glob("*.hlo"):
            p.unlink()

    files: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    for c in cases:
        try:
            texts = generate_case(c)
        except Exception as e:  # any lowering failure is just a skip
            reason = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
            skipped[c.name] = reason
            print(f"SKIP {c.name}: {reason}", file=sys.stderr)
            if args.verbose_errors:
                traceback.print_exc()
            continue
        if "opt-error" in texts:
            skipped[c.name + ".opt.hlo"] = texts.pop("opt-error")
            print(f"SKIP {c.name}.opt.hlo: {skipped[c.name + '.opt.hlo']}", file=sys.stderr)
        for suffix, text in texts.items():
            fname = c.name + suffix
            (args.out / fname).write_text(text)
            files[fname] = {
                "case": c.name,
                "function": c.fn.__name__,
                "form": {".hlo": "short", ".verbose.hlo": "verbose", ".opt.hlo": "opt"}[suffix],
                "platform": c.platform or "cpu",
                "opcodes": opcodes_of(text),
            }

    covered = sorted({op for f in files.values() for op in f["opcodes"]})
    manifest = {
        "generator": "tools/gen_hlo_corpus.py",
        "jax_version": jax.__version__,
        "jaxlib_version": _jaxlib_version(),
        "xla_flags": os.environ["XLA_FLAGS"],
        "opcode_count": len(covered),
        "opcodes": covered,
        "missing_opcodes": [op for op in ALL_OPCODES if op not in covered],
        "unreachable_reasons": {op: UNREACHABLE[op] for op in ALL_OPCODES
                                if op not in covered and op in UNREACHABLE},
        "skipped": skipped,
        "files": dict(sorted(files.items())),
    }
    (args.out / "MANIFEST.json").write_text(_manifest_json(manifest))

    size = sum((args.out / f).stat().st_size for f in files)
    n_ok = len({f["case"] for f in files.values()})
    print(f"{len(files)} files from {n_ok}/{len(cases)} cases, "
          f"{size / 1e6:.2f} MB in {args.out}")
    unknown_ops = [op for op in covered if op not in ALL_OPCODES]
    print(f"{len(covered)} distinct opcodes: {' '.join(covered)}")
    if unknown_ops:
        print(f"opcodes not in ALL_OPCODES (update the list): {' '.join(unknown_ops)}")
    for op in manifest["missing_opcodes"]:
        print(f"missing {op}: {UNREACHABLE.get(op, 'not reached by any case')}")
    return 0


def _manifest_json(manifest: dict) -> str:
    """One line per file entry, so that regenerating shows up as a readable diff."""
    parts = []
    for key, value in manifest.items():
        if isinstance(value, dict) and value:
            rows = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items())
            parts.append(f" {json.dumps(key)}: {{\n{rows}\n }}")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value)}")
    text = "{\n" + ",\n".join(parts) + "\n}\n"
    assert json.loads(text) == manifest
    return text


def _jaxlib_version() -> str:
    import jaxlib
    return getattr(jaxlib, "__version__", "?")


if __name__ == "__main__":
    with ThreadPoolExecutor(1) as pool:
        sys.exit(pool.submit(main).result())
