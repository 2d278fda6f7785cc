"""rng-bit-generator bit-exact with XLA; rng and rng-get-and-update-state deterministic per device state."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions, run
from xlapy.evaluator import DeviceContext, EvalContext, evaluate
from xlapy.evaluator.kernels import random as rng_kernels
from xlapy.hlo import parse_module

U32 = np.uint32


@pytest.fixture
def xla():
    jax = pytest.importorskip("jax", reason="jax runs the real XLA, the second oracle")
    from xlapy.testing import xla_oracle

    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)  # u64 states must reach XLA as u64
    yield xla_oracle.run_hlo_text
    jax.config.update("jax_enable_x64", previous)


def bit_generator_text(algorithm, state_size, out):
    return f"""HloModule m
ENTRY e {{
  s = u64[{state_size}] parameter(0)
  ROOT r = (u64[{state_size}], {out}) rng-bit-generator(s), algorithm={algorithm}
}}"""


# -- the block ciphers against Random123's known-answer vectors ---------------------------------


@pytest.mark.parametrize(
    "key, counter, expected",
    [
        ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
        ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
        ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
    ],
)
def test_threefry2x32_20_known_answers(key, counter, expected):
    out = rng_kernels.threefry2x32(key, *(np.array([c], U32) for c in counter))
    assert tuple(int(x[0]) for x in out) == expected


@pytest.mark.parametrize(
    "key, counter, expected",
    [
        ((0, 0), (0, 0, 0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 4, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        (
            (0xA4093822, 0x299F31D0),
            (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
            (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
        ),
    ],
)
def test_philox4x32_10_known_answers(key, counter, expected):
    out = rng_kernels.philox4x32(key, [np.array([c], U32) for c in counter])
    assert tuple(int(x[0]) for x in out) == expected


# -- rng-bit-generator: answers recorded from XLA:CPU, and the live oracle --------------------


@pytest.mark.parametrize(
    "algorithm, state, out, new_state, bits",
    [
        (
            "rng_three_fry",
            [1, 2],
            "u32[5]",
            [1, 5],
            [43444564, 2150618427, 3979645651, 3745730563, 1672743891],
        ),
        (
            "rng_three_fry",
            [1, 2],
            "u64[3]",
            [1, 5],
            [9236835810183407956, 16087790271692313299, 18212823393184779219],
        ),
        ("rng_three_fry", [1, 2], "u8[3]", [1, 4], [84, 59, 211]),
        (
            "rng_philox",
            [1, 2],
            "u32[5]",
            [1, 4],
            [2100602697, 2847456232, 2074354647, 800269529, 1828267006],
        ),
        (
            "rng_philox",
            [1, 2, 3],
            "u64[3]",
            [1, 4, 3],
            [5869932932755744586, 13107052260063114245, 8234580641674714347],
        ),
        (
            "rng_default",
            [1, 2],
            "u32[5]",
            [1, 4],
            [2100602697, 2847456232, 2074354647, 800269529, 1828267006],
        ),
        ("rng_philox", [1, 2, 3], "u4[3]", [1, 3, 3], [10, 6, 5]),
    ],
)
def test_rng_bit_generator_recorded_xla_answers(algorithm, state, out, new_state, bits):
    got_state, got_bits = run(
        bit_generator_text(algorithm, len(state), out), np.array(state, np.uint64)
    )
    np.testing.assert_array_equal(got_state, np.array(new_state, np.uint64))
    np.testing.assert_array_equal(got_bits.astype(np.uint64), np.array(bits, np.uint64))


def test_rng_bit_generator_signed_results_are_the_same_bits():
    state = np.array([7, 9], np.uint64)
    _, unsigned = run(bit_generator_text("rng_philox", 2, "u16[6]"), state)
    _, signed = run(bit_generator_text("rng_philox", 2, "s16[6]"), state)
    assert signed.dtype == np.int16
    np.testing.assert_array_equal(signed.view(np.uint16), unsigned)
    _, s4 = run(bit_generator_text("rng_philox", 2, "s4[6]"), state)
    assert s4.dtype == ml_dtypes.int4
    np.testing.assert_array_equal(s4.astype(np.int64) & 0xF, unsigned.astype(np.int64) & 0xF)


STATES = {
    2: [[0, 0], [1, 2], [2**64 - 1, 2**64 - 3], [0x123456789ABCDEF0, 0xFEDCBA9876543210]],
    3: [[1, 2, 3], [5, 2**64 - 2, 7], [2**64 - 1, 2**64 - 1, 2**64 - 1]],
}
OUTPUTS = ["u32[3,5,7]", "u64[7,3]", "s8[5]", "u16[2,1,3]", "s32[]", "s64[0,3]", "u32[1,1,3]"]


def _check_against_xla(xla, algorithm, state, out):
    text = bit_generator_text(algorithm, len(state), out)
    arg = np.array(state, np.uint64)
    expected_state, expected_bits = xla(text, [arg])
    got_state, got_bits = run(text, arg)
    np.testing.assert_array_equal(got_state, expected_state)
    assert got_bits.shape == expected_bits.shape
    width = got_bits.dtype.itemsize
    unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[width]
    np.testing.assert_array_equal(got_bits.view(unsigned), expected_bits.view(unsigned))


@pytest.mark.parametrize(
    "algorithm, state_size",
    [
        ("rng_three_fry", 2),
        ("rng_philox", 2),
        ("rng_philox", 3),
        ("rng_default", 2),
        ("rng_default", 3),
    ],
)
def test_rng_bit_generator_bit_exact_with_xla(xla, algorithm, state_size):
    for i, state in enumerate(STATES[state_size]):
        for out in OUTPUTS[i % 2 :: 2] if state_size == 2 else OUTPUTS[i % 3 :: 3]:
            _check_against_xla(xla, algorithm, state, out)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    algorithm=st.sampled_from(["rng_three_fry", "rng_philox"]),
    words=st.lists(st.integers(0, 2**64 - 1), min_size=3, max_size=3),
    three_words=st.booleans(),
    t=st.sampled_from(["u8", "s16", "u32", "s32", "u64", "s64"]),
    dims=st.lists(st.integers(0, 7), min_size=0, max_size=3),
)
def test_rng_bit_generator_drawn_states_and_shapes(xla, algorithm, words, three_words, t, dims):
    size = 3 if three_words and algorithm == "rng_philox" else 2
    _check_against_xla(xla, algorithm, words[:size], f"{t}[{','.join(map(str, dims))}]")


# -- rng and rng-get-and-update-state ------------------------------------------------------


def executable(text, seed=0x5EED):
    return InterpreterBackend().compile(parse_module(text), InterpreterOptions(rng_seed=seed))


def rng_text(t, dims, distribution):
    return f"""HloModule m
