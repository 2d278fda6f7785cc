"""The CPU backend's memory-safety debug mode (``guarded_memory``): guard pages around
every buffer catch a stray write where it happens, and change no result."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xlapy
from xlapy.errors import InvalidArgumentError

PROGRAMS = {
    "fusion_dot_reduce": (
        """HloModule t
add { x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y) }
ENTRY e { a = f32[33,17] parameter(0)
  b = f32[17,5] parameter(1)
  c = f32[] constant(2)
  cb = f32[33,17] broadcast(c), dimensions={}
  m = f32[33,17] multiply(a, cb)
  x = f32[33,17] exponential(m)
  d = f32[33,5] dot(x, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = f32[33] reduce(d, c), dimensions={1}, to_apply=add
  ROOT t = (f32[33,5], f32[33]) tuple(d, r) }""",
        [
            np.linspace(0, 0.1, 33 * 17, dtype=np.float32).reshape(33, 17),
            np.linspace(-1, 1, 17 * 5, dtype=np.float32).reshape(17, 5),
        ],
    ),
    "while_loop": (
        """HloModule w
cond { p = (s32[], f32[7]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT c = pred[] compare(i, n), direction=LT }
body { p = (s32[], f32[7]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[7] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[7] add(v, v)
  ROOT t = (s32[], f32[7]) tuple(j, w) }
ENTRY e { x = f32[7] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[7]) tuple(z, x)
  r = (s32[], f32[7]) while(t), condition=cond, body=body
  ROOT v = f32[7] get-tuple-element(r), index=1 }""",
        [np.arange(7, dtype=np.float32)],
    ),
    # A batched gather becomes a while loop whose state packs s64, s32 and c128 buffers
    # into one scratch region; under "after" guards that region once started 8 bytes off
    # the 16 that LLVM assumes for c128, and an aligned vector store faulted.
    "while_state_of_mixed_element_types": (
        """HloModule g
ENTRY e { a = c128[2,3,2,5,1] parameter(0)
  i = s32[2,3,5,1] parameter(1)
  ROOT g = c128[2,3,2,5,1] gather(a, i), offset_dims={2,4}, collapsed_slice_dims={3}, start_index_map={3}, operand_batching_dims={0,1}, start_indices_batching_dims={0,1}, index_vector_dim=3, slice_sizes={1,1,2,1,1} }""",
        [
            (np.arange(60) + 1j * np.arange(60)[::-1]).reshape(2, 3, 2, 5, 1),
            (np.arange(30, dtype=np.int32) * 7 % 5).reshape(2, 3, 5, 1),
        ],
    ),
    "integer_dots_with_empty_dimensions": (
        """HloModule d
ENTRY e { a = s32[0,5] parameter(0)
  b = s32[5,4] parameter(1)
  c = s32[2,0] parameter(2)
  d = s32[0,3] parameter(3)
  x = s64[0,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  y = s32[2,3] dot(c, d), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (s64[0,4], s32[2,3]) tuple(x, y) }""",
        [
            np.zeros((0, 5), np.int32),
            np.ones((5, 4), np.int32),
            np.zeros((2, 0), np.int32),
            np.zeros((0, 3), np.int32),
        ],
    ),
    "sort_and_fft": (
        """HloModule s
lt { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT }
ENTRY e { x = f32[4,9] parameter(0)
  s = f32[4,9] sort(x), dimensions={1}, to_apply=lt
  c = c64[4,9] convert(s)
  ROOT f = c64[4,9] fft(c), fft_type=FFT, fft_length={9} }""",
        [np.cos(np.arange(36, dtype=np.float32)).reshape(4, 9)],
    ),
}


def _flat(result: object) -> list[np.ndarray]:
    return list(result) if isinstance(result, tuple) else [result]


@pytest.mark.parametrize("mode", ["after", "before"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_guarded_runs_give_the_unguarded_results(name: str, mode: str) -> None:
    text, arguments = PROGRAMS[name]
    client = xlapy.local_client("cpu")
    module = xlapy.hlo.parse_module(text)
    plain = client.compile(module, xlapy.CompileOptions(backend_options={"guard_buffers": None}))
    guarded = client.compile(module, xlapy.CompileOptions(backend_options={"guard_buffers": mode}))
    program = guarded._executable.program
    assert program.guard == mode and program.guard_pages
    expected = _flat(plain(*arguments))
    for _ in range(2):  # the arena and its guard pages are reused by the next call
        for got, want in zip(_flat(guarded(*arguments)), expected, strict=True):
            np.testing.assert_array_equal(got, want)


def test_a_bad_mode_is_a_clear_error() -> None:
    module = xlapy.hlo.parse_module(PROGRAMS["while_loop"][0])
    options = xlapy.CompileOptions(backend_options={"guard_buffers": "sideways"})
    with pytest.raises(InvalidArgumentError, match="guard_buffers must be one of"):
        xlapy.local_client("cpu").compile(module, options)


# A C custom-call target (ABI ``void f(void* out, void** in)``) that copies its f32[16]
# operand and then writes one element past the end of its output (or before its start):
# the kind of bug guard mode exists to catch.
_PLANTED = """
import ctypes, sys
import numpy as np
import xlapy

where = sys.argv[1]
offset = {"after": 16 * 4, "before": -4}[where]

@ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
def stray(out, inputs):
    ctypes.memmove(out, inputs[0], 16 * 4)
    ctypes.memset(out + offset, 0x7F, 4)

xlapy.register_custom_call("stray_write", stray, platform="cpu")
module = xlapy.hlo.parse_module('''HloModule p
ENTRY e { x = f32[16] parameter(0)
  y = f32[16] custom-call(x), custom_call_target="stray_write"
  ROOT z = f32[16] negate(y) }''')
options = xlapy.CompileOptions(backend_options={"guard_buffers": where})
executable = xlapy.local_client("cpu").compile(module, options)
print("compiled", flush=True)
executable(np.ones(16, np.float32))
print("the stray write went unnoticed", flush=True)
"""


@pytest.mark.parametrize("where", ["after", "before"])
def test_guard_pages_catch_a_planted_out_of_bounds_write(where: str) -> None:
    run = subprocess.run(
        [sys.executable, "-c", _PLANTED, where], capture_output=True, text=True, timeout=120
    )
    assert "compiled" in run.stdout, run.stderr
    assert run.returncode == -signal.SIGSEGV, (run.returncode, run.stdout, run.stderr)
    assert "went unnoticed" not in run.stdout


_EMPTY_DOT_WITHOUT_THE_GUARD = textwrap.dedent(
    """
    import numpy as np
    import xlapy
    from xlapy.backends.cpu import codegen

    # Take away both compile-time guards for empty results (no code for an empty result,
    # no call of a kernel over an empty range) and run every kernel over at least one
    # row, as the integer dot did (max(1, m)): the bug this mode was built to find.
    codegen._computes_nothing = lambda emitter, instruction: False
    call_kernel = codegen.FunctionEmitter.call_kernel
    codegen.FunctionEmitter.call_kernel = (
        lambda self, kernel, pointers, n, parallel: call_kernel(
            self, kernel, pointers, max(1, n), parallel
        )
    )
    module = xlapy.hlo.parse_module('''HloModule t
    ENTRY e { a = s32[0,5] parameter(0)
      b = s32[5,4] parameter(1)
      ROOT d = s64[0,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0} }''')
    options = xlapy.CompileOptions(backend_options={"guard_buffers": "after"})
    executable = xlapy.local_client("cpu").compile(module, options)
    print("compiled", flush=True)
    executable(np.zeros((0, 5), np.int32), np.ones((5, 4), np.int32))
    print("the stray write went unnoticed", flush=True)
    """
)


def test_guard_pages_catch_the_empty_dot_that_corrupted_the_heap() -> None:
    run = subprocess.run(
        [sys.executable, "-c", _EMPTY_DOT_WITHOUT_THE_GUARD],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "compiled" in run.stdout, run.stderr
    # The index check stops the first read of the empty operand (SIGILL); without it the
    # guard page past the empty output stops the first write (SIGSEGV).
    assert run.returncode in (-signal.SIGILL, -signal.SIGSEGV), (
        run.returncode,
        run.stdout,
        run.stderr,
    )


# Zero-size dimensions in every position an emitter might forget (operands, results,
# contracting and window dimensions), each run under guard pages against the interpreter.
EMPTY_DIMENSIONS = {
    "pad": (
        """HloModule p
ENTRY e { x = f32[0,3] parameter(0)
  z = f32[] constant(7)
  ROOT y = f32[4,3] pad(x, z), padding=2_2x0_0 }""",
        [np.zeros((0, 3), np.float32)],
    ),
    "concat": (
        """HloModule p
ENTRY e { x = f32[0,3] parameter(0)
  w = f32[2,3] parameter(1)
  ROOT y = f32[2,3] concatenate(x, w), dimensions={0} }""",
        [np.zeros((0, 3), np.float32), np.ones((2, 3), np.float32)],
    ),
    "reduce": (
        """HloModule p
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b) }
ENTRY e { x = f32[3,0] parameter(0)
  z = f32[] constant(0)
  ROOT y = f32[3] reduce(x, z), dimensions={1}, to_apply=add }""",
        [np.zeros((3, 0), np.float32)],
    ),
    "reduce_window": (
        """HloModule p
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b) }
ENTRY e { x = f32[0] parameter(0)
  z = f32[] constant(0)
  ROOT y = f32[3] reduce-window(x, z), window={size=2 pad=2_2}, to_apply=add }""",
        [np.zeros((0,), np.float32)],
    ),
    "dot_k0": (
        """HloModule p
