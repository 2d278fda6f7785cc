"""Programs on a real GPU against the interpreter (tests marked ``gpu``: skipped with
"no CUDA device" on machines without one; tools/gpu_check.sh runs them on a lent GPU).

Bounds: integer, predicate and movement results bit for bit; floating results within
the CPU back-end's documented bounds (the same scalar code, ``math.approx`` or
libdevice for transcendental functions, sums in another order).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.errors import UnimplementedError
from xlapy.hlo import parse_module
from xlapy.testing.dual_run import assert_agree
from xlapy.testing.random_programs import programs

pytestmark = pytest.mark.gpu
CORPUS = Path(__file__).resolve().parents[2] / "data" / "hlo_corpus"
SHORT_FORMS = sorted(
    p.name[: -len(".hlo")]
    for p in CORPUS.glob("*.hlo")
    if not p.name.endswith((".opt.hlo", ".verbose.hlo"))
)


def _random_argument(shape: xlapy.Shape, rng: np.random.Generator) -> object:
    if shape.is_tuple:
        return tuple(_random_argument(s, rng) for s in shape.tuple_shapes)
    dtype = np.dtype(shape.element_type.dtype)
    dims = shape.dimensions
    if dtype == np.bool_:
        return rng.random(dims) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 5, dims).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(dims) + 1j * rng.standard_normal(dims)).astype(dtype)
    return rng.standard_normal(dims).astype(dtype)


def _gpu() -> xlapy.client.LocalClient:
    return xlapy.local_client("gpu")


@pytest.mark.parametrize("case", SHORT_FORMS)
def test_corpus_program_agrees_with_the_interpreter(case: str) -> None:
    module = parse_module((CORPUS / f"{case}.hlo").read_text())
    try:
        executable = _gpu().compile(module)
    except UnimplementedError as e:
        pytest.skip(f"refused at compile time (test_gpu_compile.REFUSED): {e}")
    rng = np.random.default_rng(0)
    arguments = [_random_argument(s, rng) for s in module.entry.program_shape.parameters]
    want = interpret(parse_module((CORPUS / f"{case}.hlo").read_text()), *arguments)
    got = executable(*arguments)
    assert_agree(got, want, where=case)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_random_programs_agree_with_the_interpreter(program) -> None:  # noqa: ANN001
    module = parse_module(program.text)
    try:
        want = interpret(module, *program.inputs)
    except xlapy.errors.XlaError:
        assume(False)
    try:
        executable = _gpu().compile(parse_module(program.text))
    except UnimplementedError:
        assume(False)
    assert_agree(executable(*program.inputs), want, where=program.text)


REDUCTIONS = {
    "rows_short": ([4096, 100], [1]),
    "rows_long": ([64, 300_000], [1]),
    "columns": ([3000, 700], [0]),
    "full": ([2000, 3000], [0, 1]),
    "middle": ([30, 500, 40], [1]),
    "outer_two": ([50, 60, 70], [0, 1]),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("dtype", ["f32", "f64", "s32"])
def test_reductions_of_every_strategy(name: str, dtype: str) -> None:
    dims, reduced = REDUCTIONS[name]
    kept = [d for i, d in enumerate(dims) if i not in reduced]
    shape = ",".join(map(str, dims))
    out = ",".join(map(str, kept))
    text = f"""HloModule r
add {{ a = {dtype}[] parameter(0)
  b = {dtype}[] parameter(1)
  ROOT s = {dtype}[] add(a, b) }}
ENTRY e {{ x = {dtype}[{shape}] parameter(0)
  one = {dtype}[] constant(1)
  ROOT r = {dtype}[{out}] reduce(x, one), dimensions={{{",".join(map(str, reduced))}}}, to_apply=add }}"""
    rng = np.random.default_rng(1)
    np_dtype = {"f32": np.float32, "f64": np.float64, "s32": np.int32}[dtype]
    x = (rng.integers(-3, 4, dims) if dtype == "s32" else rng.standard_normal(dims)).astype(
        np_dtype
    )
    got = _gpu().compile(parse_module(text))(x)
    want = x.astype(np.float64).sum(axis=tuple(reduced)) + 1  # init is applied once
    tolerance = {"f32": 1e-3, "f64": 1e-9, "s32": 0}[dtype]
    np.testing.assert_allclose(
        np.asarray(got, np.float64), want, rtol=tolerance, atol=tolerance * 10
    )


def test_argmax_variadic_reduce() -> None:
    text = """HloModule a
argmax { v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  eq = pred[] compare(v0, v1), direction=EQ
  lt = pred[] compare(i0, i1), direction=LT
  tie = pred[] and(eq, lt)
  take0 = pred[] or(gt, tie)
  v = f32[] select(take0, v0, v1)
  i = s32[] select(take0, i0, i1)
  ROOT t = (f32[], s32[]) tuple(v, i) }
