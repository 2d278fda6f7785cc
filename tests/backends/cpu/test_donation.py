"""input_output_alias: a donated parameter's buffer receives the result, in place."""

from __future__ import annotations

import numpy as np

import xlapy
from xlapy.hlo import parse_module

ALIASED = """HloModule step, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY e {
  state = f32[1024] parameter(0)
  delta = f32[1024] parameter(1)
  scaled = f32[1024] multiply(delta, delta)
  ROOT next = f32[1024] add(state, scaled)
}"""


def compiled(text: str):
    return xlapy.local_client("cpu").compile(parse_module(text))


def test_the_donated_buffer_receives_the_result():
    executable = compiled(ALIASED)
    assert executable._executable.program.donated == {0: 0}
    state = np.arange(1024, dtype=np.float32)
    delta = np.full(1024, 2.0, np.float32)
    expected = state + delta * delta
    result = executable(state, delta)
    assert result is state  # no new buffer: the update happened in place
    np.testing.assert_array_equal(result, expected)
    np.testing.assert_array_equal(delta, 2.0)  # a parameter that is not donated is untouched


def test_a_read_only_donation_is_copied_instead():
    executable = compiled(ALIASED)
    state = np.arange(1024, dtype=np.float32)
    state.flags.writeable = False
    result = executable(state, np.ones(1024, np.float32))
    assert result is not state
    np.testing.assert_array_equal(state, np.arange(1024))
    np.testing.assert_array_equal(result, np.arange(1024) + 1)


def test_no_donation_when_the_parameter_is_read_after_the_result_is_made():
    text = """HloModule t, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY e {
  x = f32[8] parameter(0)
  n = f32[8] negate(x)
  ROOT r = (f32[8], f32[8]) tuple(n, x)
}"""
    executable = compiled(text)
    assert executable._executable.program.donated == {}
    x = np.arange(8, dtype=np.float32)
    negated, same = executable(x)
    np.testing.assert_array_equal(negated, -np.arange(8))
    np.testing.assert_array_equal(same, np.arange(8))
    # The native code could not write in place, but the donated array still receives the
    # result afterwards: donation behaves the same whatever the program (Executable.__call__).
    assert negated is x


def test_dynamic_update_slice_of_a_donated_cache_writes_only_the_slice():
    text = """HloModule cache, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  cache = f32[64,16] parameter(0)
  row = f32[1,16] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT updated = f32[64,16] dynamic-update-slice(cache, row, i, z)
}"""
    executable = compiled(text)
    assert executable._executable.program.donated == {0: 0}
    cache = np.zeros((64, 16), np.float32)
    out = executable(cache, np.ones((1, 16), np.float32), np.int32(5))
    assert out is cache
    assert cache[5].tolist() == [1.0] * 16 and cache.sum() == 16
