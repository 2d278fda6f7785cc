"""Shardings: Shardy (``sdy``) and GSPMD (``mhlo.sharding``) as HLO shardings.

A program JAX shards says how with the Shardy dialect: meshes (``sdy.mesh``),
``sdy.sharding`` on arguments, results and ops, ``sdy.sharding_constraint`` /
``sdy.reshard`` on values, and ``sdy.manual_computation`` (``shard_map``) around
code that sees one shard. Older exporters write GSPMD: ``mhlo.sharding``
strings in HLO syntax and ``@Sharding`` custom calls. Both become what XLA's
own exporter makes of them, so that a partitioner can read them later:

* a sharding attribute -> the instruction's ``sharding={...}`` (a parameter,
  the op's result; a function result -> the root, through a copy where the
  returned value already has a sharding of its own);
* ``sharding_constraint`` / ``reshard`` -> ``custom-call "Sharding"`` with it;
* ``manual_computation`` -> per operand ``Sharding`` (the global sharding) and
  ``SPMDFullToShardShape`` (``sharding={manual}``, or the free axes tiled with a
  manual subgroup), the body inlined on the local values, then ``Sharding``
  (manual) and ``SPMDShardToFullShape`` (the global sharding) per result;
* ``propagation_barrier`` and ``sharding_group`` only guide propagation: dropped.

The conversion (:func:`op_sharding`): the tile of dimension ``d`` is the product
of its axes' sizes; the device order is the mesh's (iota, or ``device_ids``)
transposed to the axes in the order the dimensions name them, then the manual
axes (a ``manual`` subgroup), then the axes nobody names (a ``replicated``
subgroup); axes of size 1 play no part. A mesh of one device gives
``{replicated}``, so on one device everything runs as before: the annotations
are identities that both backends skip.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import ops
from ...builder import XlaOp
from ...errors import InvalidArgumentError, UnimplementedError, XlaError
from ...hlo.attributes import parse_attribute
from ...opcode import HloOpcode
from ...shape import Shape
from ...xla_data import OpSharding, OpShardingType
from .. import ast
from .core import FUNCTION_ANNOTATORS, RESULT_ANNOTATORS, Ctx, lowering, shape_of_type
from .errors import invalid

ShardingValue = OpSharding | None


# -- conversion ----------------------------------------------------------------------------------


def _mesh(ctx_meshes: dict, sharding: ast.SdySharding, what: str) -> ast.SdyMesh:
    if isinstance(sharding.mesh, ast.SdyMesh):
        return sharding.mesh
    mesh = ctx_meshes.get(sharding.mesh)
    if mesh is None:
        known = ", ".join(f"@{n}" for n in ctx_meshes) or "none"
        raise InvalidArgumentError(
            f"{what}: the sharding names mesh @{sharding.mesh}, which the module does not "
            f"define (meshes: {known})"
        )
    return mesh


def op_sharding(
    sharding: ast.SdySharding, meshes: dict, what: str, manual: Sequence[str] = ()
) -> OpSharding:
    """The HLO sharding of a Shardy sharding; ``manual`` axes form a manual subgroup
    (and are taken out of the dimensions: the value is the local one)."""
    mesh = _mesh(meshes, sharding, what)
    names = [n for n, _ in mesh.axes]
    sizes = dict(mesh.axes)
    if not mesh.axes:
        if len(mesh.device_ids) == 1:
            return OpSharding.maximal(mesh.device_ids[0])
        return OpSharding.replicated()
    order: list[str] = []
    tiles = []
    for dim in sharding.dims:
        tile = 1
        for axis in dim.axes:
            if axis.pre_size is not None:
                raise UnimplementedError(
                    f'{what}: sub-axis "{axis.name}":({axis.pre_size}){axis.size} is not '
                    "supported yet (whole mesh axes only)"
                )
            if axis.name not in sizes:
                raise InvalidArgumentError(
                    f'{what}: axis "{axis.name}" is not an axis of the mesh ({", ".join(names)})'
                )
            if axis.name in manual:
                continue
            if sizes[axis.name] > 1:
                order.append(axis.name)
                tile *= sizes[axis.name]
        tiles.append(tile)
    manual_axes = [n for n in names if n in manual and sizes[n] > 1]
    named = set(order) | set(manual)
    rest = [n for n in names if n not in named and sizes[n] > 1]
    if not order and not manual_axes:
        return OpSharding.replicated()
    if not order and not rest:
        return OpSharding.manual()
    dims = list(tiles)
    subgroups = []
    if manual_axes:
        dims.append(math.prod(sizes[n] for n in manual_axes))
        subgroups.append(OpShardingType.MANUAL)
    if rest:
        dims.append(math.prod(sizes[n] for n in rest))
        subgroups.append(OpShardingType.REPLICATED)
    axes = [*order, *manual_axes, *rest]
    live = [n for n in names if sizes[n] > 1]
    perm = [live.index(n) for n in axes]
    replicate_last = subgroups == [OpShardingType.REPLICATED]
    last = () if replicate_last else tuple(subgroups)
    if mesh.device_ids and list(mesh.device_ids) != list(range(len(mesh.device_ids))):
        ids = np.asarray(mesh.device_ids).reshape([sizes[n] for n in names])
        ids = ids.reshape([sizes[n] for n in live])
        devices = ids.transpose(perm).reshape(-1).tolist()
        return OpSharding.tiled(
            dims, devices, last_tile_dim_replicate=replicate_last, last_tile_dims=last
        )
    return OpSharding.tiled(
        dims,
        iota_reshape_dims=[sizes[n] for n in live],
        iota_transpose_perm=perm,
        last_tile_dim_replicate=replicate_last,
        last_tile_dims=last,
    )


def sharding_of(value: Any, meshes: dict, what: str, count: int = 1) -> list[ShardingValue]:
    """One HLO sharding per value from an ``sdy.sharding`` / ``mhlo.sharding`` attribute
    (None for a value the attribute leaves open)."""
    if isinstance(value, ast.SdySharding):
        return [op_sharding(value, meshes, what)] * count
    if isinstance(value, list) and all(isinstance(v, ast.SdySharding) for v in value):
        if len(value) != count:
            raise InvalidArgumentError(
                f"{what}: {len(value)} shardings (sdy.sharding_per_value) for {count} values"
            )
        return [op_sharding(v, meshes, what) for v in value]
    if isinstance(value, str):
        try:
            parsed = parse_attribute(None, "sharding", value)
        except XlaError as e:
            raise InvalidArgumentError(f"{what}: mhlo.sharding {value!r}: {e}") from None
        assert isinstance(parsed, OpSharding)
        if count > 1 and parsed.type is OpShardingType.TUPLE:
            return list(parsed.tuple_shardings)
        return [parsed] * count
    raise InvalidArgumentError(
        f"{what}: a sharding is #sdy.sharding<...>, #sdy.sharding_per_value<[...]> or an "
        f'HLO sharding string such as "{{replicated}}", not {value!r}'
    )


def _attribute(attributes: dict) -> Any:
    for key in ("sdy.sharding", "mhlo.sharding"):
        if key in attributes:
            return attributes[key]
    return None


def _meshes(ctx: Ctx) -> dict:
    return ctx.program.module.attributes.get("sdy.meshes", {}) or {}


def _set(value: XlaOp, sharding: ShardingValue) -> None:
    if sharding is not None:
        value.instruction.set_attribute("sharding", sharding)


def _annotate_results(ctx: Ctx, op: ast.Operation, results: list[XlaOp], made: list) -> None:
    """An op's ``sdy.sharding`` / ``mhlo.sharding``: on the instruction(s) it made."""
    value = _attribute(op.attributes)
    if value is None or not results or op.name == "stablehlo.custom_call" and _is_gspmd(op):
        return
    shardings = sharding_of(value, _meshes(ctx), f"'{op.name}' at line {op.line}", len(results))
    made_ids = {id(i) for i in made}
    tuples = {id(r.instruction.operand(0)) for r in results
              if r.instruction.opcode is HloOpcode.GET_TUPLE_ELEMENT}  # fmt: skip
    if len(results) > 1 and len(tuples) == 1:
        source = results[0].instruction.operand(0)
        if id(source) in made_ids:
            leaves = [s or OpSharding.replicated() for s in shardings]
            source.set_attribute("sharding", OpSharding.tuple(leaves))
            return
    for result, sharding in zip(results, shardings, strict=True):
        if id(result.instruction) in made_ids:
            _set(result, sharding)


