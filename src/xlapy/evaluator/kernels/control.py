"""Evaluator kernels of the control family: ops that call computations or wrap other ops.

while, conditional, call and fusion evaluate their called computations with
``ctx.call``. custom-call runs a registered target (a user's registration first,
else a built-in one, which gets the context, the instruction and the operands:
jaxlib's LAPACK targets in ``linalg_lapack*``): a Python function gets the
operands as numpy arrays, a C function gets XLA:CPU's calling convention
(``void f(void* out, const void** in)``, with tuples passed as arrays of
pointers to their elements, as XLA's custom_call.md describes). The async and
copy wrappers have nothing to wait for in an evaluator, so they compute at
the start and hand the result over at the done.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ...custom_call import C_ABI, CustomCallTarget, lookup_custom_call
from ...errors import UnimplementedError
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ...shape import Shape
from ...xla_data import CustomCallApiVersion
from ..core import TOKEN, EvalContext, Token, Value, copy_value, kernel, value_of_shape

_PLATFORM = "interpreter"

# -- loops, branches and calls ----------------------------------------------------------------


@kernel(Op.WHILE)
def _while(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    (state,) = operands
    condition, body = instruction.attribute("condition"), instruction.attribute("body")
    while bool(ctx.call(condition, [state])):
        state = ctx.call(body, [state])
    return state


@kernel(Op.CONDITIONAL)
def _conditional(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """A pred picks true_computation (operand 1) or false_computation (operand 2); an
    s32 index picks its branch, any index outside [0, n) picking the last one."""
    selector = np.asarray(operands[0])
    branches = instruction.attribute("branch_computations")
    if branches is None:
        branches = [
            instruction.attribute("true_computation"),
            instruction.attribute("false_computation"),
        ]
        index = 0 if bool(selector) else 1
    else:
        branches = list(branches)
        index = int(selector)
        if not 0 <= index < len(branches):
            index = len(branches) - 1
    return ctx.call(branches[index], [operands[index + 1]])


@kernel(Op.CALL)
def _call(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return ctx.call(instruction.attribute("to_apply"), operands)


@kernel(Op.FUSION)
def _fusion(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return ctx.call(instruction.attribute("calls"), operands)


# -- asynchronous wrappers ------------------------------------------------------------------


def _zeros_like_shape(shape: Shape) -> Value:
    if shape.is_tuple:
        return tuple(_zeros_like_shape(s) for s in shape.tuple_shapes)
    if shape.is_token:
        return TOKEN
    return np.zeros(shape.dimensions, shape.element_type.dtype)


def _async_run(
    ctx: EvalContext, instruction: HloInstruction, bound: tuple, state_shape: Shape
) -> Value:
    """The async state ((operands...), output, context...) with the output computed if it can be.

    The output is computed as soon as every parameter of the wrapped
    computation is bound (usually at the start); until then it is ``()``.
    """
    computation = instruction.attribute("calls")
    parts = state_shape.tuple_shapes
    output: Value = ()
    if computation is not None and len(bound) == len(computation.parameters):
        output = ctx.call(computation, list(bound))
    context = tuple(_zeros_like_shape(s) for s in parts[2:])
    return (bound, output, *context)


@kernel(Op.ASYNC_START)
def _async_start(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return _async_run(ctx, instruction, tuple(operands), instruction.shape)


@kernel(Op.ASYNC_UPDATE)
def _async_update(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    state, *more = operands
    if not more:
        return state
    bound = tuple(state[0]) + tuple(more)
    if not _unbound(state[1]):
        return (bound, *state[1:])
    return _async_run(ctx, _start_of(instruction), bound, instruction.shape)


@kernel(Op.ASYNC_DONE)
def _async_done(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    (state,) = operands
    output = state[1]
    if _unbound(output) and not _is_empty_tuple(instruction.shape):
        start = _start_of(instruction)
        output = ctx.call(start.attribute("calls"), list(state[0]))
    return output


def _unbound(output: Value) -> bool:
    return isinstance(output, tuple) and len(output) == 0


def _is_empty_tuple(shape: Shape) -> bool:
    return shape.is_tuple and not shape.tuple_shapes


def _start_of(instruction: HloInstruction) -> HloInstruction:
    """The async-start of an async-update/done chain (its ``calls`` may be omitted later on)."""
    current = instruction
    while current.opcode is not Op.ASYNC_START and current.attribute("calls") is None:
        current = current.operand(0)
    return current


@kernel(Op.COPY_START)
def _copy_start(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """(destination, source, u32[] context): the copy is done by the time anyone looks."""
    (x,) = operands
    return (copy_value(x), x, np.uint32(0))


@kernel(Op.COPY_DONE)
def _copy_done(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return operands[0][0]


# -- custom-call ---------------------------------------------------------------------------


@kernel(Op.CUSTOM_CALL)
def _custom_call(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    target = lookup_custom_call(instruction.custom_call_target or "", _PLATFORM)
    if target.kind == "builtin":
        # xlapy's own targets (custom_call.register_builtin_target) see the instruction.
        if target.check is not None:
            target.check(instruction)
        return target.function(ctx, instruction, operands)  # type: ignore[misc]
    if target.kind == "python":
        result = target.function(*(_read_only(v) for v in operands))  # type: ignore[misc]
        return value_of_shape(
            result, instruction.shape, f"custom-call {instruction.name} ({target.name!r}) result"
        )
    return _call_c_target(ctx, instruction, target, operands)


def _read_only(value: Value) -> Value:
    """A view the target cannot write through: operands may be shared with other users."""
    if isinstance(value, tuple):
        return tuple(_read_only(v) for v in value)
    if isinstance(value, Token):
        return value
    view = np.asarray(value).view()
    view.flags.writeable = False
    return view


class _Buffers:
    """Native buffers for one C call; keeps everything alive while the call runs."""

    def __init__(self) -> None:
        self.keep: list[Any] = []

    def operand(self, value: Value) -> int | None:
        """The address of a C-contiguous copy (an array of element pointers for a tuple)."""
        if isinstance(value, tuple):
            return self._pointer_array([self.operand(v) for v in value])
        if isinstance(value, Token):
            return None
        array = np.array(value, copy=True, order="C")
        self.keep.append(array)
        return array.ctypes.data

    def result(self, shape: Shape) -> tuple[int | None, Any]:
        """The address to write ``shape`` into, and the numpy arrays that will hold it."""
        if shape.is_tuple:
            parts = [self.result(s) for s in shape.tuple_shapes]
            return self._pointer_array([p for p, _ in parts]), tuple(a for _, a in parts)
        if shape.is_token:
            return None, TOKEN
        array = np.zeros(shape.dimensions, shape.element_type.dtype)
        self.keep.append(array)
        return array.ctypes.data, array

    def _pointer_array(self, addresses: list[int | None]) -> int:
        table = (ctypes.c_void_p * max(len(addresses), 1))(*addresses)
        self.keep.append(table)
        return ctypes.addressof(table)


def _leaf(value: Value, index: Any) -> Any:
    for i in index:
        value = value[i]
    return value


# XLA:CPU's signatures per api_version (status: an XlaCustomCallStatus*).
_STATUS_SIGNATURE = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p
)
_UNIFIED_SIGNATURE = ctypes.CFUNCTYPE(
    None,
    ctypes.c_void_p,
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.c_char_p,
    ctypes.c_size_t,
    ctypes.c_void_p,
)
_STATUS_BYTES = 64


def _call_c_target(
    ctx: EvalContext, instruction: HloInstruction, target: CustomCallTarget, operands: list[Value]
) -> Value:
    """Call a C target with copies of the operands and return what it wrote.

    With a status-returning api_version the function also gets a zeroed
    status block; a function that writes to it (XlaCustomCallStatusSetFailure)
    fails the op. The interpreter cannot read XLA's message from it, only that
    it was set.
    """
    version = CustomCallApiVersion(
        instruction.attribute("api_version", CustomCallApiVersion.API_VERSION_ORIGINAL)
    )
    buffers = _Buffers()
    in_addresses = [buffers.operand(v) for v in operands]
    ins = (ctypes.c_void_p * max(len(in_addresses), 1))(*in_addresses)
    out, result = buffers.result(instruction.shape)
    for alias in instruction.attribute("output_to_operand_aliasing", ()) or ():
        # The output shares the operand's buffer in XLA, so it starts out holding its data.
        target_leaf = _leaf(result, alias.output_shape_index)
        target_leaf[...] = _leaf(operands[alias.operand_index], alias.operand_shape_index)
    status = ctypes.create_string_buffer(_STATUS_BYTES)
    address = target.address
    if version in (
        CustomCallApiVersion.API_VERSION_ORIGINAL,
        CustomCallApiVersion.API_VERSION_UNSPECIFIED,
    ):
        C_ABI(address)(out, ins)
    elif version is CustomCallApiVersion.API_VERSION_STATUS_RETURNING:
        _STATUS_SIGNATURE(address)(out, ins, ctypes.addressof(status))
    elif version is CustomCallApiVersion.API_VERSION_STATUS_RETURNING_UNIFIED:
        opaque = str(instruction.attribute("backend_config", "") or "").encode()
        _UNIFIED_SIGNATURE(address)(out, ins, opaque, len(opaque), ctypes.addressof(status))
    else:
        raise UnimplementedError(
            f"custom-call {instruction.name}: C target {target.name!r} with {version.name} "
            f"is not supported by the interpreter; use API_VERSION_ORIGINAL, "
            f"API_VERSION_STATUS_RETURNING(_UNIFIED) or register a Python target"
        )
    if any(status.raw):
        raise ctx.fail(
            instruction, f"custom-call target {target.name!r} reported a failure through its status"
        )
    return result