ENTRY e { a = f32[4,0] parameter(0)
  b = f32[0,5] parameter(1)
  ROOT d = f32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0} }""",
        [np.zeros((4, 0), np.float32), np.zeros((0, 5), np.float32)],
    ),
    "idot_k0": (
        """HloModule p
ENTRY e { a = s32[4,0] parameter(0)
  b = s32[0,5] parameter(1)
  ROOT d = s32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0} }""",
        [np.zeros((4, 0), np.int32), np.zeros((0, 5), np.int32)],
    ),
    "dynamic_slice_empty": (
        """HloModule p
ENTRY e { x = f32[0,3] parameter(0)
  i = s32[] parameter(1)
  ROOT y = f32[0,2] dynamic-slice(x, i, i), dynamic_slice_sizes={0,2} }""",
        [np.zeros((0, 3), np.float32), np.int32(1)],
    ),
    "dus_empty_update": (
        """HloModule p
ENTRY e { x = f32[4,3] parameter(0)
  u = f32[0,3] parameter(1)
  i = s32[] parameter(2)
  ROOT y = f32[4,3] dynamic-update-slice(x, u, i, i) }""",
        [np.ones((4, 3), np.float32), np.zeros((0, 3), np.float32), np.int32(9)],
    ),
    "scatter_empty": (
        """HloModule p
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b) }
ENTRY e { x = f32[4,3] parameter(0)
  i = s32[0,1] parameter(1)
  u = f32[0,3] parameter(2)
  ROOT y = f32[4,3] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add }""",
        [np.ones((4, 3), np.float32), np.zeros((0, 1), np.int32), np.zeros((0, 3), np.float32)],
    ),
    "sort_empty_rows": (
        """HloModule p
