"""fft on the CPU backend against the interpreter (numpy's pocketfft): the native
Stockham kernel (emit/linalg_fft) for power-of-two lengths, and FftExpander's Cooley-Tukey and
Bluestein (complex dots and products, built on the native kernel where it can) for the
rest; the four kinds, 1-3 dimensions, lengths that split, primes short and long, zero
sizes and layouts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.cpu.emit.linalg_fft import MAX_LENGTH, radices
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module
from xlapy.opcode import HloOpcode
from xlapy.passes.expand.linalg_fft import split

REAL = {"c64": "f32", "c128": "f64"}
# Relative to the largest output: each output sums n rounded products (and Bluestein's
# convolution adds two transforms of twice the length).
TOLERANCE = {"c64": 2e-5, "c128": 1e-13}


def _text(kind: str, t: str, batch: list[int], lengths: list[int], layout: bool) -> str:
    dims = [*batch, *lengths]
    if kind == "RFFT":
        in_t, in_dims = REAL[t], dims
        out_t, out_dims = t, [*dims[:-1], dims[-1] // 2 + 1]
    elif kind == "IRFFT":
        in_t, in_dims = t, [*dims[:-1], dims[-1] // 2 + 1]
        out_t, out_dims = REAL[t], dims
    else:
        in_t = out_t = t
        in_dims = out_dims = dims
    order = "{" + ",".join(map(str, range(len(in_dims)))) + "}" if layout else ""
    return f"""HloModule f
ENTRY e {{
  x = {in_t}[{",".join(map(str, in_dims))}]{order} parameter(0)
  ROOT y = {out_t}[{",".join(map(str, out_dims))}] fft(x), fft_type={kind}, fft_length={{{",".join(map(str, lengths))}}}
}}"""


def _run(kind: str, t: str, batch: list[int], lengths: list[int], seed: int, layout=False):
    text = _text(kind, t, batch, lengths, layout)
    module = parse_module(text)
    operand = module.entry.parameter(0).shape
    rng = np.random.default_rng(seed)
    x = rng.normal(size=operand.dimensions)
    if operand.element_type.is_complex:
        x = x + 1j * rng.normal(size=operand.dimensions)
    x = x.astype(operand.element_type.dtype)
    executable = xlapy.local_client("cpu").compile(module)
    assert executable.fallback_ops == []
    got, want = np.asarray(executable(x)), np.asarray(interpret(text, x))
    assert got.dtype == want.dtype and got.shape == want.shape
    scale = max(float(np.max(np.abs(want))), 1.0) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=TOLERANCE[t] * scale)
    return executable


def _native_ffts(executable) -> list[int]:
    """The lengths of the ffts left to the native kernel in the compiled module."""
    module = executable.hlo_module_after_optimizations
    return [
        int(n)
        for c in module.computations
        for i in c.instructions
        if i.opcode is HloOpcode.FFT
        for n in i.attribute("fft_length")
    ]


LENGTHS = st.sampled_from([1, 2, 3, 5, 8, 12, 16, 31, 33, 64, 96, 100, 128, 131, 256])


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["FFT", "IFFT", "RFFT", "IRFFT"]),
    st.sampled_from(["c64", "c128"]),
    st.lists(st.integers(0, 3), max_size=2),
    st.lists(LENGTHS, min_size=1, max_size=3),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_fft_matches_the_interpreter(kind, t, batch, lengths, layout, seed):
    if len(lengths) == 3:  # keep three-dimensional transforms small
        lengths = [min(n, 12) for n in lengths]
    _run(kind, t, batch, lengths, seed, layout)


@pytest.mark.parametrize("kind", ["FFT", "IFFT", "RFFT", "IRFFT"])
@pytest.mark.parametrize("n", [4096, 1009, 2 * 257])
def test_long_transforms_split_or_use_bluestein(kind, n):
    _run(kind, "c64", [2], [n], 0)


def test_zero_sizes_give_zero_sized_or_zero_results():
    _run("FFT", "c64", [0], [8], 0)
    _run("IFFT", "c128", [3], [0], 0)


def test_lengths_split_near_their_square_root():
    assert split(4096) == (64, 64)
    assert split(1000) == (25, 40)
    assert split(32) is None  # short: one direct DFT
    assert split(1009) is None  # prime


NATIVE = [1 << k for k in range(MAX_LENGTH.bit_length())] + [
    3,
    5,
    6,
    7,
    9,
    12,
    15,
    25,
    49,
    100,
    210,
    1000,
    3 * 1024,
]


@pytest.mark.parametrize("t", ["c64", "c128"])
@pytest.mark.parametrize("kind", ["FFT", "IFFT"])
@pytest.mark.parametrize("n", NATIVE)
def test_lengths_of_small_primes_run_in_the_native_kernel(t, kind, n):
    # 13 rows: a group of full lanes and a last group that repeats the last row
    assert radices(n) is not None
    executable = _run(kind, t, [13], [n], n)
    assert _native_ffts(executable) == [n]


def test_radices_take_fours_first_and_refuse_larger_primes():
    assert radices(1) == []
    assert radices(8) == [4, 2]
    assert radices(360) == [4, 2, 3, 3, 5]
    assert radices(11) is None
    assert radices(0) is None
    assert radices(2 * 13) is None


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["FFT", "IFFT"]),
    st.sampled_from(["c64", "c128"]),
    st.lists(st.integers(0, 9), max_size=3),
    st.sampled_from([4, 16, 32, 128, 512]),
    st.integers(0, 2**32 - 1),
)
def test_native_kernel_over_batch_shapes(kind, t, batch, n, seed):
    _run(kind, t, batch, [n], seed)


@pytest.mark.parametrize("t", ["c64", "c128"])
@pytest.mark.parametrize("kind", ["FFT", "IFFT"])
@pytest.mark.parametrize(
    ("batch", "n"), [([3], 8192), ([], 65536), ([2], 3 * 4096), ([5], 1 << 16)]
)
def test_long_lengths_run_as_two_native_passes(t, kind, batch, n):
    executable = _run(kind, t, batch, [n], 3)
    assert _native_ffts(executable) == [n]


@pytest.mark.parametrize("t", ["c64", "c128"])
@pytest.mark.parametrize("kind", ["FFT", "IFFT"])
@pytest.mark.parametrize(
    "lengths",
    # columns in whole vectors (8 or 16 of them), and not (5, 6, 3: lane by lane)
    [[3, 8], [16, 5], [7, 6, 5], [64, 64], [2, 3, 4], [5, 16, 16]],
)
def test_several_dimensions_run_in_the_native_kernel(t, kind, lengths):
    executable = _run(kind, t, [3], lengths, 2)
    assert _native_ffts(executable) == lengths


@pytest.mark.parametrize(
    ("kind", "lengths", "native"),
    [
        ("FFT", [64, 32], [32, 64]),  # one native transform over both axes
        ("RFFT", [8, 256], [256, 8]),
        ("IRFFT", [16, 64], [16, 64]),
        ("IFFT", [8192 * 11], [8192]),  # not 7-smooth: 11 x its longest native factor
        ("FFT", [20000], [125, 160]),  # no native split for c64: the expander's four steps
        ("FFT", [131], [512, 512]),  # Bluestein's transforms
        ("IFFT", [131], [512, 512]),
        ("FFT", [96], [96]),
        ("FFT", [11 * 64], [64]),  # 64 x 11: a native transform and a direct DFT
    ],
)
def test_other_forms_are_built_on_the_native_kernel(kind, lengths, native):
    executable = _run(kind, "c64", [3], lengths, 1)
    assert sorted(_native_ffts(executable)) == sorted(native)
