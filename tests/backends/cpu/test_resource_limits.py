"""Buffers no machine could hold are refused with ResourceExhaustedError before any
allocation, at compile time, naming the buffer and its size."""

import pytest

import xlapy
from xlapy.errors import ResourceExhaustedError

_HUGE_RESULT = """HloModule big
ENTRY e { c = f32[] constant(1)
  ROOT b = f32[100000000000000] broadcast(c), dimensions={} }"""

_HUGE_TEMPORARY = """HloModule big_temporary
ENTRY e { c = f32[] constant(1)
  b = f32[100000000000000] broadcast(c), dimensions={}
  s = f32[100000000000000] sort(b), dimensions={0}, to_apply=lt
  ROOT r = f32[1] slice(s), slice={[0:1]} }
lt { x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=LT }"""


def test_a_result_larger_than_memory_is_refused_by_name() -> None:
    with pytest.raises(ResourceExhaustedError, match=r"result 0 \(f32\[100000000000000\]"):
        xlapy.local_client("cpu").compile(xlapy.hlo.parse_module(_HUGE_RESULT))


def test_temporaries_larger_than_memory_are_refused() -> None:
    with pytest.raises(ResourceExhaustedError, match="arena"):
        xlapy.local_client("cpu").compile(xlapy.hlo.parse_module(_HUGE_TEMPORARY))
