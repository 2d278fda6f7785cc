"""The Shardy dialect (``sdy``) as JAX 0.10 writes it: meshes, shardings, and the ops.

Attributes (the bodies inside ``#sdy.name<...>``)::

    mesh        ::= '[' ('"x"' '=' int),* ']' [',' 'device_ids' '=' '[' int,* ']']
    sharding    ::= (@mesh | 'mesh' '<' mesh '>' | '<' mesh '>') ',' '[' dim,* ']'
                    [',' 'replicated' '=' axes] [',' 'unreduced' '=' axes]
    dim         ::= '{' (axis,* [',' '?'] | '?') '}' ['p' int]
    axis        ::= '"x"' [':' '(' int ')' int]
    manual_axes ::= '#sdy<manual_axes' '{' '"x"',* '}' '>'

Ops (pretty forms; their generic forms need nothing here)::

    sdy.mesh @name = <mesh> [attr-dict]                       (module level)
    %r = sdy.sharding_constraint %x <sharding> [attr-dict] : T
    %r = sdy.reshard %x <sharding> [attr-dict] : T
    %r = sdy.propagation_barrier %x allowed_direction=DIR [attr-dict] : T
    sdy.sharding_group %x group_id=N [attr-dict] : T
    %r:n = sdy.manual_computation(%a, ...) in_shardings=[<sharding>, ...]
           out_shardings=[...] manual_axes={"x", ...} (%arg: T, ...) { ... sdy.return ... }
           : (T, ...) -> (U, ...)
"""

from __future__ import annotations

from typing import Any

from ..ast import SdyAxis, SdyDim, SdyManualAxes, SdyMesh, SdySharding
from .lexer import INTEGER

# -- attributes -----------------------------------------------------------------------------------


def parse_mesh_body(p: Any) -> SdyMesh:
    """``["x"=2, "y"=4], device_ids=[...]`` (after the '<')."""
    p.expect("[", "'[' starting the mesh axes")
    axes: list[tuple[str, int]] = []
    if not p.eat("]"):
        while True:
            name = p.string("a mesh axis name")
            p.expect("=", "'=' and the axis size")
            axes.append((name, p.integer("an axis size")))
            if not p.eat(","):
                break
        p.expect("]", "',' or ']' in the mesh axes")
    device_ids: tuple[int, ...] = ()
    if p.eat(","):
        p.expect_word("device_ids")
        p.expect("=")
        p.expect("[")
        ids = []
        if not p.eat("]"):
            while True:
                ids.append(p.integer("a device id"))
                if not p.eat(","):
                    break
            p.expect("]", "',' or ']' in device_ids")
        device_ids = tuple(ids)
    return SdyMesh(tuple(axes), device_ids)


def _parse_axis(p: Any) -> SdyAxis:
    name = p.string("a mesh axis name")
    if p.eat(":"):
        p.expect("(", "'(' and the sub-axis pre-size")
        pre = p.integer("a sub-axis pre-size")
        p.expect(")")
        return SdyAxis(name, pre, p.integer("a sub-axis size"))
    return SdyAxis(name)


def _parse_axes(p: Any) -> tuple[SdyAxis, ...]:
    p.expect("{", "'{' starting a list of axes")
    axes = []
    if not p.eat("}"):
        while True:
            axes.append(_parse_axis(p))
            if not p.eat(","):
                break
        p.expect("}", "',' or '}' in a list of axes")
    return tuple(axes)


def _parse_dim(p: Any) -> SdyDim:
    p.expect("{", "'{' starting a dimension's sharding")
    axes: list[SdyAxis] = []
    closed = True
    if not p.eat("}"):
        while True:
            if p.eat("?"):
                closed = False
                break
            axes.append(_parse_axis(p))
            if not p.eat(","):
                break
        p.expect("}", "',' or '}' in a dimension's sharding")
    priority = None
    if p.text.startswith("p", p.pos, p.end):  # no space: `}p1`
        p.pos += 1
        priority = p.integer("a sharding priority")
    return SdyDim(tuple(axes), closed, priority)


def parse_sharding_body(p: Any) -> SdySharding:
    """``@mesh, [{"x"}, {}], replicated={"y"}`` (after the '<')."""
    mesh: str | SdyMesh
    if p.at("@"):
        mesh = p.parse_symbol().name
    else:
        p.eat_word("mesh")
        p.expect("<", "a mesh: @name or <[...]>")
        mesh = parse_mesh_body(p)
        p.expect(">", "'>' closing the mesh")
    p.expect(",", "',' and the dimension shardings")
    p.expect("[", "'[' starting the dimension shardings")
    dims = []
    if not p.eat("]"):
        while True:
            dims.append(_parse_dim(p))
            if not p.eat(","):
                break
        p.expect("]", "',' or ']' in the dimension shardings")
    extra: dict[str, tuple[SdyAxis, ...]] = {}
    while p.eat(","):
        pos = p.skip()
        word = p.bare_id("replicated= or unreduced=")
        if word not in ("replicated", "unreduced"):
            raise p.error(f"expected replicated= or unreduced=, found {word!r}", pos)
        p.expect("=")
        extra[word] = _parse_axes(p)
    return SdySharding(mesh, tuple(dims), extra.get("replicated", ()), extra.get("unreduced", ()))


def _sharding_list(p: Any) -> list[SdySharding]:
    p.expect("[", "'[' starting a list of shardings")
    out = []
    if not p.eat("]"):
        while True:
            p.expect("<", "'<' starting a sharding")
            out.append(parse_sharding_body(p))
            p.expect(">", "'>' closing a sharding")
            if not p.eat(","):
                break
        p.expect("]", "',' or ']' in a list of shardings")
    return out


