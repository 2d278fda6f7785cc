"""HLO text of programs that several test files run, written once."""

from __future__ import annotations


def row_softmax(rows: int, cols: int, name: str = "softmax") -> str:
    """A row softmax of ``f32[rows, cols]`` as JAX writes it: a row max, exp of the
    difference and its row sum, a divide (three kernels on the CPU, one row group)."""
    return f"""HloModule {name}
max {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}}
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
ENTRY e {{
  x = f32[{rows},{cols}] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[{rows}] reduce(x, ninf), dimensions={{1}}, to_apply=max
  mb = f32[{rows},{cols}] broadcast(m), dimensions={{0}}
  d = f32[{rows},{cols}] subtract(x, mb)
  e = f32[{rows},{cols}] exponential(d)
  z = f32[] constant(0)
  s = f32[{rows}] reduce(e, z), dimensions={{1}}, to_apply=add
  sb = f32[{rows},{cols}] broadcast(s), dimensions={{0}}
  ROOT r = f32[{rows},{cols}] divide(e, sb)
}}"""


__all__ = ["row_softmax"]