lt { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT }
ENTRY e { x = f32[3,0] parameter(0)
  ROOT y = f32[3,0] sort(x), dimensions={1}, to_apply=lt }""",
        [np.zeros((3, 0), np.float32)],
    ),
    "broadcast_empty": (
        """HloModule p
ENTRY e { x = f32[0] parameter(0)
  ROOT y = f32[3,0] broadcast(x), dimensions={1} }""",
        [np.zeros((0,), np.float32)],
    ),
    "conv_empty_batch": (
        """HloModule p
ENTRY e { x = f32[0,5,5,2] parameter(0)
  k = f32[3,3,2,4] parameter(1)
  ROOT y = f32[0,3,3,4] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f }""",
        [np.zeros((0, 5, 5, 2), np.float32), np.ones((3, 3, 2, 4), np.float32)],
    ),
    "conv_empty_features": (
        """HloModule p
ENTRY e { x = f32[1,5,5,0] parameter(0)
  k = f32[3,3,0,4] parameter(1)
  ROOT y = f32[1,3,3,4] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f }""",
        [np.zeros((1, 5, 5, 0), np.float32), np.ones((3, 3, 0, 4), np.float32)],
    ),
    "fft_empty": (
        """HloModule p
ENTRY e { x = c64[0,8] parameter(0)
  ROOT y = c64[0,8] fft(x), fft_type=FFT, fft_length={8} }""",
        [np.zeros((0, 8), np.complex64)],
    ),
    "iota_concat": (
        """HloModule p