def _mesh_special(p: Any, name: str) -> SdyMesh:
    return parse_mesh_body(p)


def _sharding_special(p: Any, name: str) -> SdySharding:
    return parse_sharding_body(p)


def _per_value_special(p: Any, name: str) -> list[SdySharding]:
    return _sharding_list(p)


SDY_ATTRIBUTE_BODIES = {
    "sdy.mesh": _mesh_special,
    "sdy.sharding": _sharding_special,
    "sdy.sharding_per_value": _per_value_special,
}


def parse_manual_axes_body(p: Any) -> SdyManualAxes:
    """``manual_axes{"x"}`` (after ``#sdy<``)."""
    p.expect_word("manual_axes")
    return SdyManualAxes(tuple(a.name for a in _parse_axes(p)))


# -- module level ------------------------------------------------------------------------------


def parse_mesh_op(p: Any) -> tuple[str, SdyMesh]:
    """``sdy.mesh @name = <[...]> {attrs}?`` or its generic form; (name, mesh)."""
    if p.at('"'):
        op = p.parse_operation()
        name, mesh = op.attributes.get("sym_name"), op.attributes.get("mesh")
        if not isinstance(name, str) or not isinstance(mesh, SdyMesh):
            raise p.error("a generic sdy.mesh needs sym_name and mesh = #sdy.mesh<...>")
        return name, mesh
    p.expect_word("sdy.mesh")
    name = p.parse_symbol().name
    p.expect("=", "'=' and the mesh")
    if p.at("#"):
        mesh = p.parse_attribute()
        if not isinstance(mesh, SdyMesh):
            raise p.error("expected a mesh #sdy.mesh<[...]>")
    else:
        p.expect("<", "'<' starting the mesh")
        mesh = parse_mesh_body(p)
        p.expect(">", "'>' closing the mesh")
    if p.at("{"):
        p.parse_attr_dict()  # stablehlo.mesh = {...}: the same mesh, spelled again
    p.skip_location()
    return name, mesh


# -- ops ----------------------------------------------------------------------------------------


def _trailing(p: Any, op: Any) -> None:
    """``{attrs}? : T`` with the result of the operand's type."""
    if p.at("{"):
        op.attributes.update(p.parse_attr_dict())
    p.expect(":", "':' and the type")
    t = p.parse_type()
    op.operand_types, op.result_types = [t], [t]


def _sharded_value(p: Any, op: Any) -> None:
    """``%x <@mesh, [...]> : T`` (sharding_constraint, reshard)."""
    op.operands.append(p.parse_use())
    p.expect("<", "'<' starting the sharding")
    op.attributes["sharding"] = parse_sharding_body(p)
    p.expect(">", "'>' closing the sharding")
    _trailing(p, op)


def _keyword_value(p: Any, op: Any, keyword: str, integer: bool) -> None:
    op.operands.append(p.parse_use())
    p.expect_word(keyword)
    p.expect("=")
    if integer:
        m = p.match(INTEGER)
        if m is None:
            raise p.error(f"expected an integer {keyword}, found {p.found()}")
        op.attributes[keyword] = int(m.group(0), 0)
    else:
        op.attributes[keyword] = p.bare_id(f"the {keyword}")


def _propagation_barrier(p: Any, op: Any) -> None:
    _keyword_value(p, op, "allowed_direction", integer=False)
    _trailing(p, op)


def _sharding_group(p: Any, op: Any) -> None:
    _keyword_value(p, op, "group_id", integer=True)
    _trailing(p, op)
    op.result_types = []


def _manual_computation(p: Any, op: Any) -> None:
    p.expect("(", "'(' and the operands")
    if not p.at(")"):
        op.operands.append(p.parse_use())
        while p.eat(","):
            op.operands.append(p.parse_use())
    p.expect(")", "',' or ')' in the operands")
    for key in ("in_shardings", "out_shardings"):
        p.expect_word(key)
        p.expect("=")
        op.attributes[key] = _sharding_list(p)
    p.expect_word("manual_axes")
    p.expect("=")
    op.attributes["manual_axes"] = SdyManualAxes(tuple(a.name for a in _parse_axes(p)))
    p.scopes.append({})  # the region's arguments are defined by the region below
    try:
        args = p.parse_block_arguments()
    finally:
        p.scopes.pop()
    op.regions = [p.parse_region(entry_args=args, dialect="sdy")]
    if p.at("{"):
        op.attributes.update(p.parse_attr_dict())
    p.expect(":", "':' and the signature")
    inputs, outputs = p.parse_function_type()
    op.operand_types, op.result_types = inputs, outputs


def _return(p: Any, op: Any) -> None:
    while p.at("%"):
        op.operands.append(p.parse_use())
        if not p.eat(","):
            break
    if p.at("{"):
        op.attributes.update(p.parse_attr_dict())
    types = p.parse_type_list() if p.eat(":") else []
    op.operand_types, op.result_types = types, []


SDY_FORMATS = {
    "sdy.sharding_constraint": _sharded_value,
    "sdy.reshard": _sharded_value,
    "sdy.propagation_barrier": _propagation_barrier,
    "sdy.sharding_group": _sharding_group,
    "sdy.manual_computation": _manual_computation,
    "sdy.return": _return,
}

__all__ = [
    "SDY_ATTRIBUTE_BODIES",
    "SDY_FORMATS",
    "parse_manual_axes_body",
    "parse_mesh_body",
    "parse_mesh_op",
    "parse_sharding_body",
]