ENTRY e {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT r = {t}[{",".join(map(str, dims))}] rng(a, b), distribution={distribution}
}}"""


def scalar(value, dtype):
    import xlapy

    return xlapy.Literal.from_value(np.array(value, dtype))


def test_rng_is_determined_by_the_device_state():
    text = rng_text("f32", [64], "rng_uniform")
    args = [scalar(0, np.float32), scalar(1, np.float32)]
    first = executable(text)
    a1, a2 = (first.execute(args).to_numpy() for _ in range(2))
    b1 = executable(text).execute(args).to_numpy()
    c1 = executable(text, seed=99).execute(args).to_numpy()
    np.testing.assert_array_equal(a1, b1)  # same seed, same numbers
    assert not np.array_equal(a1, a2)  # the state advanced between runs
    assert not np.array_equal(a1, c1)


@pytest.mark.parametrize(
    "t, low, high",
    [
        ("f32", 2.0, 5.0),
        ("f64", -1.0, 1.0),
        ("f16", 0.0, 1.0),
        ("bf16", -4.0, 4.0),
        ("s32", -5, 5),
        ("u8", 10, 20),
        ("s64", -(2**40), 2**40),
        ("u64", 0, 2**63 + 5),
    ],
)
def test_rng_uniform_stays_in_range_and_is_spread(t, low, high):
    from xlapy.types import PrimitiveType

    dtype = PrimitiveType.from_hlo_name(t).dtype
    x = run(
        rng_text(t, [4000], "rng_uniform"),
        np.array(low).astype(dtype),
        np.array(high).astype(dtype),
    )
    assert x.dtype == dtype
    values = x.astype(np.float64)
    assert values.min() >= low and values.max() < high
    mean = (low + high - (1 if t[0] in "su" else 0)) / 2  # integers: the mean of low..high-1
    assert abs(values.mean() - mean) < 0.05 * (high - low)
    assert values.std() > 0.25 * (high - low)


def test_rng_uniform_never_rounds_up_to_the_upper_bound():
    """XLA's a + u*(b-a) can round to b; the op promises [a, b)."""
    low, high = np.float32(1e8), np.float32(1e8 + 8)  # one ulp apart
    x = run(rng_text("f32", [256], "rng_uniform"), low, high)
    assert (x == low).all()


def test_rng_uniform_pred_and_zero_sized():
    assert not run(rng_text("pred", [5], "rng_uniform"), np.bool_(False), np.bool_(True)).any()
    empty = run(rng_text("s32", [0, 3], "rng_uniform"), np.int32(0), np.int32(9))
    assert empty.shape == (0, 3)


@pytest.mark.parametrize(
    "t, dims", [("f32", [100, 101]), ("f64", [9999]), ("f16", [50, 40]), ("bf16", [3, 7, 97])]
)
def test_rng_normal_moments(t, dims):
    from xlapy.types import PrimitiveType

    dtype = PrimitiveType.from_hlo_name(t).dtype
    x = run(rng_text(t, dims, "rng_normal"), np.array(3).astype(dtype), np.array(2).astype(dtype))
    assert x.dtype == dtype and x.shape == tuple(dims)
    values = x.astype(np.float64)
    assert abs(values.mean() - 3) < 0.1
    assert abs(values.std() - 2) < 0.1
    assert np.isfinite(values).all()


def test_rng_normal_scalar():
    x = run(rng_text("f32", [], "rng_normal"), np.float32(0), np.float32(1))
    assert x.shape == () and np.isfinite(x)


def test_rng_get_and_update_state_returns_the_old_state_and_advances():
    text = """HloModule m
ENTRY e {
  ROOT s = u64[2] rng-get-and-update-state(), delta=5
}"""
    exe = executable(text, seed=2**64 - 3)
    first, second, third = (exe.execute([]).to_numpy() for _ in range(3))
    np.testing.assert_array_equal(first, np.array([2**64 - 3, 0], np.uint64))
    np.testing.assert_array_equal(second, np.array([2, 1], np.uint64))  # carried into the high word
    np.testing.assert_array_equal(third, np.array([7, 1], np.uint64))


def test_rng_advances_the_state_by_its_32_bit_draws():
    """As XLA's expander: the state moves by elements times 32-bit words per element."""
    device = DeviceContext(rng_state=[100])
    module = parse_module(rng_text("f64", [3, 4], "rng_uniform"))
    evaluate(module.entry, [np.float64(0), np.float64(1)], EvalContext(device))
    assert device.rng_state == [100 + 24]
