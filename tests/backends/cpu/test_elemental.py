"""``elemental``'s integer and pred ops, select and clamp, its public entry points and the
shape of the code it emits, against the interpreter bit for bit (see elemental_harness.py).

The float ops are in test_elemental_float.py, conversions in test_elemental_convert.py and
the transcendental functions in test_elemental_math.py.
"""

from __future__ import annotations

import pathlib
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from llvmlite import ir

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from elemental_harness import (  # noqa: E402
    INTS,
    REAL_TYPES,
    P,
    _add_loop,
    check,
    check_compare,
    compile_kernels,
    float_edges,
    ids,
    instruction,
    int_edges,
    interpreter,
    is_nan,
    kernel,
    native,
    pairs,
    prepare,
    random_ints,
    unsigned,
)

from xlapy.backends.cpu import elemental  # noqa: E402
from xlapy.backends.cpu.elemental import emit_binary, emit_compare, emit_convert, emit_elemental
from xlapy.backends.cpu.llvm_types import I64, NotEmittable, llvm_type  # noqa: E402
from xlapy.backends.cpu.runtime import jit  # noqa: E402
from xlapy.hlo import parse_module  # noqa: E402
from xlapy.opcode import HloOpcode as Op  # noqa: E402
from xlapy.testing.cpu_kernels import elementwise_kernel  # noqa: E402

INT_BINARY = [
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or",
    "xor", "shift-left", "shift-right-logical", "shift-right-arithmetic", "mulhi", "power",
]  # fmt: skip
PRED_BINARY = [
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or",
    "xor", "power",
]  # fmt: skip
INT_UNARY = ["negate", "not", "abs", "sign", "popcnt", "count-leading-zeros", "copy"]


def int_operands(et):
    """Every pair of edge values, then random pairs."""
    a, b = pairs(int_edges(et))
    return np.concatenate([a, random_ints(et, 600, 1)]), np.concatenate(
        [b, random_ints(et, 600, 2)]
    )


# -- integers and pred -------------------------------------------------------------------


@pytest.mark.parametrize("et", INTS, ids=ids)
def test_integer_binary_ops_match_the_interpreter_bit_for_bit(et):
    prepare((op, (et, et), et, "") for op in INT_BINARY)
    x, y = int_operands(et)
    for op in INT_BINARY:
        check(op, x, y)


@pytest.mark.parametrize("et", INTS, ids=ids)
def test_integer_unary_ops_match_the_interpreter_bit_for_bit(et):
    prepare((op, (et,), et, "") for op in INT_UNARY)
    x = np.concatenate([int_edges(et), random_ints(et, 300)])
    for op in INT_UNARY:
        check(op, x)


def test_pred_computes_as_a_nonzero_byte():
    prepare((op, (P.PRED, P.PRED), P.PRED, "") for op in PRED_BINARY)
    a, b = np.array([0, 0, 1, 1], bool), np.array([0, 1, 0, 1], bool)
    table = {
        "add": [0, 1, 1, 1], "multiply": [0, 0, 0, 1], "subtract": [0, 1, 1, 0],
        "divide": [1, 0, 1, 1], "remainder": [0, 0, 1, 0], "power": [1, 0, 1, 1],
    }  # fmt: skip
    for op in PRED_BINARY:
        got = check(op, a, b)
        if op in table:
            assert got.astype(int).tolist() == table[op], op
    assert check("not", a).tolist() == [True, True, False, False]
    assert check("copy", a).tolist() == [False, False, True, True]