ENTRY e { x = f32[300,5000] parameter(0)
  idx = s32[300,5000] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[300], s32[300]) reduce(x, idx, lo, zero), dimensions={1}, to_apply=argmax }"""
    x = np.random.default_rng(2).standard_normal((300, 5000)).astype(np.float32)
    values, indices = _gpu().compile(parse_module(text))(x)
    np.testing.assert_array_equal(indices, x.argmax(axis=1))
    np.testing.assert_array_equal(values, x.max(axis=1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("form", ["nn", "tn", "nt", "batched"])
def test_dots_through_cublas(dtype: type, form: str) -> None:
    rng = np.random.default_rng(3)

    def array(*dims: int) -> np.ndarray:
        a = rng.standard_normal(dims)
        if np.dtype(dtype).kind == "c":
            a = a + 1j * rng.standard_normal(dims)
        return a.astype(dtype)

    b = xlapy.XlaBuilder("dot")
    if form == "batched":
        x, y = array(3, 17, 33), array(3, 33, 9)
        spec = "bmk,bkn->bmn"
    elif form == "tn":
        x, y = array(33, 17), array(33, 9)
        spec = "km,kn->mn"
    elif form == "nt":
        x, y = array(17, 33), array(9, 33)
        spec = "mk,nk->mn"
    else:
        x, y = array(17, 33), array(33, 9)
        spec = "mk,kn->mn"
    et = xlapy.PrimitiveType.from_dtype(np.dtype(dtype))
    p = xlapy.ops.Parameter(b, 0, xlapy.Shape.array(et, x.shape), "x")
    q = xlapy.ops.Parameter(b, 1, xlapy.Shape.array(et, y.shape), "y")
    lhs_c = [spec.split(",")[0].index("k")]
    rhs_c = [spec.split(",")[1].split("-")[0].index("k")]
    batch = [0] if form == "batched" else []
    numbers = xlapy.DotDimensionNumbers(lhs_c, rhs_c, batch, batch)
    got = _gpu().compile(b.build(xlapy.ops.DotGeneral(p, q, numbers)))(x, y)
    want = np.einsum(spec, x.astype(np.complex128), y.astype(np.complex128))
    tolerance = (
        1e-4 if np.dtype(dtype).itemsize <= 8 and np.dtype(dtype) != np.complex128 else 1e-10
    )
    np.testing.assert_allclose(got, want if np.dtype(dtype).kind == "c" else want.real, rtol=tolerance, atol=tolerance)


def test_while_loop_and_conditional_and_dynamic_update_slice() -> None:
    text = """HloModule w
cond { p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT c = pred[] compare(i, n), direction=LT }
body { p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[64] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  x = f32[] convert(j)
  x1 = f32[1] reshape(x)
  u = f32[64] dynamic-update-slice(v, x1, i)
  ROOT t = (s32[], f32[64]) tuple(j, u) }
neg { x = f32[64] parameter(0)
  ROOT n = f32[64] negate(x) }
same { x = f32[64] parameter(0)
  ROOT c = f32[64] copy(x) }
ENTRY e { x = f32[64] parameter(0)
  flag = pred[] parameter(1)
  z = s32[] constant(0)
  t = (s32[], f32[64]) tuple(z, x)
  r = (s32[], f32[64]) while(t), condition=cond, body=body
  v = f32[64] get-tuple-element(r), index=1
  ROOT c = f32[64] conditional(flag, v, v), true_computation=neg, false_computation=same }"""
    x = np.zeros(64, np.float32)
    executable = _gpu().compile(parse_module(text))
    expected = x.copy()
    expected[:10] = np.arange(1, 11)
    np.testing.assert_array_equal(executable(x, np.bool_(False)), expected)
    np.testing.assert_array_equal(executable(x, np.bool_(True)), -expected)


def test_benchmark_workloads_agree_with_numpy() -> None:
    from benchmarks.workloads import WORKLOADS

    for name, make in WORKLOADS.items():
        workload = make(64)
        try:
            executable = _gpu().compile(workload.build())
        except UnimplementedError:
            continue  # conv2d and sort: refused (test_gpu_compile.BENCHMARK_REFUSED)
        got = executable(*workload.inputs)
        want = workload.numpy_fn(*workload.inputs)
        np.testing.assert_allclose(
            np.asarray(got, np.float64), np.asarray(want, np.float64),
            rtol=max(workload.rtol, 1e-4), atol=max(workload.atol, 1e-4), err_msg=name,
        )  # fmt: skip


def test_allocator_reuses_memory_across_calls() -> None:
    executable = _gpu().compile(
        parse_module("HloModule m\nENTRY e { x = f32[1000000] parameter(0)\n"
                     "  y = f32[1000000] exponential(x)\n  ROOT z = f32[1000000] add(y, x) }")
    )  # fmt: skip
    x = np.ones(1_000_000, np.float32)
    executable(x)
    device = executable._executable.device
    before = device.allocator.stats()
    for _ in range(5):
        executable(x)
    after = device.allocator.stats()
    assert after["bytes_reserved"] == before["bytes_reserved"]
    assert after["cache_hits"] > before["cache_hits"]
