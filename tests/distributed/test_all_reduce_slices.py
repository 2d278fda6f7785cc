"""The in-process all-reduce where every device folds a 1/N slice of the operands and
writes it to every member's results: bit-identical to the interpreter (whose fold runs in
group order) for sizes that do not split evenly into cache-line slices, tuples, subgroups
and several element types."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy.backends.cpu import CpuBackend, CpuOptions
from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions
from xlapy.hlo import parse_module

TYPES = {"f32": np.float32, "f64": np.float64, "s32": np.int32}


def _module(n: int, shapes: list[tuple[str, int]], groups: str, reducer: str) -> str:
    computations = []
    for t in sorted({t for t, _ in shapes}):
        computations.append(
            f"r_{t} {{\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n"
            f"  ROOT s = {t}[] {reducer}(a, b)\n}}"
        )
    params = [f"  x{i} = {t}[{c}] parameter({i})" for i, (t, c) in enumerate(shapes)]
    reduces = [
        f"  y{i} = {t}[{c}] all-reduce(x{i}), replica_groups={groups}, to_apply=r_{t}"
        for i, (t, c) in enumerate(shapes)
    ]
    tuple_shape = ", ".join(f"{t}[{c}]" for t, c in shapes)
    names = ", ".join(f"y{i}" for i in range(len(shapes)))
    body = "\n".join([*params, *reduces, f"  ROOT t = ({tuple_shape}) tuple({names})"])
    return (
        f"HloModule m, replica_count={n}\n" + "\n".join(computations) + f"\nENTRY e {{\n{body}\n}}"
    )


def _run_both(text: str, per_device: list[list[np.ndarray]], n: int) -> tuple[list, list]:
    literals = [[xlapy.Literal.from_value(a) for a in args] for args in per_device]
    out = []
    for backend, options in (
        (InterpreterBackend(), InterpreterOptions(n, 1, collective_timeout=10.0)),
        (CpuBackend(), CpuOptions(n, 1, collective_timeout=10.0)),
    ):
        executable = backend.compile(parse_module(text), options)
        out.append([r.to_numpy() for r in executable.execute_replicated(literals)])
    assert executable.fallback_ops == [], executable.fallback_ops
    return out[0], out[1]


@pytest.mark.parametrize(
    ("n", "groups", "shapes", "reducer"),
    [
        (3, "{}", [("f32", 1001)], "add"),
        (4, "{}", [("f32", 4099), ("s32", 77)], "add"),
        (4, "{{0,2},{1,3}}", [("f64", 531)], "add"),
        (2, "{}", [("f32", 70000)], "maximum"),
        (4, "{{3,1,0,2}}", [("f32", 200003)], "add"),  # parallel kernels, group out of order
    ],
)
def test_sliced_all_reduce_is_the_interpreters_bits(n, groups, shapes, reducer):
    rng = np.random.default_rng(n + len(shapes))
    per_device = [
        [(rng.standard_normal(c) * 1e3).astype(TYPES[t]) for t, c in shapes] for _ in range(n)
    ]
    want, got = _run_both(_module(n, shapes, groups, reducer), per_device, n)
    for device_want, device_got in zip(want, got, strict=True):
        for w, g in zip(device_want, device_got, strict=True):
            np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))
