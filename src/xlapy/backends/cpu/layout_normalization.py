"""Every buffer the native code touches is row-major: normalize the module's layouts.

Layouts change where elements sit in memory, never their values, so a module
computes the same with every array in the default layout, with one exception:
a ``bitcast`` reinterprets memory. A bitcast between plain (permutation)
layouts is rewritten first into the transposes and reshape that move the same
bytes; then every array shape loses its layout. The entry's declared layouts
are kept by the executable, which converts arguments and results at the
boundary (``Literal.relayout``), so callers see exactly the declared layouts.
"""

from __future__ import annotations

from ...errors import UnimplementedError
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...layout import Layout
from ...opcode import HloOpcode
from ...shape import Shape

Op = HloOpcode


def default_layout_shape(shape: Shape) -> Shape:
    if shape.is_tuple:
        return Shape.tuple([default_layout_shape(s) for s in shape.tuple_shapes])
    if shape.is_array:
        return shape.with_layout(Layout.default(shape.rank))
    return shape


def _is_default(shape: Shape) -> bool:
    layout = shape.layout
    return layout is None or (
        layout.is_plain and tuple(layout.minor_to_major) == tuple(reversed(range(shape.rank)))
    )


def _add(computation: object, opcode: Op, shape: Shape, operands: list) -> HloInstruction:
    return computation.add_instruction(HloInstruction(opcode, shape, operands))  # type: ignore[attr-defined]


def _reinterpret(
    instruction: HloInstruction, value: HloInstruction, dims: list[int]
) -> HloInstruction:
    """``value``'s bytes, in row-major order, as an array of the bitcast's element type
    with ``dims`` (reshapes around a bitcast-convert; XLA's bitcasts may change the
    element type when the byte size stays)."""
    computation = value.parent
    source, target = value.shape.element_type, instruction.shape.element_type
    if source == target:
        return _add(computation, Op.RESHAPE, Shape.array(target, dims), [value])
    if source.bit_width % 8 or target.bit_width % 8:
        raise UnimplementedError(
            f"bitcast {instruction.name} from {instruction.operand(0).shape} to "
            f"{instruction.shape} reinterprets sub-byte elements"
        )
    n = value.shape.element_count()
    flat = _add(computation, Op.RESHAPE, Shape.array(source, [n]), [value])
    if source.bit_width == target.bit_width:
        converted = _add(computation, Op.BITCAST_CONVERT, Shape.array(target, [n]), [flat])
    elif source.bit_width > target.bit_width:
        ratio = source.bit_width // target.bit_width
        split = _add(computation, Op.BITCAST_CONVERT, Shape.array(target, [n, ratio]), [flat])
        converted = _add(computation, Op.RESHAPE, Shape.array(target, [n * ratio]), [split])
    else:
        ratio = target.bit_width // source.bit_width
        rows = _add(computation, Op.RESHAPE, Shape.array(source, [n // ratio, ratio]), [flat])
        converted = _add(computation, Op.BITCAST_CONVERT, Shape.array(target, [n // ratio]), [rows])
    return _add(computation, Op.RESHAPE, Shape.array(target, dims), [converted])


def _rewrite_bitcast(instruction: HloInstruction) -> None:
    operand = instruction.operand(0)
    source, target = operand.shape, instruction.shape
    if _is_default(source) and _is_default(target):
        if source.element_type == target.element_type:
            instruction.opcode = Op.RESHAPE
            return
        value = _reinterpret(instruction, operand, list(target.dimensions))
        instruction.parent.replace_instruction(instruction, value)
        return
    for shape in (source, target):
        if shape.layout is not None and not shape.layout.is_plain:
            raise UnimplementedError(
                f"bitcast {instruction.name} between tiled layouts ({source} -> {target}) "
                "is not supported by the CPU backend"
            )
    computation = instruction.parent
    in_order = (
        source.layout.major_to_minor if source.layout is not None else tuple(range(source.rank))
    )
    physical = HloInstruction(
        Op.TRANSPOSE,
        Shape.array(source.element_type, [source.dimensions[d] for d in in_order]),
        [operand],
        attributes={"dimensions": tuple(in_order)},
    )
    computation.add_instruction(physical)
    out_order = (
        target.layout.major_to_minor if target.layout is not None else tuple(range(target.rank))
    )
    reshaped = _reinterpret(instruction, physical, [target.dimensions[d] for d in out_order])
    inverse = [out_order.index(d) for d in range(target.rank)]
    logical = HloInstruction(
        Op.TRANSPOSE,
        Shape.array(target.element_type, target.dimensions),
        [reshaped],
        attributes={"dimensions": tuple(inverse)},
    )
    computation.add_instruction(logical)
    computation.replace_instruction(instruction, logical)


def normalize_layouts(module: HloModule) -> None:
    """Rewrite layout-dependent bitcasts, then give every array the default layout."""
    for computation in module.computations:
        for instruction in list(computation.instructions):
            if instruction.opcode is Op.BITCAST and instruction.shape.is_array:
                _rewrite_bitcast(instruction)
    for computation in module.computations:
        for instruction in computation.instructions:
            instruction.shape = default_layout_shape(instruction.shape)
    module.entry_computation_layout = None