def test_spelled_out_integer_edge_cases():
    s32 = lambda *v: np.array(v, np.int32)  # noqa: E731
    imin = -(2**31)
    quotient = check("divide", s32(7, -7, 5, imin, 0, imin), s32(2, 2, 0, -1, 0, 1))
    assert quotient.tolist() == [3, -3, -1, imin, -1, imin]
    assert check("remainder", s32(7, -7, 5, imin), s32(2, 2, 0, -1)).tolist() == [1, -1, 5, 0]
    u8 = np.array([7, 200, 1], np.uint8)
    assert check("divide", u8, np.array([0, 0, 3], np.uint8)).tolist() == [255, 255, 0]
    shifts = check("shift-left", s32(1, 1, 1, 1), s32(31, 32, -1, 33)).tolist()
    assert shifts == [imin, 0, 0, 0]
    assert check("shift-right-arithmetic", s32(-8, -8, 8), s32(1, 40, -3)).tolist() == [-4, -1, 0]
    assert check("shift-right-logical", s32(-1, -1), s32(28, 32)).tolist() == [15, 0]
    s4 = np.array([-8, -1, 7, -8], ml_dtypes.int4)
    assert check("divide", s4, np.array([-1, 0, 2, 2], ml_dtypes.int4)).tolist() == [-8, -1, 3, -4]
    assert check("popcnt", s4).tolist() == [5, -8, 3, 5]  # s4 counts its sign-extended byte
    assert check("count-leading-zeros", s4).tolist() == [0, 0, 1, 0]
    assert check("shift-right-logical", s4, np.array([1, 1, 1, 4], ml_dtypes.int4)).tolist() == [
        4, 7, 3, 0,
    ]  # fmt: skip
    u8 = np.array([255, 255, 3], np.uint8)  # 128 reads as a negative exponent
    assert check("power", u8, np.array([128, 129, 128], np.uint8)).tolist() == [1, 255, 0]
    x, y = s32(2, -1, -1, 1, 0, 3, 2, -2, 3), s32(-1, -3, -4, -5, -1, 0, 31, 3, 64)
    assert check("power", x, y).tolist() == [0, -1, 1, 1, 0, 1, imin, -8, 1]


def test_sub_byte_results_are_stored_as_ml_dtypes_stores_them():
    """ml_dtypes keeps an s4/s2 in the low bits of its byte with the bits above clear (-1
    is 0x0F); results are written that way, and operands are read by their low bits, so
    a sign-extended byte (0xFF) reads as -1 too."""
    s4 = np.array([-1, -8, 7], ml_dtypes.int4)
    assert unsigned(s4).tolist() == [0x0F, 0x08, 0x07]
    got = check("add", s4, np.array([0, 0, 0], ml_dtypes.int4))
    assert unsigned(got).tolist() == [0x0F, 0x08, 0x07]
    sign_extended = np.array([0xFF, 0xF8, 0x07], np.uint8).view(ml_dtypes.int4)
    add = native("add", (P.S4, P.S4), P.S4)
    assert unsigned(add(sign_extended, np.zeros(3, ml_dtypes.int4))).tolist() == [15, 8, 7]
    junk = np.array([0xF3, 0x1F], np.uint8).view(ml_dtypes.uint4)  # high bits ignored
    assert native("copy", (P.U4,), P.U4)(junk).tolist() == [3, 15]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([t for t in INTS if t.bit_width >= 8] + [P.S4, P.U2]),
    st.sampled_from(INT_BINARY),
    st.data(),
)
def test_random_integer_operands(et, op, data):
    lo, hi = int(ml_dtypes.iinfo(et.dtype).min), int(ml_dtypes.iinfo(et.dtype).max)
    values = st.lists(st.integers(lo, hi), min_size=1, max_size=70)
    x = np.array(data.draw(values), dtype=object).astype(et.dtype)
    y = data.draw(st.lists(st.integers(lo, hi), min_size=x.size, max_size=x.size))
    check(op, x, np.array(y, dtype=object).astype(et.dtype))


# -- compare, select, clamp --------------------------------------------------------------


@pytest.mark.parametrize("et", [P.PRED, *INTS], ids=ids)
def test_compare_integers_in_every_direction(et):
    x, y = int_operands(et)
    check_compare(et, None, x, y)
    check("compare", x, y, out=P.PRED, attrs=", direction=LT")  # through emit_elemental


@pytest.mark.parametrize("et", REAL_TYPES, ids=ids)
def test_select_and_clamp(et):
    values = float_edges(et) if et.is_float else int_edges(et)
    rng = np.random.default_rng(3)
    lo, x, hi = (values[rng.integers(0, values.size, 2000)] for _ in range(3))
    prepare([("select", (P.PRED, et, et), et, ""), ("clamp", (et, et, et), et, "")])
    check("select", rng.integers(0, 2, 2000).astype(bool), x, hi, out=et, bits=True)
    check("clamp", lo, x, hi)


