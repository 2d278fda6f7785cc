"""custom-call on the interpreter: Python targets, and C targets with XLA:CPU's ABI through ctypes."""

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions, run
from xlapy.custom_call import register_custom_call, unregister_custom_call
from xlapy.errors import InvalidArgumentError, NotFoundError
from xlapy.evaluator.kernels import control, movement  # noqa: F401  (registers the kernels)
from xlapy.hlo import parse_module

# The seed's CPU example plus functions for tuples, status and opaque data.
C_SOURCE = r"""
#include <stddef.h>
#include <string.h>

void do_custom_call(void* out, const void** in) {
  float* out_buf = (float*)out;
  const float* in0 = (const float*)in[0];
  const float* in1 = (const float*)in[1];
  for (int i = 0; i < 2048; ++i) {
    out_buf[i] = in0[i % 128] + in1[i];
  }
}

/* out = (f32[4] a+b, s32[] 4); in[0] is a tuple (f32[4] a, f32[4] b). */
void tuple_sum(void* out, const void** in) {
  const void* const* pair = (const void* const*)in[0];
  const float* a = (const float*)pair[0];
  const float* b = (const float*)pair[1];
  void** outs = (void**)out;
  float* sum = (float*)outs[0];
  int* count = (int*)outs[1];
  for (int i = 0; i < 4; ++i) sum[i] = a[i] + b[i];
  *count = 4;
}

/* Scribbles on its input, which must not leak into the program. */
void scribble(void* out, const void** in) {
  double* x = (double*)in[0];
  double* y = (double*)out;
  for (int i = 0; i < 3; ++i) { y[i] = 2 * x[i]; x[i] = -1; }
}

void report_failure(void* out, const void** in, void* status) {
  memset(status, 1, 1);
}

void report_success(void* out, const void** in, void* status) {
  *(int*)out = 42;
}

/* Adds 10 to the buffer it was given as output, which aliases operand 0. */
void add_in_place(void* out, const void** in) {
  float* y = (float*)out;
  for (int i = 0; i < 4; ++i) y[i] += 10;
}

void opaque_length(void* out, const void** in, const char* opaque, size_t len, void* status) {
  long long* result = (long long*)out;
  result[0] = (long long)len;
  result[1] = len ? opaque[0] : 0;
}
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler (cc, gcc or clang) on PATH to build the custom-call targets")
    tmp = tmp_path_factory.mktemp("custom_call")
    source = tmp / "targets.c"
    source.write_text(C_SOURCE)
    shared = tmp / "libtargets.so"
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-O1", "-o", str(shared), str(source)], check=True
    )
    return ctypes.CDLL(str(shared))


@pytest.fixture
def targets():
    """Register targets for one test and remove them afterwards."""
    names = []

    def register(name, fn):
        register_custom_call(name, fn)
        names.append(name)

    yield register
    for name in names:
        unregister_custom_call(name)


def test_seed_example_with_a_c_function(library, targets):
    targets("do_custom_call", library.do_custom_call)
    text = """HloModule do_it
ENTRY do_it {
  p0 = f32[128] parameter(0)
  p1 = f32[2048] parameter(1)
  ROOT custom_call = f32[2048] custom-call(p0, p1), custom_call_target="do_custom_call"
}"""
    b = np.arange(128, dtype=np.float32)
    c = np.linspace(0, 1, 2048, dtype=np.float32)
    np.testing.assert_array_equal(run(text, b, c), b[np.arange(2048) % 128] + c)


def test_c_target_by_address_and_non_contiguous_operands(library, targets):
    address = ctypes.cast(library.do_custom_call, ctypes.c_void_p).value
    targets("by_address", address)
    text = """HloModule m
