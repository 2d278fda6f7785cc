"""ShardingAnnotationRemover: GSPMD annotations and Shardy's xla.sdy.* calls on one device."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.backends import cpu
from xlapy.backends.interpreter import run
from xlapy.errors import UnimplementedError
from xlapy.hlo import parse_module
from xlapy.opcode import HloOpcode
from xlapy.passes import ShardingAnnotationRemover

X = np.arange(8.0, dtype=np.float32).reshape(4, 2)

# What jax 0.10 writes for shard_map(g, in_specs=P('x'), out_specs=P('x')) over a 2-device
# mesh (g(a) = psum(sum(a, 0)) * a); MESH1 below is the same with the shard shapes of a
# 1-device mesh.
SHARD_MAP = """
HloModule jit_g, entry_computation_layout={(f32[4,2]{1,0})->f32[4,2]{1,0}}, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["x"=N]>}}

region_0.1 {
  reduce_sum.3 = f32[] parameter(0)
  reduce_sum.4 = f32[] parameter(1)
  ROOT reduce_sum.5 = f32[] add(reduce_sum.3, reduce_sum.4)
}

xla.sdy.manual_computation_body.3 {
  shard_map.2 = f32[L,2]{1,0} parameter(0)
  constant.1 = f32[] constant(0)
  reduce_sum.7 = f32[2]{0} reduce(shard_map.2, constant.1), dimensions={0}, to_apply=region_0.1
  mul.6 = f32[L,2]{1,0} broadcast(reduce_sum.7), dimensions={1}
  ROOT mul.7 = f32[L,2]{1,0} multiply(mul.6, shard_map.2)
}

ENTRY main.4 {
  a.1 = f32[4,2]{1,0} parameter(0)
  shard_map.5 = f32[L,2]{1,0} custom-call(a.1), custom_call_target="xla.sdy.GlobalToLocalShape", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.in_shardings="#sdy.sharding_per_value<[<@mesh, [{\\"x\\"}, {}]>]>",xla.sdy.manual_axes="#sdy<manual_axes{\\"x\\"}>"}
  shard_map.6 = f32[L,2]{1,0} call(shard_map.5), to_apply=xla.sdy.manual_computation_body.3, frontend_attributes={inlineable="false"}
  ROOT shard_map.7 = f32[4,2]{1,0} custom-call(shard_map.6), custom_call_target="xla.sdy.LocalToGlobalShape", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.manual_axes="#sdy<manual_axes{\\"x\\"}>",xla.sdy.out_shardings="#sdy.sharding_per_value<[<@mesh, [{\\"x\\"}, {}]>]>"}
}
"""
MESH1 = SHARD_MAP.replace("N]", "1]").replace("f32[L,", "f32[4,")
MESH2 = SHARD_MAP.replace("N]", "2]").replace("f32[L,", "f32[2,")


def _custom_calls(module) -> list[str]:
    return [
        i.custom_call_target for c in module.computations for i in c.instructions
        if i.opcode is HloOpcode.CUSTOM_CALL
    ]  # fmt: skip


def _removed(text: str):
    module = parse_module(text)
    assert ShardingAnnotationRemover().run(module)
    assert _custom_calls(module) == []
    return module


def test_shard_map_round_trip_calls_on_one_device_run_on_both_backends():
    expected = X.sum(axis=0, keepdims=True) * X
    module = _removed(MESH1)
    np.testing.assert_allclose(run(module, X), expected)
    np.testing.assert_allclose(cpu.run(module, X), expected)


def test_shard_map_over_two_devices_needs_the_partitioner():
    module = parse_module(MESH2)
    with pytest.raises(UnimplementedError, match=r"xla.sdy.GlobalToLocalShape.*f32\[2,2\]"):
        ShardingAnnotationRemover().run(module)


def test_func_result_sharding_barrier_and_group():
    text = """
HloModule m, entry_computation_layout={(f32[4,2]{1,0})->f32[4,2]{1,0}}

ENTRY main {
  a = f32[4,2]{1,0} parameter(0), sharding={replicated}
  c = f32[4,2]{1,0} custom-call(a), custom_call_target="Sharding", sharding={replicated}
  b = f32[4,2]{1,0} custom-call(c), custom_call_target="xla.sdy.PropagationBarrier", frontend_attributes={xla.sdy.allowed_direction="0"}
  g = () custom-call(b), custom_call_target="xla.sdy.ShardingGroup", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.sharding_group_id="0"}
  d = f32[4,2]{1,0} add(b, b)
  ROOT r = f32[4,2]{1,0} custom-call(d), custom_call_target="xla.sdy.FuncResultSharding", custom_call_has_side_effect=true
}
"""
    module = _removed(text)
    np.testing.assert_array_equal(run(module, X), X + X)
    np.testing.assert_array_equal(cpu.run(module, X), X + X)


def test_multi_operand_round_trip_call_becomes_a_tuple():
    text = """
HloModule m

ENTRY main {
  a = f32[4,2]{1,0} parameter(0)
  b = s32[3]{0} parameter(1)
  t = (f32[4,2]{1,0}, s32[3]{0}) custom-call(a, b), custom_call_target="xla.sdy.GlobalToLocalShape"
  x = f32[4,2]{1,0} get-tuple-element(t), index=0
  y = s32[3]{0} get-tuple-element(t), index=1
  ROOT r = (s32[3]{0}, f32[4,2]{1,0}) tuple(y, x)
}
"""
    module = _removed(text)
    b = np.array([1, 2, 3], np.int32)
    for got in (run(module, X, b), cpu.run(module, X, b)):
        np.testing.assert_array_equal(got[0], b)
        np.testing.assert_array_equal(got[1], X)


def test_jax_named_sharding_hlo_text_runs():
    jax = pytest.importorskip("jax")
    P = jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("x",))

    def f(a):
        b = jax.lax.with_sharding_constraint(a * 2, jax.sharding.NamedSharding(mesh, P("x")))
        return b + 1

    jitted = jax.jit(
        f,
        in_shardings=jax.sharding.NamedSharding(mesh, P("x")),
        out_shardings=jax.sharding.NamedSharding(mesh, P(None, "x")),
    )
    text = jitted.lower(X).compiler_ir("hlo").as_hlo_text()
    assert "xla.sdy.FuncResultSharding" in text
    module = _removed(text)
    expected = np.asarray(jitted(X))
    np.testing.assert_array_equal(run(module, X), expected)
    np.testing.assert_array_equal(cpu.run(module, X), expected)
