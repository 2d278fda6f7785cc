"""Row-blocked execution of row-local kernel chains (row_groups): the same kernels run
block of rows by block of rows must give bit-identical results to running them one after
the other, and agree with the interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.cpu.emit import row_groups
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module
from xlapy.testing.differential import check_program
from xlapy.testing.random_programs import programs

SOFTMAX = """HloModule s
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[ROWS,COLS] parameter(0)
  g = f32[COLS] parameter(1)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  m = f32[ROWS] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[ROWS,COLS] broadcast(m), dimensions={0}
  d = f32[ROWS,COLS] subtract(x, mb)
  ex = f32[ROWS,COLS] exponential(d)
  s = f32[ROWS] reduce(ex, zero), dimensions={1}, to_apply=add
  sb = f32[ROWS,COLS] broadcast(s), dimensions={0}
  gb = f32[ROWS,COLS] broadcast(g), dimensions={1}
  q = f32[ROWS,COLS] divide(ex, sb)
  ROOT y = f32[ROWS,COLS] multiply(q, gb)
}"""


def _compile(text: str):
    """Compiled afresh (not from the compile cache, whose key ignores row_groups' knobs)."""
    options = xlapy.CompileOptions(backend_options={"cache": False})
    return xlapy.local_client("cpu").compile(parse_module(text), options)


@pytest.fixture
def grouped(monkeypatch):
    """Row groups for any size, in blocks of a few rows, counting the groups formed."""
    formed = []
    original = row_groups._composite

    def spy(fe, recorded, rows, block):
        formed.append((len(recorded), rows, block))
        return original(fe, recorded, rows, block)

    monkeypatch.setattr(row_groups, "MIN_WORK", 0)
    monkeypatch.setattr(row_groups, "CACHE_BYTES", 96)
    monkeypatch.setattr(row_groups, "_composite", spy)
    return formed


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(2, 40), st.integers(2, 33), st.integers(0, 2**32 - 1))
def test_row_blocks_give_the_same_bits_as_whole_kernels(grouped, rows, cols, seed):
    text = SOFTMAX.replace("ROWS", str(rows)).replace("COLS", str(cols))
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((rows, cols)) * 5).astype(np.float32)
    g = rng.standard_normal(cols).astype(np.float32)
    grouped.clear()
    row_groups.MIN_WORK = 0
    with_groups = _compile(text)(x, g)
    assert grouped, "no row group was formed"
    row_groups.MIN_WORK = 1 << 62  # now none: the kernels run one after the other
    without = _compile(text)(x, g)
    row_groups.MIN_WORK = 0
    np.testing.assert_array_equal(with_groups, without)
    np.testing.assert_allclose(with_groups, interpret(text, x, g), rtol=2e-6, atol=1e-7)


def test_a_transpose_or_row_reduction_ends_the_group(grouped):
    text = """HloModule t
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,8] parameter(0)
  zero = f32[] constant(0)
  e = f32[8,8] exponential(x)
  t = f32[8,8] transpose(e), dimensions={1,0}
  c = f32[8] reduce(t, zero), dimensions={0}, to_apply=add
  cb = f32[8,8] broadcast(c), dimensions={1}
  ROOT y = f32[8,8] multiply(t, cb)
}"""
    x = np.random.default_rng(1).standard_normal((8, 8)).astype(np.float32)
    got = _compile(text)(x)
    np.testing.assert_allclose(got, interpret(text, x), rtol=2e-6)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(programs())
def test_random_programs_agree_with_row_groups_everywhere(grouped, program):
    check_program(program)
