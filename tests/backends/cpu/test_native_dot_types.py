"""Dots of narrow, mixed and integer types on the CPU backend (DotTypeWidener: the dot
in the accumulation type between converts), against the interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module

PAIRS = [
    ("f16", "f16", "f16"), ("bf16", "bf16", "bf16"), ("bf16", "bf16", "f32"),
    ("f16", "f16", "f32"), ("f32", "f32", "f64"), ("f8e4m3fn", "f8e5m2", "f32"),
    ("f8e4m3fn", "f8e4m3fn", "bf16"), ("s8", "s8", "s32"), ("u8", "s8", "s32"),
    ("s32", "s32", "s64"), ("s16", "s16", "f32"), ("f32", "f32", "s32"), ("s8", "s8", "s8"),
]  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(PAIRS),
    st.integers(0, 5), st.integers(0, 6), st.integers(0, 5), st.integers(0, 2),
    st.integers(0, 2**32 - 1),
)  # fmt: skip
def test_widened_dots_match_the_interpreter(types, m, k, n, batch, seed):
    lt, rt, ot = types
    lead = f"{batch}," if batch else ""
    batch_dims = ", lhs_batch_dims={0}, rhs_batch_dims={0}" if batch else ""
    c = 2 if batch else 1
    text = f"""HloModule d
ENTRY e {{
  a = {lt}[{lead}{m},{k}] parameter(0)
  b = {rt}[{lead}{k},{n}] parameter(1)
  ROOT d = {ot}[{lead}{m},{n}] dot(a, b), lhs_contracting_dims={{{c}}}, rhs_contracting_dims={{{c - 1}}}{batch_dims}
}}"""
    rng = np.random.default_rng(seed)
    shape_a = (batch, m, k) if batch else (m, k)
    shape_b = (batch, k, n) if batch else (k, n)
    dtype = lambda t: xlapy.PrimitiveType.from_hlo_name(t).dtype  # noqa: E731
    a = rng.integers(-4, 5, shape_a).astype(dtype(lt))
    b = rng.integers(-4, 5, shape_b).astype(dtype(rt))
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    # Small integers: every sum is exact in every type, so the results agree exactly.
    np.testing.assert_array_equal(executable(a, b), interpret(text, a, b))


@settings(max_examples=20, deadline=None)
@given(
    st.sampled_from(["f16", "bf16"]), st.integers(1, 5), st.integers(0, 4), st.booleans(),
    st.booleans(), st.booleans(), st.integers(0, 2**32 - 1),
)  # fmt: skip
def test_narrow_triangular_solve_and_cholesky_run_in_f32(t, n, k, left, lower, unit, seed):
    b_dims = f"{n},{k}" if left else f"{k},{n}"
    attributes = f"left_side={str(left).lower()}, lower={str(lower).lower()}, " \
        f"unit_diagonal={str(unit).lower()}, transpose_a=NO_TRANSPOSE"  # fmt: skip
    text = f"""HloModule s
ENTRY e {{
  a = {t}[{n},{n}] parameter(0)
  b = {t}[{b_dims}] parameter(1)
  x = {t}[{b_dims}] triangular-solve(a, b), {attributes}
  c = {t}[{n},{n}] cholesky(a), lower={str(lower).lower()}
  ROOT r = ({t}[{b_dims}], {t}[{n},{n}]) tuple(x, c)
}}"""
    rng = np.random.default_rng(seed)
    dtype = xlapy.PrimitiveType.from_hlo_name(t).dtype
    spd = rng.integers(-2, 3, (n, n)).astype(np.float32)
    a = (spd @ spd.T + 4 * n * np.eye(n, dtype=np.float32)).astype(dtype)
    b = rng.integers(-4, 5, (n, k) if left else (k, n)).astype(dtype)
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    tolerance = {"f16": 2e-3, "bf16": 1.6e-2}[t]
    for got, want in zip(executable(a, b), interpret(text, a, b), strict=True):
        np.testing.assert_allclose(
            np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=tolerance, atol=tolerance
        )


def _int_dot(lt: str, rt: str, ot: str, m: int, k: int, n: int, batch: int = 0) -> str:
    lead = f"{batch}," if batch else ""
    batch_dims = ", lhs_batch_dims={0}, rhs_batch_dims={0}" if batch else ""
    c = 2 if batch else 1
    return f"""HloModule i
