"""Complex acos, asin, atan, their hyperbolic forms, cosh and sinh, natively.

XLA:CPU has no formulas for these; the interpreter computes them with numpy (glibc's
casin, cacosh, catanh...). Here they follow Kahan's formulas ("Branch cuts for complex
elementary functions", 1987), which are accurate everywhere (no cancellation near 0
or 1) and put the branch cuts where C99 does, the sign of a zero imaginary part
choosing the side, provided 1 - z is computed part by part ((1 - x) - yi keeps -0):

    asin z  = atan2(x, Re(sqrt(1-z) sqrt(1+z))) + i asinh(Im(conj(sqrt(1-z)) sqrt(1+z)))
    acos z  = 2 atan2(Re sqrt(1-z), Re sqrt(1+z)) + i asinh(Im(conj(sqrt(1+z)) sqrt(1-z)))
    acosh z = asinh(Re(conj(sqrt(z-1)) sqrt(z+1))) + 2i atan2(Im sqrt(z-1), Re sqrt(z+1))
    atanh z = log1p(4x / ((1-x)^2 + y^2)) / 4 + i atan2(2y, (1-x)(1+x) - y^2) / 2
    asinh z = -i asin(iz),  atan z = -i atanh(iz)
    cosh z  = cosh x cos y + i sinh x sin y,  sinh z = sinh x cos y + i cosh x sin y

Where a part is infinite or NaN the result is glibc's special value (C99's Annex G,
the interpreter's through numpy): a table of numpy's results for every pair of part
classes (+-0, +-finite, +-inf, +-NaN), built when the module compiles, indexed by the
operand's classes at run time (``_with_specials``); a class pair whose result depends
on the finite part's value (cosh(inf + iy)) is left to the formula. Finite results
agree with numpy's to a few ULPs of the result's magnitude, computed in c128 for c64
as the interpreter does (tests/backends/cpu/test_native_complex.py).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from llvmlite import ir

from ....opcode import HloOpcode
from ..llvm_types import F64
from .complex import Parts, Real, absolute, compose, parts, sqrt

Op = HloOpcode


def _sqrt(b: ir.IRBuilder, re: ir.Value, im: ir.Value) -> Parts:
    """C99's csqrt: XLA's, but with the imaginary part signed as ``im`` (-0 included),
    which puts the branch cuts of the formulas on the right side."""
    root_re, root_im = parts(b, sqrt(b, compose(b, re, im)))
    r = Real(b, re.type)
    return root_re, r.where(r.isnan(im), root_im, r.copysign(r.abs(root_im), im))


def _asin_parts(r: Real, x: ir.Value, y: ir.Value) -> Parts:
    b = r.b
    s1m = _sqrt(b, r.sub(r.c(1.0), x), r.neg(y))
    s1p = _sqrt(b, r.add(r.c(1.0), x), y)
    real_product = r.sub(r.mul(s1m[0], s1p[0]), r.mul(s1m[1], s1p[1]))
    imag_product = r.sub(r.mul(s1m[0], s1p[1]), r.mul(s1m[1], s1p[0]))
    return r.fn(Op.ATAN2, x, real_product), r.fn(Op.ASINH, imag_product)


def _atanh_parts(r: Real, x: ir.Value, y: ir.Value) -> Parts:
    """atanh on parts, through atanh(z) = -atanh(-z) on the half plane x >= 0, so that
    the only pole near which it cancels is +1."""
    sign = r.copysign(1.0, x)
    re, im = _atanh_right(r, r.mul(sign, x), r.mul(sign, y))
    return r.mul(sign, re), r.mul(sign, im)


def _atanh_right(r: Real, x: ir.Value, y: ir.Value) -> Parts:
    one_minus = r.sub(r.c(1.0), x)
    denominator = r.add(r.mul(one_minus, one_minus), r.mul(y, y))
    re = r.mul(r.c(0.25), r.fn(Op.LOG_PLUS_ONE, r.div(r.mul(r.c(4.0), x), denominator)))
    # Next to +-1 the denominator underflows: there (log|1 + z| - log|1 - z|) / 2, which
    # does not cancel since one of the two is far from 0.
    near_pole = r.cmp("<", denominator, 1e-200)
    apart = r.sub(
        r.fn(Op.LOG, _hypot(r, r.add(r.c(1.0), x), y)), r.fn(Op.LOG, _hypot(r, one_minus, y))
    )
    re = r.where(near_pole, r.mul(r.c(0.5), apart), re)
    across = r.sub(r.mul(one_minus, r.add(r.c(1.0), x)), r.mul(y, y))
    im = r.mul(r.c(0.5), r.fn(Op.ATAN2, r.add(y, y), across))
    return re, im


def _hypot(r: Real, a: ir.Value, b: ir.Value) -> ir.Value:
    return absolute(r.b, compose(r.b, a, b))


def _acos_parts(r: Real, x: ir.Value, y: ir.Value) -> Parts:
    s1m = _sqrt(r.b, r.sub(r.c(1.0), x), r.neg(y))
    s1p = _sqrt(r.b, r.add(r.c(1.0), x), y)
    re = r.mul(r.c(2.0), r.fn(Op.ATAN2, s1m[0], s1p[0]))
    return re, r.fn(Op.ASINH, r.sub(r.mul(s1p[0], s1m[1]), r.mul(s1p[1], s1m[0])))


def _acosh_parts(r: Real, x: ir.Value, y: ir.Value) -> Parts:
    sm = _sqrt(r.b, r.sub(x, r.c(1.0)), y)
    sp = _sqrt(r.b, r.add(x, r.c(1.0)), y)
    re = r.fn(Op.ASINH, r.add(r.mul(sm[0], sp[0]), r.mul(sm[1], sp[1])))
    return re, r.mul(r.c(2.0), r.fn(Op.ATAN2, sm[1], sp[0]))


def _cosh_parts(r: Real, x: ir.Value, y: ir.Value, of_cosh: bool = True) -> Parts:
    ch, sh = r.fn(Op.COSH, x), r.fn(Op.SINH, x)
    c, s = r.fn(Op.COSINE, y), r.fn(Op.SINE, y)
    if of_cosh:
        re, im = r.mul(ch, c), r.mul(sh, s)
        along = r.mul(y, r.copysign(1.0, x))  # y = +-0: sinh(x) * +-0, signed, never NaN
    else:
        re, im = r.mul(sh, c), r.mul(ch, s)
        along = y
    return re, r.where(r.cmp("==", y, 0.0), along, im)


def _sinh_parts(r: Real, x: ir.Value, y: ir.Value) -> Parts:
    return _cosh_parts(r, x, y, of_cosh=False)


# -- C99's special values (Annex G), as glibc gives them ---------------------------------

# Each part's class: +0, -0, positive, negative, +inf, -inf, NaN, -NaN (glibc signs some
# infinities by a NaN's sign bit); and a finite member of each (two for the nonzero finite
# classes, to see whether a result depends on it).
_CLASS_VALUES = (
    (0.0,), (-0.0,), (2.0, 0.7), (-2.0, -0.7), (math.inf,), (-math.inf,), (math.nan,),
    (-math.nan,),
)  # fmt: skip
_CLASSES = len(_CLASS_VALUES)


@functools.cache
def _special_table(name: str) -> tuple[list[float], list[float], list[int]]:
    """numpy's results (glibc's, the interpreter's) for every pair of part classes with an
    infinite or NaN part, where they do not depend on the finite part's value; a 0 in
    the third list leaves that pair to the formula."""
    function = getattr(np, name)
    res, ims, use = [], [], []
    for cx, xs in enumerate(_CLASS_VALUES):
        for cy, ys in enumerate(_CLASS_VALUES):
            with np.errstate(all="ignore"):
                pairs = np.array([complex(x, y) for x in xs for y in ys])
                pairs.real = [x for x in xs for _ in ys]  # keeps a NaN's sign bit
                pairs.imag = [y for _ in xs for y in ys]
                values = [complex(v) for v in function(pairs)]
            same = len({repr(v) for v in values}) == 1  # NaNs compare by their repr
            res.append(values[0].real)
            ims.append(values[0].imag)
            use.append(int((cx >= 4 or cy >= 4) and same))
    return res, ims, use


def _class(r: Real, v: ir.Value) -> ir.Value:
    b = r.b
    i = ir.IntType(32)
    sign = b.icmp_signed("<", b.bitcast(v, ir.IntType(64)), ir.Constant(ir.IntType(64), 0))
    finite = b.select(
        r.cmp("==", v, 0.0),
        b.select(sign, i(1), i(0)),
        b.select(sign, i(3), i(2)),
    )
    infinite = b.select(sign, i(5), i(4))
    nan = b.select(sign, i(7), i(6))
    return b.select(r.isnan(v), nan, b.select(r.is_inf(v), infinite, finite))


def _table(module: ir.Module, name: str, ty: ir.Type, values: list) -> ir.GlobalVariable:
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    array = ir.ArrayType(ty, len(values))
    table = ir.GlobalVariable(module, array, name)
    table.initializer = ir.Constant(array, values)
    table.global_constant = True
    table.linkage = "internal"
    return table


def _with_specials(
    r: Real, name: str, x: ir.Value, y: ir.Value, re: ir.Value, im: ir.Value
) -> Parts:
    """(re, im), or glibc's special value where a part is infinite or NaN (``_special_table``)."""
    b = r.b
    res, ims, use = _special_table(name)
    module = b.block.function.module
    index = b.add(b.mul(_class(r, x), ir.IntType(32)(_CLASSES)), _class(r, y))
    zero = ir.IntType(32)(0)

    def load(table: ir.GlobalVariable) -> ir.Value:
        return b.load(b.gep(table, [zero, index]))

    taken = load(_table(module, f"xlapy_c99_{name}_use", ir.IntType(8), use))
    flag = b.icmp_unsigned("!=", taken, ir.IntType(8)(0))
    special_re = load(_table(module, f"xlapy_c99_{name}_re", F64, res))
    special_im = load(_table(module, f"xlapy_c99_{name}_im", F64, ims))
    return r.where(flag, special_re, re), r.where(flag, special_im, im)


