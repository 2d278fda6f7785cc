"""What the CPU compiler must do to the benchmark programs: fuse, reuse memory, run natively.

The programs are the benchmark workloads at small sizes (benchmarks/workloads.py),
so the optimizations checked here are the ones the benchmark numbers rely on.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

import xlapy
from xlapy.hlo import parse_module
from xlapy.opcode import HloOpcode

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
from benchmarks import workloads  # noqa: E402

PART_ONE = ["conv2d", "gather", "ew_chain", "axpy", "row_sums", "max", "softmax", "layer_norm", "matmul", "mlp",
            "while_loop", "call_latency", "transpose"]  # fmt: skip
BY_NAME = workloads.WORKLOADS


def compiled(name: str):
    w = BY_NAME[name](64)
    executable = xlapy.local_client("cpu").compile(w.build())
    return w, executable


def kernels(executable) -> int:
    return executable._executable.kernel_count


def fusions(executable) -> list:
    module = executable.hlo_module_after_optimizations
    return [i for i in module.entry.instructions if i.opcode is HloOpcode.FUSION]


@pytest.mark.parametrize("name", PART_ONE)
def test_part_one_workloads_run_natively_and_agree_with_numpy(name):
    w, executable = compiled(name)
    assert executable.fallback_ops == []
    np.testing.assert_allclose(
        executable(*w.inputs), w.numpy_fn(*w.inputs), rtol=w.rtol, atol=w.rtol
    )


def test_ew_chain_is_one_fused_loop():
    _, executable = compiled("ew_chain")
    entry = executable.hlo_module_after_optimizations.entry
    assert [i.opcode for i in entry.instructions if i.opcode is not HloOpcode.PARAMETER] == [
        HloOpcode.FUSION
    ]
    assert kernels(executable) == 1


@pytest.mark.parametrize("name", ["softmax", "layer_norm"])
def test_softmax_and_layer_norm_take_at_most_three_kernels_run_by_row_blocks(name):
    _, executable = compiled(name)
    assert kernels(executable) <= 3
    full_size = xlapy.local_client("cpu").compile(BY_NAME[name](1).build())
    assert kernels(full_size) <= 3
    assert full_size._executable.row_groups == 1  # the kernels run row block by row block


def test_mlp_bias_add_and_relu_fuse():
    _, executable = compiled("mlp")
    entry = executable.hlo_module_after_optimizations.entry
    dots = [i for i in entry.instructions if i.opcode is HloOpcode.DOT]
    assert len(dots) == 3
    for dot in dots[:2]:
        (user,) = dot.users
        assert user.opcode is HloOpcode.FUSION
        ops = {i.opcode for i in user.fused_computation.instructions}
        assert {HloOpcode.ADD, HloOpcode.MAXIMUM} <= ops


def test_no_buffer_is_allocated_per_call_for_intermediates():
    w, executable = compiled("softmax")
    backend = executable._executable
    arena = backend._arena
    assert backend.program.arena_size > 0
    for _ in range(3):
        executable(*w.inputs)
    assert backend._arena is arena


def test_large_results_are_reused_once_the_caller_drops_them():
    x = np.ones(1 << 19, np.float32)
    executable = xlapy.local_client("cpu").compile(
        parse_module(
            """HloModule m
ENTRY e {
  x = f32[524288] parameter(0)
  ROOT n = f32[524288] negate(x)
}"""
        )
    )
    first = executable(x)
    address = first.ctypes.data
    del first
    second = executable(x)
    assert second.ctypes.data == address
    kept = executable(x)  # ``second`` is still held: a fresh buffer
    assert kept.ctypes.data != second.ctypes.data
    np.testing.assert_array_equal(second, -x)


def test_large_results_are_reused_when_an_argument_is_a_numpy_scalar():
    # A numpy scalar takes the fast entry on a retry as a 0-d array; the first try's
    # results must not stay held across it, or every call faults in a fresh buffer.
    x = np.ones(1 << 19, np.float32)
    executable = xlapy.local_client("cpu").compile(
        parse_module(
            """HloModule m
