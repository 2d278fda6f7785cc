"""RngUniform, RngNormal and RngBitGenerator as builder ops (xlapy.ops.random).

Shapes (including XLA's rule that the bits are unsigned of the requested
width), printed attributes, the text round trip, the StableHLO spec's worked
examples run on the real XLA (rng-bit-generator's three-fry example matches
bit for bit), value ranges of the stateful generators, and invalid calls that
fail at build() by default and at the call in die-immediately mode, naming
the op, the shapes and the file:line of the call.
"""

import re
from collections.abc import Callable

import numpy as np
import pytest

import xlapy
from xlapy.builder import XlaBuilder, XlaComputation, XlaOp
from xlapy.errors import InvalidArgumentError
from xlapy.ops import movement as M
from xlapy.ops import random as R
from xlapy.testing.builders import built, params, run, shape_is
from xlapy.xla_data import RandomAlgorithm

S = xlapy.Shape.parse


def check_invalid(shapes: tuple[str, ...], call: Callable[..., XlaOp], *fragments: str) -> None:
    """``call(b, *parameters)`` fails at build() and, in die-immediately mode, at the call;
    ``call`` is a one-line lambda, whose line the message must point at."""
    where = f"[at {__file__}:{call.__code__.co_firstlineno}]"
    b = XlaBuilder("invalid")
    result = call(b, *params(b, *shapes))
    assert isinstance(result, XlaOp) and result.instruction is None
    with pytest.raises(InvalidArgumentError) as deferred:
        b.build()
    b = XlaBuilder("invalid_now")
    b.set_die_immediately_on_error(True)
    args = params(b, *shapes)
    with pytest.raises(InvalidArgumentError) as immediate:
        call(b, *args)
    for info in (deferred, immediate):
        message = str(info.value)
        for fragment in (*fragments, where):
            assert fragment in message, f"{fragment!r} not in {message!r}"


# -- rng-bit-generator ------------------------------------------------------------------------


def test_rng_bit_generator_stablehlo_example_matches_xla_bit_for_bit():
    b = XlaBuilder("three_fry")
    (state,) = params(b, "u64[2]")
    result = R.RngBitGenerator(RandomAlgorithm.RNG_THREE_FRY, state, S("u64[2,2]"))
    shape_is(result, "(u64[2], u64[2,2])")
    text = built(b, result).to_hlo_text()
    assert "rng-bit-generator(p0), algorithm=rng_three_fry" in text
    new_state, bits = run(built_again(text), np.array([1, 2], np.uint64))
    np.testing.assert_array_equal(new_state, np.array([1, 6], np.uint64))
    expected = [[9236835810183407956, 16087790271692313299],
                [18212823393184779219, 2658481902456610144]]  # fmt: skip
    np.testing.assert_array_equal(bits, np.array(expected, np.uint64))


def built_again(text: str) -> XlaComputation:
    return XlaComputation.from_hlo_text(text)


@pytest.mark.parametrize(
    "algorithm, state, requested, bits",
    [
        ("three_fry", "u64[2]", "f32[3,4]", "u32[3,4]"),  # XLA asks for unsigned bits
        ("rng_philox", "u64[3]", "s64[5]", "u64[5]"),
        ("PHILOX", "u64[2]", "bf16[2,2]", "u16[2,2]"),
        (RandomAlgorithm.RNG_DEFAULT, "u32[4]", "u8[7]", "u8[7]"),
        (0, "u64[2]", "pred[3]", "u8[3]"),
        (2, "u64[3]", "c64[2]", "u64[2]"),
    ],
)
def test_rng_bit_generator_shapes(algorithm, state, requested, bits):
    b = XlaBuilder("rbg")
    (s,) = params(b, state)
    result = R.RngBitGenerator(algorithm, s, S(requested))
    shape_is(result, f"({state}, {bits})")
    built(b, result)


def test_rng_bit_generator_advances_its_state_on_xla():
    b = XlaBuilder("advance")
    (state,) = params(b, "u64[3]")
    first = R.RngBitGenerator("philox", state, S("u32[4,4]"))
    again = R.RngBitGenerator("philox", M.GetTupleElement(first, 0), S("u32[4,4]"))
    c = built(b, first, again)
    s0 = np.array([7, 8, 9], np.uint64)
    state1, bits1, state2, bits2 = run(c, s0)
    assert bits1.dtype == np.uint32 and bits1.shape == (4, 4)
    assert not np.array_equal(state1, s0) and not np.array_equal(state2, state1)
    assert not np.array_equal(bits1, bits2)
    # A pure function of the state: the same state gives the same bits.
    again1, again_bits, *_ = run(c, s0)
    np.testing.assert_array_equal(again_bits, bits1)
    np.testing.assert_array_equal(again1, state1)


