"""Bugs the CPU backend had, each as the smallest program that showed it.

Every test runs on the CPU backend and checks against the interpreter
(``dual_run``), the way the differential tests found most of them.
"""

from __future__ import annotations

import numpy as np

from xlapy.testing.dual_run import dual_run


def test_arena_regions_are_sized_by_their_high_water_mark():
    # The region size was the heap's top *after* the last free (0 here), so the
    # iota wrote past the arena and corrupted the heap: crashes much later.
    text = """HloModule t
cmp { a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT }
ENTRY e {
  k = s32[3,40] parameter(0)
  i = s32[3,40] iota(), iota_dimension=1
  ROOT r = (s32[3,40], s32[3,40]) sort(k, i), dimensions={1}, is_stable=true, to_apply=cmp
}"""
    keys = np.random.default_rng(4).integers(0, 5, (3, 40)).astype(np.int32)
    for _ in range(3):
        dual_run(text, keys)


def test_two_operand_intrinsics_are_declared_with_both_operands():
    # llvmlite's declare_intrinsic guessed one-argument signatures for llvm.maximum and
    # llvm.ctlz; LLVM then crashed while parsing the module.
    text = """HloModule t
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  n = s32[4] parameter(2)
  m = f32[4] maximum(x, y)
  c = s32[4] count-leading-zeros(n)
  ROOT r = (f32[4], s32[4]) tuple(m, c)
}"""
    dual_run(
        text,
        np.array([1, -0.0, np.nan, 3], np.float32),
        np.array([0, 0.0, 1, np.inf], np.float32),
        np.array([0, 1, -1, 255], np.int32),
    )


def test_integers_convert_to_f16_without_a_libcall():
    # fptrunc double -> half became a call of __truncdfhf2, which the JIT cannot resolve:
    # the call jumped to address 0.
    text = """HloModule t
ENTRY e {
  x = s64[5] parameter(0)
  ROOT r = f16[5] convert(x)
}"""
    dual_run(text, np.array([0, 1, 2049, -65504, 1 << 40], np.int64))


def test_unsigned_dynamic_slice_starts_clamp_as_unsigned():
    text = """HloModule t
ENTRY e {
  x = f32[6,8] parameter(0)
  i = u64[] parameter(1)
  j = u64[] parameter(2)
  ROOT s = f32[2,3] dynamic-slice(x, i, j), dynamic_slice_sizes={2,3}
}"""
    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    dual_run(text, x, np.uint64(2**64 - 1), np.uint64(1))


def test_reducer_computing_in_another_type_than_its_operand():
    text = """HloModule t
acc { a = f32[] parameter(0)
  b = bf16[] parameter(1)
  c = f32[] convert(b)
  ROOT s = f32[] add(a, c) }
ENTRY e {
  x = bf16[2,1000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(x, z), dimensions={1}, to_apply=acc
}"""
    import ml_dtypes

    assert dual_run(text, np.ones((2, 1000), ml_dtypes.bfloat16)).tolist() == [1000, 1000]


def test_many_executables_compiled_and_freed_leave_llvm_intact():
    # Engines shared one target machine and freed it with themselves.
    text = """HloModule t
ENTRY e {
  x = f32[8] parameter(0)
  ROOT n = f32[8] negate(x)
}"""
    for k in range(20):
        dual_run(
            text.replace("negate", "negate" if k % 2 else "abs"), np.arange(8, dtype=np.float32) - k
        )


def test_domain_errors_give_the_default_nan_with_its_sign():
    # make fuzz: log of a negative gave +NaN natively, -NaN in numpy; a bitcast showed it.
    import warnings

    import xlapy
    from xlapy.hlo import parse_module

    for op, values in (("log", [-1.5, -7.0]), ("log-plus-one", [-2.0, -9.0]),
                       ("sine", [np.inf, -np.inf]), ("cosine", [np.inf, -np.inf])):  # fmt: skip
        for t, dtype, bits in (("f32", np.float32, np.uint32), ("f64", np.float64, np.uint64)):
            text = f"HloModule t\nENTRY e {{\n  x = {t}[2] parameter(0)\n  ROOT r = {t}[2] {op}(x)\n}}"
            x = np.array(values, dtype)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                want = xlapy.local_client("interpreter").compile(parse_module(text))(x)
            got = xlapy.local_client("cpu").compile(parse_module(text))(x)
            assert got.view(bits).tolist() == want.view(bits).tolist(), (op, t)


def test_dynamic_reshape_of_an_empty_operand_reads_nothing_and_still_checks_sizes():
    # The kernel loaded element 0 of the (empty) operand for lanes outside the dynamic
    # sizes: guard mode faulted there. And with an empty result the size check was
    # skipped along with the code (sizes outside the bounds must still be an error).
    import pytest

    import xlapy
    from xlapy.hlo import parse_module

    def compile_(text: str):  # noqa: ANN202
        options = xlapy.CompileOptions(backend_options={"guard_buffers": "after"})
        return xlapy.local_client("cpu").compile(parse_module(text), options)

    # An empty operand with non-empty bounds is now refused up front, as XLA refuses it
    # (the bounds must hold as many elements as the operand).
    with pytest.raises(xlapy.errors.ParseError, match="element counts must be equal"):
        compile_("""HloModule d
ENTRY e { x = f32[0] parameter(0)
  s = s32[] parameter(1)
  ROOT y = f32[<=3] dynamic-reshape(x, s) }""")
    empty = compile_("""HloModule d
ENTRY e { x = f32[0] parameter(0)
  s = s32[] parameter(1)
  ROOT y = f32[<=0] dynamic-reshape(x, s) }""")
    with pytest.raises(xlapy.errors.InvalidArgumentError, match="outside"):
        empty(np.zeros(0, np.float32), np.int32(1))
