"""Python custom-call targets on the CPU backend are host callbacks: native code calls the
target with read-only views of its buffers, and they are not fallbacks."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy.custom_call import register_custom_call, unregister_custom_call
from xlapy.hlo import parse_module

TEXT = """HloModule cb
ENTRY e {
  x = f32[3] parameter(0)
  y = f32[3] exponential(x)
  c = (f32[3], s32[]) custom-call(y, x), custom_call_target="xlapy.test/host_cb"
  r = f32[3] get-tuple-element(c), index=0
  ROOT out = f32[3] add(r, y)
}"""


@pytest.fixture
def target():
    seen = []

    def host(y, x):
        seen.append(y.flags.writeable)
        return (y * 2 + x, np.int32(len(seen)))

    register_custom_call("xlapy.test/host_cb", host)
    yield seen
    unregister_custom_call("xlapy.test/host_cb")


def test_python_target_is_a_host_callback_not_a_fallback(target):
    executable = xlapy.local_client("cpu").compile(parse_module(TEXT))
    assert executable.fallback_ops == []
    assert executable.host_callbacks == ["xlapy.test/host_cb"]
    x = np.array([0.0, 1.0, -2.0], np.float32)
    got = executable(x)
    np.testing.assert_allclose(got, 3 * np.exp(x) + x, rtol=1e-6)
    assert target == [False]  # operands are views the target cannot write through


def test_a_wrong_result_shape_from_the_target_is_reported(target):
    register_custom_call("xlapy.test/host_cb", lambda y, x: (np.zeros(4, np.float32), 0))
    executable = xlapy.local_client("cpu").compile(parse_module(TEXT))
    with pytest.raises(xlapy.errors.InvalidArgumentError, match="expected data of shape f32"):
        executable(np.zeros(3, np.float32))
    # the executable stays usable after the failed call
    register_custom_call("xlapy.test/host_cb", lambda y, x: (y, 1))
    np.testing.assert_allclose(executable(np.zeros(3, np.float32)), [2, 2, 2])


def test_sharding_annotations_are_identities_removed_before_codegen():
    text = """HloModule s
ENTRY e {
  x = f32[8,8] parameter(0)
  s = f32[8,8] custom-call(x), custom_call_target="Sharding", sharding={devices=[1,4]<=[4]}
  ROOT y = f32[8,8] add(s, s)
}"""
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    cpu = xlapy.local_client("cpu").compile(parse_module(text))
    assert cpu.fallback_ops == [] and cpu.host_callbacks == []
    np.testing.assert_array_equal(cpu(x), 2 * x)
    reference = xlapy.local_client("interpreter").compile(parse_module(text))
    np.testing.assert_array_equal(reference(x), 2 * x)