def test_rng_bit_generator_invalid_calls():
    check_invalid(("s64[2]",), lambda b, s: R.RngBitGenerator("three_fry", s, S("u32[4]")), "RngBitGenerator", "vector of unsigned integers", "s64[2]")  # fmt: skip
    check_invalid(("u64[3]",), lambda b, s: R.RngBitGenerator("three_fry", s, S("u32[4]")), "RngBitGenerator", "rng_three_fry needs a u64 state of 2 elements", "u64[3]")  # fmt: skip
    check_invalid(("u64[2]",), lambda b, s: R.RngBitGenerator("mersenne", s, S("u32[4]")), "RngBitGenerator", "unknown algorithm 'mersenne'", "u64[2]")  # fmt: skip
    check_invalid(("u64[2]",), lambda b, s: R.RngBitGenerator(1, s, S("(u32[4], u32[2])")), "RngBitGenerator", "the bits must be an array", "u64[2]")  # fmt: skip
    check_invalid(("u64[2]",), lambda b, s: R.RngBitGenerator(1, s, S("c128[2]")), "RngBitGenerator", "no unsigned integer type has the width of c128", "u64[2]")  # fmt: skip


# -- rng (uniform and normal) -----------------------------------------------------------------


def test_rng_uniform_stablehlo_example_and_value_ranges():
    b = XlaBuilder("uniform")
    # StableHLO: a = 0, b = 2, s32[3,3]: values in [0, 2).
    ints = R.RngUniform(M.ConstantR0(b, 0), 2, S("s32[3,3]"))
    shape_is(ints, "s32[3,3]")
    assert "distribution=rng_uniform" in ints.instruction.to_text()
    floats = R.RngUniform(M.ConstantR0(b, 2.0, xlapy.F32), 3.0, S("f32[1000]"))
    wide = R.RngUniform(M.ConstantR0(b, -1.0, xlapy.F64), 1.0, S("f64[10,10]"))
    i, f, w = run(built(b, ints, floats, wide))
    assert i.dtype == np.int32 and i.shape == (3, 3) and ((i >= 0) & (i < 2)).all()
    assert f.dtype == np.float32 and ((f >= 2.0) & (f < 3.0)).all() and f.std() > 0.1
    assert w.dtype == np.float64 and ((w >= -1) & (w < 1)).all()


def test_rng_normal_has_roughly_the_asked_moments():
    b = XlaBuilder("normal")
    (mu,) = params(b, "f32[]")
    x = R.RngNormal(mu, M.ConstantR0(b, 2.0, xlapy.F32), S("f32[4000]"))
    shape_is(x, "f32[4000]")
    assert "distribution=rng_normal" in x.instruction.to_text()
    (values,) = run(built(b, x), np.float32(5.0))
    assert abs(values.mean() - 5.0) < 0.2 and abs(values.std() - 2.0) < 0.2


def test_rng_invalid_calls():
    check_invalid(("f32[]", "s32[]"), lambda b, a, c: R.RngUniform(a, c, S("f32[3]")), "RngUniform", "same element type", "f32[], s32[]")  # fmt: skip
    check_invalid(("f32[2]", "f32[]"), lambda b, a, c: R.RngUniform(a, c, S("f32[3]")), "RngUniform", "must be scalars", "f32[2]")  # fmt: skip
    check_invalid(("s32[]", "s32[]"), lambda b, a, c: R.RngNormal(a, c, S("s32[3]")), "RngNormal", "needs floating-point parameters, got s32", "s32[]")  # fmt: skip
    check_invalid(("f32[]", "f32[]"), lambda b, a, c: R.RngUniform(a, c, S("s32[3]")), "RngUniform", "parameters' type f32, got s32[3]", "f32[]")  # fmt: skip
    check_invalid(("f32[]", "f32[]"), lambda b, a, c: R.RngNormal(a, c, S("(f32[3])")), "RngNormal", "must be an array", "f32[]")  # fmt: skip


def test_xla_prints_the_rng_ops_as_we_print_them():
    pytest.importorskip("jax", reason="jaxlib holds XLA's HLO parser and printer")
    from jax._src.lib import xla_client

    b = XlaBuilder("rng")
    state, lo = params(b, "u64[2]", "f32[]")
    results = [
        R.RngBitGenerator("philox", state, S("f32[3]")),
        R.RngBitGenerator(RandomAlgorithm.RNG_DEFAULT, state, S("u8[2,2]")),
        R.RngUniform(lo, 1.0, S("f32[3]")),
        R.RngNormal(lo, 1.0, S("f32[2,2]")),
    ]
    text = built(b, *results).to_hlo_text()
    printed_by_xla = xla_client.hlo.hlo_module_from_text(text).to_string()

    def lines(t: str) -> set[str]:
        found = (re.sub(r"/\*index=\d+\*/", "", x.replace("%", "")).strip() for x in t.splitlines())
        return {x.removeprefix("ROOT ") for x in found if " = " in x and "HloModule" not in x}

    assert lines(printed_by_xla) == lines(text)
