"""Scalar code for every elementwise op, with the interpreter's exact semantics.

Values follow ``llvm_types``. The code is branch-free (selects, intrinsics)
so that loops around it vectorize. Integer ops spell out XLA's rules where C
and LLVM leave them undefined: ``x / 0`` is -1 (signed) or all ones
(unsigned), ``INT_MIN / -1`` is ``INT_MIN`` and its remainder 0, ``x % 0`` is
``x``, a shift by a negative amount or by the bit width or more gives 0 (or the
sign for an arithmetic right shift). Float maximum/minimum propagate NaN and
order -0 below +0 (``llvm.maximum``/``llvm.minimum``); float -> int conversion
truncates and saturates with NaN -> 0 (``llvm.fptosi.sat``).

f16 and bf16 compute in f32 and round once (exact for one +, -, *, /, sqrt);
bf16 is rounded to nearest even by bit arithmetic. Sub-byte integers, the
8-bit float types and complex numbers are not native yet (``NotEmittable``).

Transcendental functions use ``math_approx`` where it has a vectorizable
approximation and libm (through LLVM intrinsics or calls) otherwise: libm's
results are within 1 ULP of numpy's (usually identical).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir

from ...hlo.instruction import HloInstruction
from ...hlo.opcode import HloOpcode
from ...types import PrimitiveType
from .llvm_types import F32, I1, I8, I16, I32, NotEmittable, llvm_type

Op = HloOpcode
P = PrimitiveType
_FLOATS = (P.F16, P.BF16, P.F32, P.F64)
_TRUE = ir.Constant(I1, 1)


def _check(et: PrimitiveType) -> None:
    if et in _FLOATS or et is P.PRED:
        return
    if et.is_integral and et.bit_width >= 8:
        return
    raise NotEmittable(f"{et.hlo_name} values are not native yet")


def is_native_type(et: PrimitiveType) -> bool:
    """Whether elementwise ops on ``et`` have native code (others fall back)."""
    try:
        _check(et)
    except NotEmittable:
        return False
    return True


def _module(b: ir.IRBuilder) -> ir.Module:
    return b.block.function.module


def _mangle(ty: ir.Type) -> str:
    if isinstance(ty, ir.IntType):
        return f"i{ty.width}"
    return {"half": "f16", "float": "f32", "double": "f64"}[str(ty)]


def _intrinsic(
    b: ir.IRBuilder, name: str, types: Sequence[ir.Type], args: Sequence[ir.Value]
) -> ir.Value:
    """Call LLVM intrinsic ``name`` overloaded on ``types`` (the first is the result type).

    Declared by hand: llvmlite's ``declare_intrinsic`` guesses one-argument
    signatures for intrinsics it does not know (``llvm.maximum``, ``llvm.ctlz``).
    """
    module = _module(b)
    mangled = name + "".join("." + _mangle(t) for t in types)
    fn = module.globals.get(mangled)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(types[0], [a.type for a in args]), mangled)
    return b.call(fn, list(args))


def _libm(b: ir.IRBuilder, name: str, args: Sequence[ir.Value]) -> ir.Value:
    """A call of libm's ``name`` (f suffix for float)."""
    ty = args[0].type
    symbol = name + ("f" if ty == F32 else "")
    module = _module(b)
    fn = module.globals.get(symbol)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ty, [ty] * len(args)), symbol)
        fn.attributes.add("nounwind")
    return b.call(fn, list(args))


# -- float storage <-> compute -----------------------------------------------------------


def _to_compute(b: ir.IRBuilder, value: ir.Value, et: PrimitiveType) -> ir.Value:
    if et is P.F16:
        return b.fpext(value, F32)
    if et is P.BF16:
        return b.bitcast(b.shl(b.zext(value, I32), I32(16)), F32)
    return value