# -- the public entry points -------------------------------------------------------------


REDUCER_OPS = [Op.ADD, Op.MULTIPLY, Op.MAXIMUM, Op.MINIMUM, Op.AND, Op.OR, Op.XOR]


@pytest.mark.parametrize("et", REAL_TYPES, ids=ids)
def test_emit_binary_is_the_binary_instruction(et):
    """Reducers call emit_binary directly; it computes what the instruction computes."""
    ops = [op for op in REDUCER_OPS if not (et.is_float and op in (Op.AND, Op.OR, Op.XOR))]
    entries = {
        ("emit_binary", op, et): (
            lambda b, v, op=op: emit_binary(b, op, v[0], v[1], et),
            (et, et),
            et,
        )
        for op in ops
    }
    compile_kernels(entries)
    values = float_edges(et) if et.is_float else int_edges(et)
    rng = np.random.default_rng(4)
    x, y = (values[rng.integers(0, values.size, 500)] for _ in range(2))
    for op in ops:
        got = kernel(("emit_binary", op, et))(x, y)
        want = interpreter(op.value, [x, y], et)
        if et.is_float:
            same = (unsigned(got) == unsigned(want)) | (is_nan(got) & is_nan(want))
        else:
            same = unsigned(got) == unsigned(want)
        assert same.all(), (op, et)


def test_emit_convert_and_emit_compare_through_the_test_bench():
    """The exported helpers, compiled by cpu_kernels.elementwise_kernel itself."""
    to_bf16 = elementwise_kernel(lambda b, v: emit_convert(b, v[0], P.S64, P.BF16), [P.S64], P.BF16)
    x = np.array([0, 1, -3, 2**24 + 1, 2**62 + 2**40, -(2**63)], np.int64)
    assert unsigned(to_bf16(x)).tolist() == unsigned(interpreter("convert", [x], P.BF16)).tolist()
    nan_ne = elementwise_kernel(
        lambda b, v: emit_compare(b, "NE", v[0], v[1], P.F32), [P.F32, P.F32], P.PRED
    )
    a = np.array([np.nan, 1.0, 0.0], np.float32)
    assert nan_ne(a, np.array([np.nan, 1.0, -0.0], np.float32)).tolist() == [True, False, False]
    total = elementwise_kernel(
        lambda b, v: emit_compare(b, "LT", v[0], v[1], P.F32, "TOTALORDER"), [P.F32] * 2, P.PRED
    )
    assert total(np.array([-0.0, -np.nan], np.float32), np.array([0.0, -np.inf], np.float32)).all()


def nothing_emitted(text):
    """Emit the root of ``text`` into a scratch function; the NotEmittable's message."""
    root = parse_module(text).entry.root
    module = jit.new_module("scratch")
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "f")
    b = ir.IRBuilder(fn.append_basic_block())
    values = []
    for o in root.operands:
        native_type = o.shape.is_array and elemental.is_native_type(o.shape.element_type)
        ty = llvm_type(o.shape.element_type) if native_type else I64
        values.append(ir.Constant(ty, 0))
    with pytest.raises(NotEmittable) as e:
        emit_elemental(b, root, values)
    return str(e.value)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("p = c64[2] parameter(0)\n  ROOT r = c64[2] remainder(p, p)", "remainder"),
        ("p = s32[2] parameter(0)\n  ROOT r = s32[2] map(p, p), to_apply=plus", "map"),
        (
            "p = pred[] parameter(0)\n  t = (s32[], s32[]) parameter(1)\n"
            "  ROOT r = (s32[], s32[]) select(p, t, t)",
            "tuple",
        ),
        ("p = f32[2] parameter(0)\n  ROOT r = u8[2,4] bitcast-convert(p)", "bitcast-convert"),
    ],
)
def test_what_is_not_emittable_says_what(text, says):
    plus = "plus {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT c = s32[] add(a, b)\n}\n"
    full = f"HloModule t\n{plus}ENTRY e {{\n  {text}\n}}"
    assert says in nothing_emitted(full)