ENTRY e {
  p0 = f32[128] parameter(0)
  p = f32[2048,2]{0,1} parameter(1)
  s = f32[2048,1] slice(p), slice={[0:2048], [1:2]}
  p1 = f32[2048] reshape(s)
  ROOT r = f32[2048] custom-call(p0, p1), custom_call_target="by_address"
}"""
    b = np.ones(128, np.float32)
    p = np.random.default_rng(0).standard_normal((2048, 2)).astype(np.float32)
    np.testing.assert_array_equal(run(text, b, p), 1 + p[:, 1])


def test_c_target_with_tuple_operand_and_result(library, targets):
    """Tuples cross the C ABI as arrays of pointers to their elements (XLA's custom_call.md)."""
    targets("tuple_sum", library.tuple_sum)
    text = """HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  t = (f32[4], f32[4]) tuple(a, b)
  ROOT r = (f32[4], s32[]) custom-call(t), custom_call_target="tuple_sum"
}"""
    a, b = np.arange(4, dtype=np.float32), np.full(4, 0.5, np.float32)
    total, count = run(text, a, b)
    np.testing.assert_array_equal(total, a + b)
    assert count == 4


def test_c_target_gets_copies_of_its_operands(library, targets):
    targets("scribble", library.scribble)
    text = """HloModule m
ENTRY e {
  x = f64[3] parameter(0)
  y = f64[3] custom-call(x), custom_call_target="scribble"
  ROOT t = (f64[3], f64[3]) tuple(x, y)
}"""
    x = np.array([1.0, 2.0, 3.0])
    kept, doubled = run(text, x)
    np.testing.assert_array_equal(kept, x)
    np.testing.assert_array_equal(doubled, 2 * x)


def test_status_returning_and_unified_api_versions(library, targets):
    targets("report_failure", library.report_failure)
    targets("report_success", library.report_success)
    targets("opaque_length", library.opaque_length)
    failing = """HloModule m
ENTRY e {
  ROOT r = s32[] custom-call(), custom_call_target="report_failure", api_version=API_VERSION_STATUS_RETURNING
}"""
    with pytest.raises(InvalidArgumentError, match="report_failure.*failure"):
        run(failing)
    ok = failing.replace("report_failure", "report_success")
    assert run(ok) == 42
    unified = """HloModule m
ENTRY e {
  ROOT r = s64[2] custom-call(), custom_call_target="opaque_length", api_version=API_VERSION_STATUS_RETURNING_UNIFIED, backend_config="xyz"
}"""
    np.testing.assert_array_equal(run(unified), [3, ord("x")])


def test_python_targets_with_array_and_tuple_results(targets):
    targets("py.affine", lambda x, a: x * a + 1)
    targets("py.split", lambda x: (x[:2].copy(), np.int32(x.size)))
    text = """HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  a = f32[] parameter(1)
  y = f32[4] custom-call(x, a), custom_call_target="py.affine"
  s = (f32[2], s32[]) custom-call(y), custom_call_target="py.split"
  ROOT t = (f32[4], (f32[2], s32[])) tuple(y, s)
}"""
    x = np.arange(4, dtype=np.float32)
    y, (head, size) = run(text, x, np.float32(2))
    np.testing.assert_array_equal(y, 2 * x + 1)
    np.testing.assert_array_equal(head, (2 * x + 1)[:2])
    assert size == 4 and y.dtype == np.float32


def test_python_target_cannot_write_its_operands_or_return_a_wrong_shape(targets):
    def in_place(x):
        x += 1
        return x

    targets("py.in_place", in_place)
    targets("py.wrong", lambda x: np.zeros(3, np.float32))
    text = """HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  ROOT y = f32[2] custom-call(x), custom_call_target="%s"
}"""
    with pytest.raises(ValueError, match="read-only"):
        run(text % "py.in_place", np.zeros(2, np.float32))
    with pytest.raises(InvalidArgumentError, match="py.wrong"):
        run(text % "py.wrong", np.zeros(2, np.float32))


def test_unknown_target_fails_at_compile_time_naming_it():
    module = parse_module("""HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  ROOT y = f32[2] custom-call(x), custom_call_target="no_such_target_anywhere"
}""")
    with pytest.raises(NotFoundError, match="no_such_target_anywhere"):
        InterpreterBackend().compile(module, InterpreterOptions())


def test_aliased_output_starts_with_the_operand_data(library, targets):
    """With output_to_operand_aliasing the C function updates the operand's buffer in place."""
    targets("add_in_place", library.add_in_place)
    text = """HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT y = f32[4] custom-call(x), custom_call_target="add_in_place", output_to_operand_aliasing={{}: (0, {})}
}"""
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(run(text, x), x + 10)