def _bf16_from_f32(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    bits = b.bitcast(value, I32)
    lsb = b.and_(b.lshr(bits, I32(16)), I32(1))
    rounded = b.lshr(b.add(bits, b.add(I32(0x7FFF), lsb)), I32(16))
    quiet = b.or_(b.lshr(bits, I32(16)), I32(0x40))
    is_nan = b.fcmp_unordered("uno", value, value)
    return b.trunc(b.select(is_nan, quiet, rounded), I16)


def _from_compute(b: ir.IRBuilder, value: ir.Value, et: PrimitiveType) -> ir.Value:
    if et is P.F16:
        return b.fptrunc(value, llvm_type(P.F16))
    if et is P.BF16:
        return _bf16_from_f32(b, value)
    return value


def _float_op(fn: Callable[..., ir.Value]) -> Callable[..., ir.Value]:
    """Lift an op on compute values to one on storage values of ``et``."""

    def run(b: ir.IRBuilder, et: PrimitiveType, *args: ir.Value) -> ir.Value:
        return _from_compute(b, fn(b, *(_to_compute(b, a, et) for a in args)), et)

    return run


# -- float ops ---------------------------------------------------------------------------


def _approx_or(name: str, fallback: Callable[..., ir.Value]) -> Callable[..., ir.Value]:
    def run(b: ir.IRBuilder, *args: ir.Value) -> ir.Value:
        try:
            from .math_approx import APPROXIMATIONS
        except ImportError:
            APPROXIMATIONS = {}  # noqa: N806
        approx = APPROXIMATIONS.get(name)
        return approx(b, *args) if approx is not None else fallback(b, *args)

    return run


def _one(x: ir.Value) -> ir.Constant:
    return ir.Constant(x.type, 1.0)


def _sign(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    one = _intrinsic(b, "llvm.copysign", [x.type], [_one(x), x])
    keep = b.or_(b.fcmp_unordered("uno", x, x), b.fcmp_ordered("oeq", x, ir.Constant(x.type, 0.0)))
    return b.select(keep, x, one)


def _round_afz(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _intrinsic(b, "llvm.round", [x.type], [x])


def _logistic(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    # 1 / (1 + exp(-x)): exp overflows to inf for very negative x, giving 0 as it should.
    e = _approx_or("exponential", lambda b, v: _intrinsic(b, "llvm.exp", [v.type], [v]))(
        b, b.fneg(x)
    )
    return b.fdiv(_one(x), b.fadd(_one(x), e))


_FLOAT_UNARY: dict[HloOpcode, Callable[[ir.IRBuilder, ir.Value], ir.Value]] = {
    Op.NEGATE: lambda b, x: b.fneg(x),
    Op.ABS: lambda b, x: _intrinsic(b, "llvm.fabs", [x.type], [x]),
    Op.SIGN: _sign,
    Op.FLOOR: lambda b, x: _intrinsic(b, "llvm.floor", [x.type], [x]),
    Op.CEIL: lambda b, x: _intrinsic(b, "llvm.ceil", [x.type], [x]),
    Op.ROUND_NEAREST_EVEN: lambda b, x: _intrinsic(b, "llvm.roundeven", [x.type], [x]),
    Op.ROUND_NEAREST_AFZ: _round_afz,
    Op.SQRT: lambda b, x: _intrinsic(b, "llvm.sqrt", [x.type], [x]),
    Op.RSQRT: lambda b, x: b.fdiv(_one(x), _intrinsic(b, "llvm.sqrt", [x.type], [x])),
    Op.CBRT: lambda b, x: _libm(b, "cbrt", [x]),
    Op.EXPONENTIAL: _approx_or(
        "exponential", lambda b, x: _intrinsic(b, "llvm.exp", [x.type], [x])
    ),
    Op.LOG: _approx_or("log", lambda b, x: _intrinsic(b, "llvm.log", [x.type], [x])),
    Op.EXPONENTIAL_MINUS_ONE: _approx_or(
        "exponential-minus-one", lambda b, x: _libm(b, "expm1", [x])
    ),
    Op.LOG_PLUS_ONE: _approx_or("log-plus-one", lambda b, x: _libm(b, "log1p", [x])),
    Op.TANH: _approx_or("tanh", lambda b, x: _libm(b, "tanh", [x])),
    Op.LOGISTIC: _approx_or("logistic", _logistic),
    Op.SINE: _approx_or("sine", lambda b, x: _intrinsic(b, "llvm.sin", [x.type], [x])),
    Op.COSINE: _approx_or("cosine", lambda b, x: _intrinsic(b, "llvm.cos", [x.type], [x])),
    Op.TAN: _approx_or("tan", lambda b, x: _libm(b, "tan", [x])),
    Op.ATAN: lambda b, x: _libm(b, "atan", [x]),
    Op.ERF: _approx_or("erf", lambda b, x: _libm(b, "erf", [x])),
}

_FLOAT_BINARY: dict[HloOpcode, Callable[[ir.IRBuilder, ir.Value, ir.Value], ir.Value]] = {
    Op.ADD: lambda b, x, y: b.fadd(x, y),
    Op.SUBTRACT: lambda b, x, y: b.fsub(x, y),
    Op.MULTIPLY: lambda b, x, y: b.fmul(x, y),
    Op.DIVIDE: lambda b, x, y: b.fdiv(x, y),
    Op.REMAINDER: lambda b, x, y: b.frem(x, y),
    Op.MAXIMUM: lambda b, x, y: _intrinsic(b, "llvm.maximum", [x.type], [x, y]),
    Op.MINIMUM: lambda b, x, y: _intrinsic(b, "llvm.minimum", [x.type], [x, y]),
    Op.POWER: lambda b, x, y: _intrinsic(b, "llvm.pow", [x.type], [x, y]),
    Op.ATAN2: _approx_or("atan2", lambda b, x, y: _libm(b, "atan2", [x, y])),
}


# -- integer ops -------------------------------------------------------------------------


def _int_bounds(et: PrimitiveType) -> tuple[int, int]:
    w = et.bit_width
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if et.is_signed_integral else (0, (1 << w) - 1)


def _int_divide(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
    ty = x.type
    zero = ir.Constant(ty, 0)
    by_zero = b.icmp_unsigned("==", y, zero)
    if et.is_signed_integral:
        lo = ir.Constant(ty, _int_bounds(et)[0])
        overflow = b.and_(b.icmp_signed("==", x, lo), b.icmp_signed("==", y, ir.Constant(ty, -1)))
        safe = b.select(b.or_(by_zero, overflow), ir.Constant(ty, 1), y)
        quotient = b.sdiv(x, safe)
        return b.select(by_zero, ir.Constant(ty, -1), b.select(overflow, x, quotient))
    safe = b.select(by_zero, ir.Constant(ty, 1), y)
    return b.select(by_zero, ir.Constant(ty, -1), b.udiv(x, safe))


def _int_remainder(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
    ty = x.type
    zero = ir.Constant(ty, 0)
    by_zero = b.icmp_unsigned("==", y, zero)
    if et.is_signed_integral:
        lo = ir.Constant(ty, _int_bounds(et)[0])
        overflow = b.and_(b.icmp_signed("==", x, lo), b.icmp_signed("==", y, ir.Constant(ty, -1)))
        safe = b.select(b.or_(by_zero, overflow), ir.Constant(ty, 1), y)
        return b.select(by_zero, x, b.select(overflow, zero, b.srem(x, safe)))
    safe = b.select(by_zero, ir.Constant(ty, 1), y)
    return b.select(by_zero, x, b.urem(x, safe))


def _shift(kind: str) -> Callable[..., ir.Value]:
    def run(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
        ty = x.type
        width = ir.Constant(ty, et.bit_width)
        out = b.icmp_unsigned(">=", y, width)  # negative amounts are huge unsigned
        safe = b.select(out, ir.Constant(ty, 0), y)
        if kind == "shl":
            return b.select(out, ir.Constant(ty, 0), b.shl(x, safe))
        if kind == "lshr":
            return b.select(out, ir.Constant(ty, 0), b.lshr(x, safe))
        fill = b.ashr(x, ir.Constant(ty, et.bit_width - 1))
        return b.select(out, fill, b.ashr(x, safe))

    return run


def _int_minmax(signed_pred: str) -> Callable[..., ir.Value]:
    def run(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
        if et.is_signed_integral:
            return b.select(b.icmp_signed(signed_pred, x, y), x, y)
        return b.select(b.icmp_unsigned(signed_pred, x, y), x, y)

    return run


_INT_BINARY: dict[HloOpcode, Callable[..., ir.Value]] = {
    Op.ADD: lambda b, et, x, y: b.add(x, y),
    Op.SUBTRACT: lambda b, et, x, y: b.sub(x, y),
    Op.MULTIPLY: lambda b, et, x, y: b.mul(x, y),
    Op.DIVIDE: _int_divide,
    Op.REMAINDER: _int_remainder,
    Op.AND: lambda b, et, x, y: b.and_(x, y),
    Op.OR: lambda b, et, x, y: b.or_(x, y),
    Op.XOR: lambda b, et, x, y: b.xor(x, y),
    Op.MAXIMUM: _int_minmax(">"),
    Op.MINIMUM: _int_minmax("<"),
    Op.SHIFT_LEFT: _shift("shl"),
    Op.SHIFT_RIGHT_LOGICAL: _shift("lshr"),
    Op.SHIFT_RIGHT_ARITHMETIC: _shift("ashr"),
}


def _int_abs(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value) -> ir.Value:
    if not et.is_signed_integral:
        return x
    return b.select(b.icmp_signed("<", x, ir.Constant(x.type, 0)), b.neg(x), x)


def _int_sign(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value) -> ir.Value:
    zero, one = ir.Constant(x.type, 0), ir.Constant(x.type, 1)
    if not et.is_signed_integral:
        return b.select(b.icmp_unsigned("==", x, zero), zero, one)
    negative = b.select(b.icmp_signed("<", x, zero), ir.Constant(x.type, -1), one)
    return b.select(b.icmp_signed("==", x, zero), zero, negative)


def _popcnt(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value) -> ir.Value:
    return _intrinsic(b, "llvm.ctpop", [x.type], [x])


def _clz(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value) -> ir.Value:
    return _intrinsic(b, "llvm.ctlz", [x.type], [x, ir.Constant(I1, 0)])


_INT_UNARY: dict[HloOpcode, Callable[..., ir.Value]] = {
    Op.NEGATE: lambda b, et, x: b.neg(x),
    Op.NOT: lambda b, et, x: b.xor(x, ir.Constant(x.type, 1 if et is P.PRED else -1)),
    Op.ABS: _int_abs,
    Op.SIGN: _int_sign,
    Op.POPCNT: _popcnt,
    Op.COUNT_LEADING_ZEROS: _clz,
}


# -- compare and convert -----------------------------------------------------------------


_ICMP = {"EQ": "==", "NE": "!=", "LT": "<", "LE": "<=", "GT": ">", "GE": ">="}


def _total_order_key(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    width = 64 if x.type != F32 else 32
    ity = ir.IntType(width)
    bits = b.bitcast(x, ity)
    magnitude = ir.Constant(ity, (1 << (width - 1)) - 1)
    negative = b.icmp_signed("<", bits, ir.Constant(ity, 0))
    return b.select(negative, b.xor(bits, magnitude), bits)


def emit_compare(
    b: ir.IRBuilder,
    direction: str,
    lhs: ir.Value,
    rhs: ir.Value,
    element_type: PrimitiveType,
    comparison_type: str | None = None,
) -> ir.Value:
    """``lhs <direction> rhs`` as an i8 0/1."""
    _check(element_type)
    direction = str(getattr(direction, "value", direction)).upper()
    ctype = str(getattr(comparison_type, "value", comparison_type or "")).upper()
    if element_type.is_float:
        x, y = _to_compute(b, lhs, element_type), _to_compute(b, rhs, element_type)
        if ctype == "TOTALORDER":
            result = b.icmp_signed(_ICMP[direction], _total_order_key(b, x), _total_order_key(b, y))
        else:
            cmp = b.fcmp_unordered if direction == "NE" else b.fcmp_ordered
            result = cmp(_ICMP[direction], x, y)
    elif element_type.is_signed_integral:
        result = b.icmp_signed(_ICMP[direction], lhs, rhs)
    else:
        result = b.icmp_unsigned(_ICMP[direction], lhs, rhs)
    return b.zext(result, I8)


def emit_convert(
    b: ir.IRBuilder, value: ir.Value, from_type: PrimitiveType, to_type: PrimitiveType
) -> ir.Value:
    """``convert``: float -> int truncates and saturates (NaN -> 0), int -> int wraps."""
    _check(from_type)
    _check(to_type)
    if from_type == to_type:
        return value
    target = llvm_type(to_type)
    if to_type is P.PRED:
        if from_type.is_float:
            x = _to_compute(b, value, from_type)
            return b.zext(b.fcmp_unordered("!=", x, ir.Constant(x.type, 0.0)), I8)
        return b.zext(b.icmp_unsigned("!=", value, ir.Constant(value.type, 0)), I8)
    if from_type.is_float:
        x = _to_compute(b, value, from_type)
        if to_type.is_float:
            if to_type is P.BF16:
                if x.type != F32:
                    # Round once: f64 -> bf16 through f32 could round twice.
                    return _bf16_from_f64(b, x)
                return _bf16_from_f32(b, x)
            if to_type is P.F16:
                return _f16_from_f64(b, x) if from_type is P.F64 else b.fptrunc(x, target)
            return (
                b.fpext(x, target)
                if x.type != target and target == llvm_type(P.F64)
                else (b.fptrunc(x, target) if x.type != target else x)
            )
        name = "llvm.fptosi.sat" if to_type.is_signed_integral else "llvm.fptoui.sat"
        return _intrinsic(b, name, [target, x.type], [x])
    # from an integer or pred
    signed = from_type.is_signed_integral
    if to_type.is_float:
        compute = F32 if to_type in (P.F16, P.BF16) else target
        if to_type in (P.F16, P.BF16):
            # Round once: convert to f64 (exact for <= 32-bit ints) and narrow from there.
            wide = (
                b.sitofp(value, llvm_type(P.F64)) if signed else b.uitofp(value, llvm_type(P.F64))
            )
            if to_type is P.F16:
                return _f16_from_f64(b, wide)
            return _bf16_from_f64(b, wide)
        return b.sitofp(value, compute) if signed else b.uitofp(value, compute)
    if target.width == value.type.width:
        return value
    if target.width < value.type.width:
        return b.trunc(value, target)
    return b.sext(value, target) if signed else b.zext(value, target)


def _bf16_from_f64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """f64 -> bf16 rounded once: round to odd into f32 first, then to nearest even."""
    return _bf16_from_f32(b, _f32_round_to_odd(b, x))


def _f16_from_f64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """f64 -> f16 rounded once, without LLVM's ``fptrunc double to half`` (a libcall, which
    the JIT cannot resolve): round to odd into f32, then f32 -> f16 (an instruction)."""
    return b.fptrunc(_f32_round_to_odd(b, x), llvm_type(P.F16))


def _f32_round_to_odd(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """``x`` (f64) in f32, truncated with the last bit set if inexact: rounding that to a
    narrower type later gives the correctly rounded result."""
    f = b.fptrunc(x, F32)
    back = b.fpext(f, x.type)
    bits = b.bitcast(f, I32)
    inexact = b.fcmp_ordered("!=", back, x)
    fabs = x.type
    away = b.fcmp_ordered(
        ">",
        _intrinsic(b, "llvm.fabs", [fabs], [back]),
        _intrinsic(b, "llvm.fabs", [fabs], [x]),
    )
    toward_zero = b.select(b.and_(inexact, away), b.sub(bits, I32(1)), bits)
    odd = b.select(inexact, b.or_(toward_zero, I32(1)), toward_zero)
    return b.bitcast(odd, F32)


# -- entry points ------------------------------------------------------------------------


def emit_binary(
    b: ir.IRBuilder, opcode: HloOpcode, lhs: ir.Value, rhs: ir.Value, element_type: PrimitiveType
) -> ir.Value:
    """A binary arithmetic or logical op on one element type (reducers use this)."""
    _check(element_type)
    if element_type.is_float:
        fn = _FLOAT_BINARY.get(opcode)
        if fn is None:
            raise NotEmittable(f"{opcode.value} on {element_type.hlo_name}")
        return _float_op(fn)(b, element_type, lhs, rhs)
    fn = _INT_BINARY.get(opcode)
    if fn is None or (
        element_type is P.PRED and opcode not in (Op.AND, Op.OR, Op.XOR, Op.MAXIMUM, Op.MINIMUM)
    ):
        if element_type is P.PRED and opcode in (Op.ADD, Op.MULTIPLY):
            fn = _INT_BINARY[Op.OR if opcode is Op.ADD else Op.AND]
        else:
            raise NotEmittable(f"{opcode.value} on {element_type.hlo_name}")
    return fn(b, element_type, lhs, rhs)


def emit_elemental(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Sequence[ir.Value]
) -> ir.Value:
    """The scalar result of elementwise ``instruction`` from scalar operand values."""
    op = instruction.opcode
    out = instruction.shape.element_type
    types = [o.shape.element_type for o in instruction.operands]
    for t in types:
        _check(t)
    _check(out)
    rule = _SPECIAL.get(op)
    if rule is not None:
        return rule(b, instruction, operands, types, out)
    et = types[0] if types else out
    if len(operands) == 2:
        return emit_binary(b, op, operands[0], operands[1], et)
    if len(operands) == 1:
        if et.is_float:
            fn = _FLOAT_UNARY.get(op)
            if fn is None:
                raise NotEmittable(f"{op.value} on {et.hlo_name}")
            return _float_op(fn)(b, et, operands[0])
        fn = _INT_UNARY.get(op)
        if fn is None or (et is P.PRED and op not in (Op.NOT,)):
            raise NotEmittable(f"{op.value} on {et.hlo_name}")
        return fn(b, et, operands[0])
    raise NotEmittable(f"{op.value} with {len(operands)} operands")


def _select(b, instruction, operands, types, out):  # noqa: ANN001, ANN202
    pred, on_true, on_false = operands
    return b.select(b.icmp_unsigned("!=", pred, I8(0)), on_true, on_false)


def _clamp(b, instruction, operands, types, out):  # noqa: ANN001, ANN202
    lo, x, hi = operands
    return emit_binary(b, Op.MINIMUM, emit_binary(b, Op.MAXIMUM, x, lo, out), hi, out)


def _compare(b, instruction, operands, types, out):  # noqa: ANN001, ANN202
    return emit_compare(
        b,
        instruction.attribute("direction"),
        operands[0],
        operands[1],
        types[0],
        instruction.attribute("type"),
    )


def _convert(b, instruction, operands, types, out):  # noqa: ANN001, ANN202
    return emit_convert(b, operands[0], types[0], out)


def _is_finite(b, instruction, operands, types, out):  # noqa: ANN001, ANN202
    x = _to_compute(b, operands[0], types[0])
    magnitude = _intrinsic(b, "llvm.fabs", [x.type], [x])
    return b.zext(b.fcmp_ordered("<", magnitude, ir.Constant(x.type, float("inf"))), I8)


def _copy(b, instruction, operands, types, out):  # noqa: ANN001, ANN202
    return operands[0]


def _bitcast_convert(b, instruction, operands, types, out):  # noqa: ANN001, ANN202
    source, target = llvm_type(types[0]), llvm_type(out)
    if types[0].bit_width != out.bit_width:
        raise NotEmittable("bitcast-convert between widths")
    return b.bitcast(operands[0], target) if source != target else operands[0]


def _reduce_precision(b, instruction, operands, types, out):  # noqa: ANN001, ANN202
    """XLA's reduce-precision on the value's own bits (as the interpreter: round the
    mantissa to nearest even, then overflow to infinity and underflow to zero; NaN stays)."""
    et = types[0]
    if not et.is_float:
        raise NotEmittable(f"reduce-precision of {et.hlo_name}")
    exponent_bits = int(instruction.attribute("exponent_bits"))
    mantissa_bits = int(instruction.attribute("mantissa_bits"))
    src_exponent, src_mantissa = et.exponent_mantissa_bits
    width = et.bit_width
    ity = ir.IntType(width)
    x = operands[0]
    bits = x if isinstance(x.type, ir.IntType) else b.bitcast(x, ity)

    def c(value: int) -> ir.Constant:
        return ir.Constant(ity, value & ((1 << width) - 1))

    if mantissa_bits < src_mantissa:
        shift = src_mantissa - mantissa_bits
        last_kept = 1 << shift
        bias = b.and_(b.lshr(bits, c(shift)), c(1))
        bits = b.and_(b.add(b.add(bits, bias), c((last_kept >> 1) - 1)), c(~(last_kept - 1)))
    if exponent_bits < src_exponent:
        sign = c(1 << (width - 1))
        exponent_mask = c(((1 << src_exponent) - 1) << src_mantissa)
        src_bias = (1 << (src_exponent - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = b.and_(bits, exponent_mask)
        overflows = b.icmp_unsigned(">", exponent, c((src_bias + reduced_bias) << src_mantissa))
        underflows = b.icmp_unsigned("<=", exponent, c((src_bias - reduced_bias) << src_mantissa))
        signed_zero = b.and_(bits, sign)
        bits = b.select(
            overflows, b.or_(signed_zero, exponent_mask), b.select(underflows, signed_zero, bits)
        )
    result = bits if isinstance(x.type, ir.IntType) else b.bitcast(bits, x.type)
    wide = _to_compute(b, x, et)
    return b.select(b.fcmp_unordered("uno", wide, wide), x, result)


_SPECIAL = {
    Op.REDUCE_PRECISION: _reduce_precision,
    Op.SELECT: _select,
    Op.CLAMP: _clamp,
    Op.COMPARE: _compare,
    Op.CONVERT: _convert,
    Op.IS_FINITE: _is_finite,
    Op.COPY: _copy,
    Op.BITCAST_CONVERT: _bitcast_convert,
}

__all__ = ["emit_binary", "emit_compare", "emit_convert", "emit_elemental"]