ENTRY e {
  a = f32[] parameter(0)
  x = f32[524288] parameter(1)
  b = f32[524288] broadcast(a), dimensions={}
  ROOT n = f32[524288] multiply(b, x)
}"""
        )
    )
    first = executable(np.float32(2), x)
    address = first.ctypes.data
    del first
    second = executable(np.float32(3), x)
    assert second.ctypes.data == address
    np.testing.assert_array_equal(second, 3 * x)


def test_call_path_takes_the_fast_entry_and_falls_back_for_other_inputs():
    _, executable = compiled("call_latency")
    assert executable(np.ones(4, np.float32), np.ones(4, np.float32)).tolist() == [2.0] * 4
    strided = np.ones(8, np.float32)[::2]  # not contiguous: the general path copies it
    assert executable(strided, np.ones(4, np.float32)).tolist() == [2.0] * 4
    with pytest.raises(xlapy.errors.InvalidArgumentError, match="expected f32"):
        executable(np.ones(4, np.float64), np.ones(4, np.float32))


MIXED = """HloModule mixed
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY e {
  s = f32[] parameter(0)
  v = s32[3] parameter(1)
  m = f64[2,3] parameter(2)
  t = f32[2,1,4] parameter(3)
  vf = f64[3] convert(v)
  b = f64[2,3] broadcast(vf), dimensions={1}
  sum = f64[2,3] add(m, b)
  r = f32[] reduce(t, s), dimensions={0,1,2}, to_apply=add
  ROOT out = (f64[2,3], f32[]) tuple(sum, r)
}"""


def test_the_fast_call_checks_every_argument_against_its_descriptor():
    """``xlapy_fast_call`` walks the parameters' records (ranks 0 to 3, four dtypes):
    matching arrays run natively; any mismatch in any argument sends the call to the
    general path (call_numpy gives None), which converts or refuses it."""
    executable = xlapy.local_client("cpu").compile(parse_module(MIXED))
    native = executable._executable  # noqa: SLF001
    good = [
        np.float32(0.5).reshape(()),
        np.array([1, 2, 3], np.int32),
        np.arange(6, dtype=np.float64).reshape(2, 3),
        np.ones((2, 1, 4), np.float32),
    ]
    want = (good[2] + good[1].astype(np.float64), np.float32(8.5))
    if native.program.guard is not None:  # guard mode copies every buffer: no fast path
        assert native._fast is None and native.call_numpy(good) is None  # noqa: SLF001
        total, reduced = executable(*good)
        np.testing.assert_array_equal(total, want[0])
        return
    assert native._fast is not None  # noqa: SLF001
    for arguments in (good, tuple(good)):  # a list is made a tuple
        total, reduced = native.call_numpy(arguments)
        np.testing.assert_array_equal(total, want[0])
        assert float(reduced) == want[1]
    wrong = {
        0: [np.float64(0.5).reshape(()), np.ones(1, np.float32), [0.5]],
        1: [np.array([1, 2, 3], np.int64), np.array([1, 2], np.int32), np.ones((1, 3), np.int32)],
        2: [np.asfortranarray(good[2]), np.repeat(good[2], 2, axis=1)[:, ::2], good[2].T.copy()],
        3: [np.ones((2, 4, 1), np.float32), np.ones((2, 1, 4, 1), np.float32)],
    }
    for k, substitutes in wrong.items():
        for substitute in substitutes:
            arguments = [*good[:k], substitute, *good[k + 1 :]]
            assert native.call_numpy(arguments) is None, (k, substitute)
            same = np.asarray(substitute).dtype == good[k].dtype
            if same and np.shape(substitute) == np.shape(good[k]):  # the general path: a copy
                total, reduced = executable(*arguments)
                np.testing.assert_array_equal(total, want[0])


def test_arguments_are_never_modified():
    x = np.arange(8, dtype=np.float32)
    before = x.copy()
    executable = xlapy.local_client("cpu").compile(
        parse_module(
            """HloModule m
ENTRY e {
  x = f32[8] parameter(0)
  n = f32[8] negate(x)
  ROOT a = f32[8] add(n, x)
}"""
        )
    )
    executable(x)
    np.testing.assert_array_equal(x, before)


def test_compile_cache_returns_the_same_program():
    text = BY_NAME["axpy"](64).build().to_hlo_text()
    client = xlapy.local_client("cpu")
    a = client.compile(parse_module(text))
    b = client.compile(parse_module(text))
    assert a._executable.program is b._executable.program


def test_disabled_passes_are_left_out_and_checked():
    text = """HloModule a
ENTRY e {
  x = f32[2] parameter(0)
  c = f32[2] constant({1,2})
  ROOT y = f32[2] add(c, c)
}"""

    def compile_with(disabled):
        options = xlapy.CompileOptions(backend_options={"disabled_passes": disabled})
        return xlapy.local_client("cpu").compile(parse_module(text), options)

    folded = xlapy.local_client("cpu").compile(parse_module(text))
    assert [i.opcode for i in folded.hlo_module_after_optimizations.entry.instructions] == [
        HloOpcode.PARAMETER,
        HloOpcode.CONSTANT,
    ]
    for disabled in ("constant-folding", {"constant-folding", "cse"}):
        unfolded = compile_with(disabled)
        ops = {i.opcode for i in unfolded.hlo_module_after_optimizations.entry.instructions}
        assert HloOpcode.ADD in ops
        np.testing.assert_array_equal(unfolded(np.zeros(2, np.float32)), [2, 4])
    with pytest.raises(xlapy.errors.InvalidArgumentError, match="no pass of the CPU pipeline"):
        compile_with({"constant-foldin"})
    with pytest.raises(xlapy.errors.InvalidArgumentError, match="cannot be disabled"):
        compile_with({"layout-normalization"})


def test_the_compile_cache_tells_large_constants_apart_by_every_byte():
    # The key prints constants past 64 elements as digests of their bytes.
    client = xlapy.local_client("cpu")
    base = np.linspace(-1, 1, 1000).astype(np.float32)
    results = []
    for tweak in (None, 500, 999):
        values = base.copy()
        if tweak is not None:
            values[tweak] = np.nextafter(values[tweak], np.float32(5))
        b = xlapy.XlaBuilder("add_constant")
        x = xlapy.ops.Parameter(b, 0, xlapy.Shape.parse("f32[1000]"), "x")
        executable = client.compile(b.build(x + xlapy.ops.Constant(b, values)))
        results.append(np.asarray(executable(np.zeros(1000, np.float32))))
        np.testing.assert_array_equal(results[-1], values)
    assert not np.array_equal(results[0], results[1])