ENTRY e { x = s32[0] parameter(0)
  i = s32[5] iota(), iota_dimension=0
  ROOT y = s32[5] concatenate(x, i), dimensions={0} }""",
        [np.zeros((0,), np.int32)],
    ),
    "reduce_precision_slice": (
        """HloModule p
ENTRY e { x = f32[4] parameter(0)
  s = f32[0] slice(x), slice={[2:2]}
  ROOT t = (f32[0], f32[4]) tuple(s, x) }""",
        [np.ones(4, np.float32)],
    ),
}


@pytest.mark.parametrize("name", sorted(EMPTY_DIMENSIONS))
def test_empty_dimensions_touch_no_memory_out_of_bounds(name: str) -> None:
    text, arguments = EMPTY_DIMENSIONS[name]
    module = xlapy.hlo.parse_module(text)
    options = xlapy.CompileOptions(backend_options={"guard_buffers": "after"})
    got = _flat(xlapy.local_client("cpu").compile(module, options)(*arguments))
    want = _flat(xlapy.local_client("interpreter").compile(module)(*arguments))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


_UNCLAMPED_GATHER = textwrap.dedent(
    """
    import numpy as np
    import xlapy
    from xlapy.backends.cpu.emit import indexing_gather as emit_gather

    # Plant the bug: gather row indices are no longer clamped to the table.
    emit_gather.start_index = lambda b, raw, et, limit: b.sext(raw, emit_gather.ir.IntType(64))
    module = xlapy.hlo.parse_module('''HloModule g
    ENTRY e { t = f32[8,4] parameter(0)
      i = s32[3,1] parameter(1)
      ROOT g = f32[3,4] gather(t, i), offset_dims={1}, collapsed_slice_dims={0},
        start_index_map={0}, index_vector_dim=1, slice_sizes={1,4} }''')
    options = xlapy.CompileOptions(backend_options={"guard_buffers": "after"})
    executable = xlapy.local_client("cpu").compile(module, options)
    print("compiled", flush=True)
    table = np.ones((8, 4), np.float32)
    executable(table, np.array([[1], [2], [3]], np.int32))
    print("in range ran", flush=True)
    executable(table, np.array([[1], [100000], [3]], np.int32))
    print("the stray read went unnoticed", flush=True)
    """
)


def test_guard_mode_checks_indices_that_come_from_data() -> None:
    # Row 100000 of an 8-row table is far past any guard page: the index check stops
    # the program on a trap instruction (SIGILL) before the read.
    run = subprocess.run(
        [sys.executable, "-c", _UNCLAMPED_GATHER], capture_output=True, text=True, timeout=120
    )
    assert "in range ran" in run.stdout, (run.stdout, run.stderr)
    assert run.returncode == -signal.SIGILL, (run.returncode, run.stdout, run.stderr)