Function = Callable[[ir.IRBuilder, ir.Value], ir.Value]
PartsFunction = Callable[[Real, ir.Value, ir.Value], Parts]


def _function(parts_of: PartsFunction, numpy_name: str, of_iz: bool = False) -> Function:
    """The complex function whose parts ``parts_of`` computes (of iz, rotated back by -i,
    with ``of_iz``: asinh z = -i asin(iz), atan z = -i atanh(iz)), with glibc's special
    values (those of numpy's ``numpy_name``)."""

    def run(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
        x, y = parts(b, z)
        r = Real(b, x.type)
        if of_iz:
            re_iz, im_iz = parts_of(r, r.neg(y), x)
            re, im = im_iz, r.neg(re_iz)
        else:
            re, im = parts_of(r, x, y)
        return compose(b, *_with_specials(r, numpy_name, x, y, re, im))

    return run


def _in_c128(fn: Function) -> Function:
    """``fn`` computed on c128 and rounded once (the interpreter computes these in c128)."""

    def run(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
        if z.type.element == F64:
            return fn(b, z)
        return b.fptrunc(fn(b, b.fpext(z, ir.VectorType(F64, 2))), z.type)

    return run


INVERSE: dict[HloOpcode, Function] = {
    Op.ASIN: _in_c128(_function(_asin_parts, "arcsin")),
    Op.ASINH: _in_c128(_function(_asin_parts, "arcsinh", of_iz=True)),
    Op.ACOS: _in_c128(_function(_acos_parts, "arccos")),
    Op.ACOSH: _in_c128(_function(_acosh_parts, "arccosh")),
    Op.ATANH: _in_c128(_function(_atanh_parts, "arctanh")),
    Op.ATAN: _in_c128(_function(_atanh_parts, "arctan", of_iz=True)),
    Op.COSH: _in_c128(_function(_cosh_parts, "cosh")),
    Op.SINH: _in_c128(_function(_sinh_parts, "sinh")),
}
