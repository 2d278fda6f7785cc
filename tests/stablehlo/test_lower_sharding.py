"""Shardy (sdy) and GSPMD shardings imported as HLO shardings; typed-FFI attributes."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.backends import cpu
from xlapy.backends.interpreter import run
from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.hlo import parse_module as parse_hlo
from xlapy.hlo.attributes import parse_attribute
from xlapy.opcode import HloOpcode
from xlapy.passes import ShardingAnnotationRemover
from xlapy.stablehlo import parse_module, parse_program
from xlapy.stablehlo.ast import SdyMesh
from xlapy.stablehlo.lower.control_sharding import op_sharding
from xlapy.stablehlo.parse import parse_mlir
from xlapy.xla_data import CustomCallApiVersion, OpShardingType

jax = pytest.importorskip("jax")
jnp = jax.numpy
P = jax.sharding.PartitionSpec
MESH1 = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("x",))

X = np.arange(8.0, dtype=np.float32).reshape(4, 2)


def _sharding(text: str):
    return parse_attribute(None, "sharding", text)


def _same_sharding(a, b) -> bool:
    if a.type != b.type:
        return False
    if a.type is not OpShardingType.OTHER:
        return True
    return (
        tuple(a.tile_assignment_dimensions) == tuple(b.tile_assignment_dimensions)
        and np.array_equal(a.device_assignment(), b.device_assignment())
        and a.replicate_on_last_tile_dim == b.replicate_on_last_tile_dim
        and tuple(a.last_tile_dims) == tuple(b.last_tile_dims)
    )


def _custom_calls(module):
    return [
        i for c in module.computations for i in c.instructions
        if i.opcode is HloOpcode.CUSTOM_CALL
    ]  # fmt: skip


def _run_both(module, *args):
    """The interpreter, and the CPU after the annotations are removed."""
    interpreted = run(module, *args)
    ShardingAnnotationRemover().run(module)
    assert not [c for c in _custom_calls(module) if c.custom_call_target == "Sharding"]
    return interpreted, cpu.run(module, *args)


# -- conversion against JAX's own GSPMD shardings -------------------------------------------------


@pytest.mark.parametrize(
    "spec, dims",
    [
        (("x", None), '[{"x"}, {}]'),
        (("y", "x"), '[{"y"}, {"x"}]'),
        ((None, None), "[{}, {}]"),
        ((("x", "y"), None), '[{"x", "y"}, {}]'),
        ((("y", "x"), None), '[{"y", "x"}, {?}]'),
        (("y", None), '[{"y"}, {}p1]'),
    ],
)
def test_sdy_sharding_matches_jax_gspmd_sharding(spec, dims):
    mesh = jax.sharding.AbstractMesh((2, 2), ("x", "y"))
    expected = _sharding(str(jax.sharding.NamedSharding(mesh, P(*spec))._to_xla_hlo_sharding(2)))
    text = (
        'module {\n  sdy.mesh @m = <["x"=2, "y"=2]>\n'
        "  func.func @main(%a: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@m, "
        + dims
        + ">}) -> tensor<4x4xf32> {\n    return %a : tensor<4x4xf32>\n  }\n}"
    )
    hlo = parse_module(text)
    param = hlo.entry.parameters[0]
    assert _same_sharding(param.attribute("sharding"), expected)


def test_explicit_device_ids_and_maximal_mesh():
    mesh = SdyMesh((("x", 2), ("y", 2)), (3, 2, 1, 0))
    (module,) = parse_mlir(
        'module {\n  sdy.mesh @m = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>\n'
        "  sdy.mesh @one = <[], device_ids=[0]>\n}"
    )
    assert module.attributes["sdy.meshes"]["m"] == mesh
    (sharding,) = [
        op.attributes["sharding"]
        for op in parse_mlir(
            'module {\n sdy.mesh @m = <["x"=2]>\n func.func @main(%a: tensor<4xf32>) -> '
            'tensor<4xf32> {\n  %0 = sdy.sharding_constraint %a <@m, [{"x"}]> : tensor<4xf32>\n'
            "  return %0 : tensor<4xf32>\n }\n}"
        )[0]
        .functions[0]
        .body.blocks[0]
        .operations
        if op.name == "sdy.sharding_constraint"
    ]
    tiled = op_sharding(sharding.__class__("m", sharding.dims), {"m": mesh}, "test")
    # dimension 0 over x; y is a replicated subgroup; devices as device_ids say
    assert tiled.device_assignment().reshape(-1).tolist() == [3, 2, 1, 0]
    assert tiled.replicate_on_last_tile_dim
    maximal = op_sharding(sharding.__class__("one", ()), {"one": SdyMesh((), (0,))}, "test")
    assert maximal.type is OpShardingType.MAXIMAL


def test_unknown_mesh_and_axis_are_clear_errors():
    text = (
        'module {\n  sdy.mesh @m = <["x"=2]>\n'
        "  func.func @main(%a: tensor<4xf32> {sdy.sharding = #sdy.sharding<@other, [{}]>})"
        " -> tensor<4xf32> {\n    return %a : tensor<4xf32>\n  }\n}"
    )
    with pytest.raises(InvalidArgumentError, match="mesh @other.*meshes: @m"):
        parse_module(text)
    with pytest.raises(InvalidArgumentError, match='axis "z" is not an axis of the mesh'):
        parse_module(text.replace("@other, [{}]", '@m, [{"z"}]'))
    with pytest.raises(UnimplementedError, match="sub-axis"):
        parse_module(text.replace("@other, [{}]", '@m, [{"x":(1)2}]'))


# -- JAX programs on a one-device mesh ---------------------------------------------------------------


def _named_program():
    def f(a):
        b = jax.lax.with_sharding_constraint(a * 2, jax.sharding.NamedSharding(MESH1, P("x")))
        return b + 1

    return jax.jit(
        f,
        in_shardings=jax.sharding.NamedSharding(MESH1, P("x")),
        out_shardings=jax.sharding.NamedSharding(MESH1, P(None, "x")),
    ), f


def test_named_sharding_program_imports_shardings_and_runs():
    jitted, _ = _named_program()
    lowered = jitted.lower(X)
    text = lowered.as_text()
    assert "sdy.mesh" in text and "sdy.sharding_constraint" in text
    module = parse_module(text)
    param = module.entry.parameters[0]
    assert param.attribute("sharding").type is OpShardingType.REPLICATED  # a 1-device mesh
    (constraint,) = [c for c in _custom_calls(module) if c.custom_call_target == "Sharding"]
    assert constraint.attribute("sharding").type is OpShardingType.REPLICATED
    assert module.entry.root.attribute("sharding") is not None
    # the printed module reads back
    assert parse_hlo(module.to_text()).entry.parameters[0].attribute("sharding") is not None
    expected = np.asarray(jitted(X))
    for got in _run_both(module, X):
        np.testing.assert_array_equal(got, expected)


def test_shard_map_on_one_device_mesh_runs():
    # JAX writes no manual_computation for size-1 manual axes; the text is what it writes
    # for a 2-device mesh, with the mesh made 1 device (local shapes = global shapes).
    text = """
    module @jit_g attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
      sdy.mesh @mesh = <["x"=1]>
      func.func public @main(%arg0: tensor<4x2xf32>) -> (tensor<4x2xf32>) {
        %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<4x2xf32>) {
          %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
          %1 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4x2xf32>, tensor<f32>) -> tensor<2xf32>
          %2 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<2xf32>) -> tensor<4x2xf32>
          %3 = stablehlo.multiply %2, %arg1 : tensor<4x2xf32>
          sdy.return %3 : tensor<4x2xf32>
        } : (tensor<4x2xf32>) -> tensor<4x2xf32>
        %4 = sdy.propagation_barrier %0 allowed_direction=NONE : tensor<4x2xf32>
        %5 = sdy.reshard %4 <@mesh, [{}, {}]> : tensor<4x2xf32>
        return %5 : tensor<4x2xf32>
      }
    }"""
    module = parse_module(text)
    targets = [c.custom_call_target for c in _custom_calls(module)]
    assert targets == [
        "Sharding", "SPMDFullToShardShape", "Sharding", "SPMDShardToFullShape", "Sharding"
    ]  # fmt: skip
    expected = X.sum(axis=0, keepdims=True) * X
    for got in _run_both(module, X):
        np.testing.assert_allclose(got, expected)


SHARD_MAP_2 = """
module @jit_g attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<4x2xf32>) -> (tensor<4x2xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<2x2xf32>) {
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
      %2 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
      %3 = "stablehlo.all_reduce"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %6 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %6 : tensor<f32>
      }) : (tensor<1x2xf32>) -> tensor<1x2xf32>
      %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<2x2xf32>
      %5 = stablehlo.multiply %4, %arg1 : tensor<2x2xf32>
      sdy.return %5 : tensor<2x2xf32>
    } : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}"""


def test_shard_map_on_two_devices_becomes_xla_manual_region():
    # What jax 0.10 writes for shard_map(..., in_specs=P('x')) over a 2-device mesh.
    module = parse_module(SHARD_MAP_2)
    assert module.num_partitions == 2
    calls = _custom_calls(module)
    assert [c.custom_call_target for c in calls] == [
        "Sharding", "SPMDFullToShardShape", "Sharding", "SPMDShardToFullShape"
    ]  # fmt: skip
    global_sharding = _sharding("{devices=[2,1]<=[2]}")
    assert _same_sharding(calls[0].attribute("sharding"), global_sharding)
    assert calls[1].attribute("sharding").type is OpShardingType.MANUAL
    assert calls[1].shape.dimensions == (2, 2)
    assert calls[2].attribute("sharding").type is OpShardingType.MANUAL
    assert _same_sharding(calls[3].attribute("sharding"), global_sharding)
    assert calls[3].shape.dimensions == (4, 2)
    with pytest.raises(UnimplementedError, match="SPMD partitioner"):
        ShardingAnnotationRemover().run(module)


def test_partially_manual_sharding_has_a_manual_subgroup():
    mesh = {"m": SdyMesh((("x", 2), ("y", 2)))}
    (module,) = parse_mlir(
        'module {\n sdy.mesh @m = <["x"=2, "y"=2]>\n func.func @main(%a: tensor<4x4xf32>) -> '
        'tensor<4x4xf32> {\n  %0 = sdy.sharding_constraint %a <@m, [{"x"}, {"y"}]> : '
        "tensor<4x4xf32>\n  return %0 : tensor<4x4xf32>\n }\n}"
    )
    sharding = module.functions[0].body.blocks[0].operations[0].attributes["sharding"]
    local = op_sharding(sharding, mesh, "test", manual=("x",))
    assert tuple(local.tile_assignment_dimensions) == (1, 2, 2)
    assert tuple(local.last_tile_dims) == (OpShardingType.MANUAL,)
    np.testing.assert_array_equal(local.device_assignment().reshape(-1), [0, 2, 1, 3])


# -- GSPMD forms --------------------------------------------------------------------------------------


def test_gspmd_mhlo_sharding_attributes_and_sharding_calls():
    text = """
    func.func @main(%a: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,1]0,1}"}) -> (tensor<4x2xf32> {mhlo.sharding = "{replicated}"}) {
      %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
      %1 = stablehlo.add %0, %0 {mhlo.sharding = "{maximal device=0}"} : tensor<4x2xf32>
      return %1 : tensor<4x2xf32>
    }"""
    module = parse_program(text).hlo_module()
    param = module.entry.parameters[0]
    assert _same_sharding(param.attribute("sharding"), _sharding("{devices=[2,1]0,1}"))
    (call,) = _custom_calls(module)
    assert _same_sharding(call.attribute("sharding"), _sharding("{devices=[2,1]0,1}"))
    root = module.entry.root
    assert root.opcode is HloOpcode.COPY  # the add keeps its own (maximal) sharding
    assert root.operand(0).attribute("sharding").type is OpShardingType.MAXIMAL
    assert root.attribute("sharding").type is OpShardingType.REPLICATED
    for got in _run_both(module, X):
        np.testing.assert_array_equal(got, X + X)
    with pytest.raises(InvalidArgumentError, match="mhlo.sharding"):
        parse_program(text.replace("{maximal device=0}", "{bogus}")).hlo_module()


# -- typed-FFI attributes: the StableHLO import matches JAX's HLO text --------------------------------


def _ffi_calls(module) -> dict[str, dict]:
    keep = ("backend_config", "api_version", "frontend_attributes", "custom_call_target")
    return {
        c.custom_call_target: {k: c.attribute(k) for k in keep}
        for c in _custom_calls(module)
        if c.custom_call_target.startswith("lapack_")
    }


@pytest.mark.parametrize(
    "fn",
    [
        jnp.linalg.qr,
        jnp.linalg.eigh,
        jnp.linalg.svd,
        lambda a: jnp.linalg.solve(a, a),
        lambda a: jnp.linalg.eig(a)[0],
    ],
    ids=["qr", "eigh", "svd", "solve", "eig"],
)
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_typed_ffi_attributes_match_jax_hlo_text(fn, dtype):
    a = (np.eye(3) * 3 + 0.1).astype(dtype)
    lowered = jax.jit(fn).lower(a)
    from_hlo = _ffi_calls(parse_hlo(lowered.compiler_ir("hlo").as_hlo_text()))
    from_stablehlo = _ffi_calls(parse_module(lowered.as_text()))
    # the importer turns potrf/trsm into HLO's own ops; every other call matches exactly
    common = set(from_hlo) & set(from_stablehlo)
    assert common and set(from_stablehlo) <= set(from_hlo)
    for target in common:
        assert from_stablehlo[target] == from_hlo[target], target
        assert from_stablehlo[target]["api_version"] is CustomCallApiVersion.API_VERSION_TYPED_FFI
