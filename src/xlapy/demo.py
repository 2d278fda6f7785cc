"""``make demo``: a tour of what xlapy can do today.

Each section prints real results computed by the library; as the compiler
grows (builder, interpreter, CPU backend) this tour grows with it, ending in the
seed's axpy and a small network with timings.
"""

from __future__ import annotations

import time

import numpy as np

import xlapy
from xlapy import Layout, Literal, Shape, ops
from xlapy.layout import physical_positions
from xlapy.literal_text import format_literal


def _section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 66 - len(title)))


def shapes() -> None:
    _section("Shapes (HLO text in and out)")
    for text in [
        "f32[2,3]{1,0}",
        "(f32[2]{0}, s32[], token[])",
        "bf16[<=10,128]{1,0}",
        "f32[3,5]{1,0:T(2,2)}",
    ]:
        s = Shape.parse(text)
        kind = "tuple" if s.is_tuple else f"rank {s.rank}"
        print(f"  {str(s):32} {kind:8} {s.byte_size():4} bytes")
    print("  Shape.array(xlapy.BF16, [4, 8]) =", Shape.array(xlapy.BF16, [4, 8]))


def layouts() -> None:
    _section("Layouts (seed 001 and spec/tiled_layout.md)")
    letters = np.array([["a", "b", "c"], ["d", "e", "f"]])
    for layout in [Layout((1, 0)), Layout((0, 1)), Layout((0, 1), padded_dimensions=(3, 5))]:
        pos = physical_positions(letters.shape, layout)
        size = Shape.array(xlapy.F32, [2, 3], layout).byte_size() // 4
        buf = np.full(size, "0", dtype=object)
        buf[pos.ravel()] = letters.ravel()
        print(f"  {str(layout):20} -> {' '.join(buf)}")
    tiled = Layout((1, 0), tiles=[(2, 2)])
    print(
        f"  f32[3,5]{tiled}: element (2,3) at linear index "
        f"{xlapy.layout.linear_index((3, 5), tiled, (2, 3))}"
    )


def literals() -> None:
    _section("Literals (host values in physical order)")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    row = Literal.from_numpy(x)
    col = row.relayout(Layout((0, 1)))
    print(f"  {row.shape} physical: {row.data.tolist()}")
    print(f"  {col.shape} physical: {col.data.tolist()}")
    print(f"  same values: {row.equal(col)}")
    print(f"  text: {format_literal(row, oneline=True)}")
    special = Literal.from_numpy(np.array([np.nan, -np.inf, -0.0, 1.5], dtype=xlapy.BF16.dtype))
    print(f"  bf16 specials: {format_literal(special, oneline=True)}")
    t = Literal.from_value((1.5, [True, False], np.int8(-3)))
    print(f"  tuple: {format_literal(t, oneline=True)}")


def _indent(text: str) -> str:
    return "  " + text.strip().replace("\n", "\n  ")


def axpy() -> None:
    """The seed's tutorial: alpha * x + y, built, compiled and run through the client."""
    client = xlapy.local_client()
    _section(f"The seed's axpy with parameters, run on the {client.platform} client")
    b = xlapy.XlaBuilder("axpy")
    alpha = ops.Parameter(b, 0, Shape.parse("f32[]"), "alpha")
    x = ops.Parameter(b, 1, Shape.parse("f32[10]"), "x")
    y = ops.Parameter(b, 2, Shape.parse("f32[10]"), "y")
    ops.Add(ops.Mul(alpha, x), y)
    computation = b.build()
    print(f"  program shape: {computation.program_shape}")
    print(_indent(computation.to_hlo_text()))
    alpha_data = client.transfer_to_server(np.float32(2.0))
    x_data = client.transfer_to_server(np.arange(10, dtype=np.float32))
    y_data = client.transfer_to_server(np.ones(10, dtype=np.float32))
    result = client.execute_and_transfer(computation, [alpha_data, x_data, y_data])
    print(f"  execute_and_transfer(alpha=2, x=0..9, y=1) -> {format_literal(result)}")

    start = time.perf_counter()
    executable = client.compile(computation)
    compiled = time.perf_counter() - start
    args = (np.float32(0.5), np.arange(10, dtype=np.float32), np.zeros(10, np.float32))
    calls = 200
    start = time.perf_counter()
    for _ in range(calls):
        out = executable(*args)
    per_call = (time.perf_counter() - start) / calls
    print(
        f"  compiled once in {compiled * 1e3:.1f} ms; called {calls} times, "
        f"{per_call * 1e6:.0f} us per call -> {out.tolist()}"
    )

    _section("The seed's axpy with constants")
    b = xlapy.XlaBuilder("axpy_constants")
    alpha = ops.ConstantR0(b, 3.14, xlapy.F32)
    x = ops.ConstantR1(b, np.arange(10, dtype=np.float32))
    y = ops.ConstantR1(b, np.full(10, 5.0, dtype=np.float32))
    ops.Add(ops.Mul(alpha, x), y)
    computation = b.build()
    print(_indent(computation.to_hlo_text()))
    print(f"  execute_and_transfer() -> {format_literal(client.execute_and_transfer(computation))}")

    _section("Mistakes are caught when building, at the line that made them")
    b = xlapy.XlaBuilder("mistake")
    m = ops.Parameter(b, 0, Shape.parse("f32[2,3]"), "m")
    v = ops.Parameter(b, 1, Shape.parse("f32[2]"), "v")
    ops.Add(m, v)  # needs broadcast_dimensions=[0]
    try:
        b.build()
    except xlapy.InvalidArgumentError as e:
        print(f"  InvalidArgumentError: {e}")


def main() -> None:
    print(f"xlapy {xlapy.__version__}: XLA in Python")
    shapes()
    layouts()
    literals()
    axpy()


if __name__ == "__main__":
    main()