def _annotate_function(ctx: Ctx, function: ast.Function, params: list[XlaOp],
                       results: list[XlaOp]) -> list[XlaOp]:  # fmt: skip
    """Argument shardings on the parameters; result shardings on the returned values."""
    meshes = _meshes(ctx)
    for i, (param, attrs) in enumerate(zip(params, function.argument_attributes, strict=False)):
        value = _attribute(attrs)
        if value is not None:
            _set(param, sharding_of(value, meshes, f"@{function.name} argument {i}")[0])
    out = list(results)
    for i, attrs in enumerate(function.result_attributes[: len(out)]):
        value = _attribute(attrs)
        if value is None:
            continue
        (sharding,) = sharding_of(value, meshes, f"@{function.name} result {i}")
        instruction = out[i].instruction
        own = instruction.attribute("sharding")
        if instruction.opcode is HloOpcode.PARAMETER or own not in (None, sharding):
            out[i] = ops.Copy(out[i])  # the returned value keeps its own sharding
        _set(out[i], sharding)
    return out


RESULT_ANNOTATORS.append(_annotate_results)
FUNCTION_ANNOTATORS.append(_annotate_function)


# -- ops -------------------------------------------------------------------------------------------


def _is_gspmd(op: ast.Operation) -> bool:
    target = op.attributes.get("call_target_name")
    return getattr(target, "name", target) in GSPMD_TARGETS


