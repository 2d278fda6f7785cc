"""Collectives with native data movement on the CPU backend against the interpreter, over
random shapes, dimensions, element types and replica groups (equal and unequal sizes)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.cpu import CpuBackend, CpuOptions
from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions
from xlapy.hlo import parse_module

REDUCERS = {"add": "add", "max": "maximum", "mul": "multiply"}


def _both(text: str, per_device: list[list[np.ndarray]], replicas: int):
    literals = [[xlapy.Literal.from_value(a) for a in args] for args in per_device]
    results = []
    for backend, options in (
        (InterpreterBackend(), InterpreterOptions(replicas, 1, collective_timeout=10.0)),
        (CpuBackend(), CpuOptions(replicas, 1, collective_timeout=10.0)),
    ):
        executable = backend.compile(parse_module(text), options)
        results.append([r.to_numpy() for r in executable.execute_replicated(literals)])
    assert executable.fallback_ops == [], executable.fallback_ops
    return results


def _groups(draw, n: int) -> tuple[str, list[list[int]]]:
    order = draw(st.permutations(range(n)))
    cut = draw(st.integers(0, n - 1))
    groups = [list(order[:cut]), list(order[cut:])] if cut else [list(order)]
    text = "{" + ",".join("{" + ",".join(map(str, g)) + "}" for g in groups) + "}"
    return text, groups


@st.composite
def cases(draw):
    n = draw(st.integers(1, 4))
    groups_text, groups = _groups(draw, n)
    dims = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    dim = draw(st.integers(0, len(dims) - 1))
    dtype = draw(st.sampled_from(["f32", "s32", "f64", "u8"]))
    reducer = draw(st.sampled_from(sorted(REDUCERS)))
    return n, groups_text, groups, dims, dim, dtype, reducer


@settings(max_examples=25, deadline=None)
@given(cases(), st.sampled_from(["all-reduce", "all-gather", "reduce-scatter", "all-to-all"]))
def test_collectives_match_the_interpreter(case, op):
    n, groups_text, groups, dims, dim, dtype, reducer = case
    sizes = {len(g) for g in groups}
    if op in ("reduce-scatter", "all-to-all"):
        if len(sizes) != 1:  # every device's result must have one shape
            groups_text, groups, sizes = "{}", [list(range(n))], {n}
        dims[dim] *= sizes.pop()
    elif op == "all-gather" and len(sizes) != 1:
        groups_text, groups = "{}", [list(range(n))]
    g = len(groups[0])
    shape = f"{dtype}[{','.join(map(str, dims))}]"
    out_dims = list(dims)
    if op == "all-gather":
        out_dims[dim] *= g
    if op == "reduce-scatter":
        out_dims[dim] //= g
    out = f"{dtype}[{','.join(map(str, out_dims))}]"
    attributes = {
        "all-reduce": "to_apply=r",
        "all-gather": f"dimensions={{{dim}}}",
        "reduce-scatter": f"dimensions={{{dim}}}, to_apply=r",
        "all-to-all": f"dimensions={{{dim}}}",
    }[op]
    text = f"""HloModule c, replica_count={n}
r {{
  a = {dtype}[] parameter(0)
  b = {dtype}[] parameter(1)
  ROOT s = {dtype}[] {REDUCERS[reducer]}(a, b)
}}
ENTRY e {{
  x = {shape} parameter(0)
  ROOT y = {out} {op}(x), replica_groups={groups_text}, {attributes}
}}"""
    rng = np.random.default_rng(n * 100 + len(dims))
    np_type = {"f32": np.float32, "s32": np.int32, "f64": np.float64, "u8": np.uint8}[dtype]
    per_device = [[(rng.standard_normal(dims) * 4).astype(np_type)] for _ in range(n)]
    want, got = _both(text, per_device, n)
    for w, c in zip(want, got, strict=True):
        np.testing.assert_array_equal(c, w)


def test_large_all_reduce_runs_its_kernel_over_the_cores():
    text = """HloModule c, replica_count=2
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[300000] parameter(0)
  ROOT y = f32[300000] all-reduce(x), replica_groups={}, to_apply=r
}"""
    x = [[np.arange(300000, dtype=np.float32)], [np.ones(300000, np.float32)]]
    want, got = _both(text, x, 2)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], np.arange(300000, dtype=np.float32) + 1)