def test_ops_on_the_wrong_kind_of_type_are_not_emittable():
    for op, et in ((Op.POPCNT, P.F32), (Op.FLOOR, P.S32), (Op.NOT, P.F16)):
        module = jit.new_module("scratch")
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "f")
        b = ir.IRBuilder(fn.append_basic_block())
        with pytest.raises(NotEmittable, match=op.value):
            elemental.emit_unary(b, op, ir.Constant(llvm_type(et), 0), et)
    zero = ir.Constant(llvm_type(P.C128), [0.0, 0.0])
    with pytest.raises(NotEmittable, match="remainder on c128"):
        emit_binary(b, Op.REMAINDER, zero, zero, P.C128)  # complex numbers have none


def test_is_native_type_is_every_array_type():
    assert all(elemental.is_native_type(t) for t in (*REAL_TYPES, P.C64, P.C128))


# -- the shape of the code: branch-free and vectorized -----------------------------------

VECTORIZED = [
    ("shift-right-arithmetic", (P.S64, P.S64), P.S64, ""),
    ("power", (P.S32, P.S32), P.S32, ""),
    ("popcnt", (P.U32,), P.U32, ""),
    ("count-leading-zeros", (P.S4,), P.S4, ""),
    ("maximum", (P.F32, P.F32), P.F32, ""),
    ("add", (P.BF16, P.BF16), P.BF16, ""),
    ("multiply", (P.F8E4M3FN, P.F8E4M3FN), P.F8E4M3FN, ""),
    ("round-nearest-afz", (P.F64,), P.F64, ""),
    ("convert", (P.F32,), P.S8, ""),
    ("convert", (P.F64,), P.F8E5M2, ""),
    ("convert", (P.S32,), P.BF16, ""),
    ("compare", (P.F16, P.F16), P.PRED, ", direction=LT, type=TOTALORDER"),
    ("clamp", (P.F32, P.F32, P.F32), P.F32, ""),
    ("reduce-precision", (P.F32,), P.F32, ", exponent_bits=5, mantissa_bits=10"),
    ("exponential", (P.F32,), P.F32, ""),
]


BRANCH_FREE = [
    *VECTORIZED,
    ("divide", (P.S32, P.S32), P.S32, ""),  # x86 has no vector division: stays scalar
    ("remainder", (P.U16, P.U16), P.U16, ""),
    ("stochastic-convert", (P.F32, P.U32), P.S8, ""),
    ("sine", (P.F16,), P.F16, ""),
]


def test_emitted_code_is_branch_free():
    """No new basic blocks (so the loop vectorizer sees one straight-line body)."""
    for spec in BRANCH_FREE:
        module = jit.new_module("scratch")
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "f")
        b = ir.IRBuilder(fn.append_basic_block())
        values = [ir.Constant(llvm_type(t), 0) for t in spec[1]]
        emit_elemental(b, instruction(spec), values)
        assert len(fn.blocks) == 1, spec


@pytest.mark.parametrize("spec", VECTORIZED, ids=lambda s: f"{s[0]}-{s[1][0].hlo_name}")
def test_loops_around_the_code_vectorize(spec):
    # For the AVX2 floor of this project's machines (x86-64-v3), whatever the host or
    # XLAPY_CPU_TARGET: an SSE-only target has no vector popcnt, 64-bit arithmetic shift
    # or f16 conversion, and rightly leaves some of these loops scalar. Compiled, not run.
    root = instruction(spec)
    module = jit.new_module("vectorize")
    _add_loop(module, "k", lambda b, v: emit_elemental(b, root, v), spec[1], spec[2])
    code = jit.compile_module(module, keep_ir=True, target=jit.resolve_target("x86-64-v3"))
    assert "<2 x" in code.optimized_ir or any(
        f"<{n} x" in code.optimized_ir for n in (4, 8, 16, 32, 64)
    ), spec