GSPMD_TARGETS = frozenset({"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"})


def annotation(ctx: Ctx, target: str, value: XlaOp, shape: Shape, sharding: OpSharding) -> XlaOp:
    """``custom-call(value), custom_call_target=target, sharding=...`` of result ``shape``."""
    result = ops.CustomCall(ctx.builder, target, [value], shape)
    _set(result, sharding)
    return result


def lower_gspmd_call(ctx: Ctx, op: ast.Operation, target: str) -> list[XlaOp]:
    """``@Sharding`` / ``@SPMDFullToShardShape`` / ``@SPMDShardToFullShape`` with their
    ``mhlo.sharding``, kept as XLA keeps them."""
    operands = ctx.operands(op)
    if len(operands) != 1 or len(op.results) != 1:
        raise invalid(op, f"@{target} takes one operand and has one result")
    value = op.attributes.get("mhlo.sharding")
    sharding = (
        sharding_of(value, _meshes(ctx), f"@{target} at line {op.line}")[0]
        if value is not None
        else OpSharding.replicated()
    )
    return [annotation(ctx, target, operands[0], ctx.result_shape(op), sharding)]


@lowering("sdy.sharding_constraint", "sdy.reshard")
def _constraint(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (value,) = ctx.operands(op)
    sharding = op.attributes.get("sharding")
    if not isinstance(sharding, ast.SdySharding):
        raise invalid(op, "needs a sharding <@mesh, [...]>")
    converted = op_sharding(sharding, _meshes(ctx), f"'{op.name}' at line {op.line}")
    return [annotation(ctx, "Sharding", value, ctx.result_shape(op), converted)]


@lowering("sdy.propagation_barrier")
def _barrier(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    return ctx.operands(op)  # only steers sharding propagation


@lowering("sdy.sharding_group")
def _group(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    ctx.operands(op)  # the values must exist; the group only steers propagation
    return []


@lowering("sdy.manual_computation")
def _manual_computation(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    operands = ctx.operands(op)
    in_shardings = op.attributes.get("in_shardings") or []
    out_shardings = op.attributes.get("out_shardings") or []
    manual = op.attributes.get("manual_axes")
    axes = manual.axes if isinstance(manual, ast.SdyManualAxes) else ()
    if len(in_shardings) != len(operands) or len(out_shardings) != len(op.results):
        raise invalid(
            op,
            f"{len(in_shardings)} in_shardings for {len(operands)} operands and "
            f"{len(out_shardings)} out_shardings for {len(op.results)} results",
        )
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        raise invalid(op, "the body is one region of one block")
    block = op.regions[0].blocks[0]
    if len(block.arguments) != len(operands):
        raise invalid(op, f"the body takes {len(block.arguments)} values for {len(operands)}")
    meshes = _meshes(ctx)
    what = f"'{op.name}' at line {op.line}"
    body = Ctx(ctx.program, ctx.builder, ctx.function, parent=ctx)
    for value, sharding, (name, t) in zip(operands, in_shardings, block.arguments, strict=True):
        whole = annotation(ctx, "Sharding", value, value.shape, op_sharding(sharding, meshes, what))
        local = shape_of_type(t, op, f"body argument {name}")
        local_sharding = op_sharding(sharding, meshes, what, manual=axes)
        body.bind(name, annotation(ctx, "SPMDFullToShardShape", whole, local, local_sharding))
    returned = body.lower_block(block)
    if len(returned) != len(op.results):
        raise invalid(op, f"the body returns {len(returned)} values for {len(op.results)}")
    results = []
    for i, (value, sharding) in enumerate(zip(returned, out_shardings, strict=True)):
        local_sharding = op_sharding(sharding, meshes, what, manual=axes)
        inner = annotation(ctx, "Sharding", value, value.shape, local_sharding)
        full = op_sharding(sharding, meshes, what)
        results.append(
            annotation(ctx, "SPMDShardToFullShape", inner, ctx.result_shape(op, i), full)
        )
    return results


__all__ = ["GSPMD_TARGETS", "annotation", "lower_gspmd_call", "op_sharding", "sharding_of"]
