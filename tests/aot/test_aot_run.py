"""Objects from ``xlapy.aot`` run in a C process with no Python and compute what the JIT
computes: bit for bit against the JIT on the same code (``gemm="xlapy"``), within the
workload's tolerance against the JIT's default BLAS path."""

from __future__ import annotations

import pathlib
import subprocess

import numpy as np
import pytest

from benchmarks import workloads
from xlapy.hlo import parse_module
from xlapy.tools.inputs import load_module, random_inputs

CORPUS = pathlib.Path(__file__).parents[1] / "data" / "hlo_corpus"
# A sample of the corpus across families: elementwise, control, conv, dot, FFT with a
# column-major result (staged through temp), donation, RNG, sort, scatter, empty arrays.
CORPUS_SAMPLE = [
    "binary_float", "complex_ops", "conditionals", "conv2d", "dot_general", "fft",
    "donated_args", "loops", "rng_bit_generator", "sort", "tuple_results", "scatter",
    "zero_size", "large_constant", "special_functions", "reduce_window",
]  # fmt: skip


@pytest.mark.parametrize("name", list(workloads.WORKLOADS))
def test_benchmark_workload_matches_the_jit(name, aot_run, helpers):
    w = workloads.WORKLOADS[name](64)
    module = w.build().hlo_module
    result, outputs = aot_run(module, list(w.inputs), name=name)
    same_code = helpers.jit_run(module, w.inputs, gemm="xlapy")
    assert len(outputs) == len(same_code)
    for got, want in zip(outputs, same_code, strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(helpers.as_bytes(got), helpers.as_bytes(want))
    blas = helpers.jit_run(module, w.inputs, gemm="openblas")
    for got, want in zip(outputs, blas, strict=True):
        np.testing.assert_allclose(got, want, rtol=max(w.rtol, 1e-4), atol=max(w.atol, 1e-4))
    assert helpers.undefined_outside_system(result) == []


@pytest.mark.parametrize("name", CORPUS_SAMPLE)
def test_corpus_module_matches_the_jit_bit_for_bit(name, aot_run, helpers):
    module = load_module(str(CORPUS / f"{name}.hlo"))
    arguments = random_inputs(module, 0)
    result, outputs = aot_run(module, arguments)
    expected = helpers.jit_run(module, arguments)
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected, strict=True):
        np.testing.assert_array_equal(helpers.as_bytes(got), helpers.as_bytes(want))
    assert helpers.undefined_outside_system(result) == []


_DTYPES = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128}


@pytest.mark.parametrize("t", list(_DTYPES))
def test_dots_of_every_gemm_type_and_transpose(t, aot_run, helpers):
    """Odd sizes (edge tiles of the micro-kernel), both operands transposed or not, a
    batch: bit for bit with the JIT's loop GEMM, and close to numpy."""
    rng = np.random.default_rng(1)

    def value(shape):  # noqa: ANN001, ANN202
        x = rng.standard_normal(shape)
        if t.startswith("c"):
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(_DTYPES[t])

    m, k, n = 37, 300, 21
    module = parse_module(f"""HloModule dots
ENTRY e {{
  a = {t}[{k},{m}] parameter(0)
  b = {t}[{k},{n}] parameter(1)
  c = {t}[3,{m},{k}] parameter(2)
  d = {t}[3,{n},{k}] parameter(3)
  x = {t}[{m},{n}] dot(a, b), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}
  y = {t}[3,{m},{n}] dot(c, d), lhs_batch_dims={{0}}, rhs_batch_dims={{0}}, lhs_contracting_dims={{2}}, rhs_contracting_dims={{2}}
  ROOT r = ({t}[{m},{n}], {t}[3,{m},{n}]) tuple(x, y)
}}""")
    arguments = [value((k, m)), value((k, n)), value((3, m, k)), value((3, n, k))]
    result, (x, y) = aot_run(module, arguments)
    same = helpers.jit_run(module, arguments)
    for got, want in zip((x, y), same, strict=True):
        np.testing.assert_array_equal(helpers.as_bytes(got), helpers.as_bytes(want))
    tol = 1e-4 if t in ("f32", "c64") else 1e-10
    a, b, c, d = arguments
    np.testing.assert_allclose(x, a.T @ b, rtol=tol, atol=tol * k)
    np.testing.assert_allclose(y, c @ d.transpose(0, 2, 1), rtol=tol, atol=tol * k)
    assert helpers.undefined_outside_system(result) == []


def test_threaded_object_runs_kernels_on_a_pthread_pool(aot_run, helpers):
    w = workloads.WORKLOADS["ew_chain"](1)
    module = w.build().hlo_module
    result, outputs = aot_run(module, list(w.inputs), threads=2)
    assert "pthread_create" in result.elf.undefined  # the pool came along
    for got, want in zip(outputs, helpers.jit_run(module, w.inputs), strict=True):
        np.testing.assert_array_equal(helpers.as_bytes(got), helpers.as_bytes(want))
    assert helpers.undefined_outside_system(result) == []


def test_c_custom_call_is_an_external_symbol_the_application_links(aot_run, helpers, cc, tmp_path):
    source = tmp_path / "target.c"
    source.write_text(
        "void scale_by_three(void* out, void** in) {\n"
        "  const float* x = (const float*)in[0]; float* y = (float*)out;\n"
        "  for (int i = 0; i < 8; ++i) y[i] = 3.0f * x[i];\n"
        "}\n"
    )
    target = tmp_path / "target.o"
    subprocess.run([cc, "-c", "-O2", str(source), "-o", str(target)], check=True)
    module = parse_module("""HloModule custom
ENTRY e {
  x = f32[8] parameter(0)
  c = f32[8] custom-call(x), custom_call_target="scale_by_three"
  ROOT r = f32[8] add(c, x)
}""")
    x = np.arange(8, dtype=np.float32)
    result, (out,) = aot_run(module, [x], extra_objects=[str(target)])
    np.testing.assert_array_equal(out, 4 * x)
    assert result.external_symbols == ["scale_by_three"]
    assert "scale_by_three" in result.elf.undefined
    assert helpers.undefined_outside_system(result, {"scale_by_three"}) == []


def test_rng_state_starts_from_the_seed_as_the_jit_does(aot_run, helpers):
    module = load_module(str(CORPUS / "rng_uniform.hlo"))
    arguments = random_inputs(module, 0)
    _, outputs = aot_run(module, arguments)
    for got, want in zip(outputs, helpers.jit_run(module, arguments), strict=True):
        np.testing.assert_array_equal(helpers.as_bytes(got), helpers.as_bytes(want))


def test_an_int8_dot_runs_exactly_in_the_object(aot_run, helpers):
    """s8 x s8 -> s32: on a host with VNNI the object carries the int8 GEMM itself (no
    JIT library to call), elsewhere the float GEMM; exact either way."""
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, (45, 333), dtype=np.int8)
    b = rng.integers(-128, 128, (70, 333), dtype=np.int8)
    module = parse_module("""HloModule int8_dot
ENTRY e {
  a = s8[45,333] parameter(0)
  b = s8[70,333] parameter(1)
  ROOT d = s32[45,70] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}""")
    result, (got,) = aot_run(module, [a, b])
    np.testing.assert_array_equal(got, (a.astype(np.int64) @ b.T.astype(np.int64)).astype(np.int32))
    assert helpers.undefined_outside_system(result) == []