ENTRY e {{
  a = {lt}[{lead}{m},{k}] parameter(0)
  b = {rt}[{lead}{k},{n}] parameter(1)
  ROOT d = {ot}[{lead}{m},{n}] dot(a, b), lhs_contracting_dims={{{c}}}, rhs_contracting_dims={{{c - 1}}}{batch_dims}
}}"""


def _optimized_dot_type(text: str) -> str:
    from xlapy.backends.cpu.pipeline import cpu_pipeline  # noqa: PLC0415
    from xlapy.backends.cpu.runtime.executable import CpuOptions  # noqa: PLC0415

    # For x86-64-v4, AVX-512 without VNNI: s8 x s8 -> s32 takes the float GEMM there
    # (test_int8_gemm: with VNNI it keeps its types for the int8 GEMM).
    module = parse_module(text)
    cpu_pipeline(CpuOptions(target_cpu="x86-64-v4")).run(module)
    dots = [i for c in module.computations for i in c.instructions if i.opcode.value == "dot"]
    return dots[0].operands[0].shape.element_type.hlo_name


@pytest.mark.parametrize(
    ("lt", "rt", "ot", "k", "wide"),
    [("s8", "s8", "s32", 1024, "f32"), ("s8", "s8", "s32", 1025, "f64"),
     ("u8", "s8", "s32", 300, "f32"), ("u8", "u8", "u32", 2000, "f64"),
     ("s16", "s16", "s64", 700, "f64"), ("s8", "s8", "s8", 64, "f32"),
     ("s4", "u4", "s32", 77, "f32")],
)  # fmt: skip
def test_integer_dots_run_exactly_as_float_gemms(lt, rt, ot, k, wide):
    # The extreme values of each type, so that the sums reach k * max|a| * max|b| (the
    # bound that picks f32 or f64) and wrap where the result type is narrow.
    text = _int_dot(lt, rt, ot, 33, k, 29, batch=2)
    assert _optimized_dot_type(text) == wide
    dtype = lambda t: xlapy.PrimitiveType.from_hlo_name(t).dtype  # noqa: E731
    rng = np.random.default_rng(k)

    def operand(t: str, shape: tuple[int, ...]) -> np.ndarray:
        info = np.iinfo(np.int8 if t == "s4" else np.uint8 if t == "u4" else dtype(t))
        low, high = (-8, 7) if t == "s4" else (0, 15) if t == "u4" else (info.min, info.max)
        values = rng.choice([low, high, low + 1, 0, 1], shape)
        return values.astype(dtype(t))

    a, b = operand(lt, (2, 33, k)), operand(rt, (2, k, 29))
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    np.testing.assert_array_equal(executable(a, b), interpret(text, a, b))


def test_an_integer_dot_whose_sums_could_pass_2_to_the_53_keeps_the_integer_loop():
    # s16 x s16 products reach 2^30; past k = 2^23 not even f64 holds every sum.
    assert _optimized_dot_type(_int_dot("s16", "s16", "s64", 1, 1 << 23, 1)) == "f64"
    assert _optimized_dot_type(_int_dot("s16", "s16", "s64", 1, (1 << 23) + 1, 1)) == "s64"
    assert _optimized_dot_type(_int_dot("s32", "s32", "s32", 4, 4, 4)) == "s32"


def test_the_integer_bound_counts_every_contracting_dimension():
    # k = 32 * 33 = 1056 > 1024: s8 sums may pass 2^24, so f64 (and exact).
    text = """HloModule i
ENTRY e {
  a = s8[3,32,33] parameter(0)
  b = s8[32,33,5] parameter(1)
  ROOT d = s32[3,5] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}
}"""
    assert _optimized_dot_type(text) == "f64"
    a = np.full((3, 32, 33), -128, np.int8)
    b = np.full((32, 33, 5), -128, np.int8)
    b[0, 0, 0] = 127
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    np.testing.assert_array_equal(executable(a, b), interpret(text, a, b))
