"""Custom calls to C functions, called straight from native code.

A target registered as a C function with the seed's ABI
``void f(void* out, void** in)`` (``API_VERSION_ORIGINAL``) is called with the
executable's buffers: ``in`` holds the addresses of copies of the operands
(in the arena, so a target that writes to its inputs changes nothing else, as
in the interpreter) and ``out`` the result's (a table of addresses for a tuple
result). No trip through Python. A Python target is a host callback: native code
calls it with views of the buffers (``fallback.emit_host_callback``). Status-returning
C ABIs and output-to-operand aliasing go through the interpreter's kernel (the
fallback); xlapy's built-in targets (jaxlib's LAPACK ``lapack_*_ffi``) call LAPACK
natively where ``registry.CUSTOM_CALL_EMITTERS`` has an emitter for them
(``linalg_lapack``, ``linalg_lapack_eig``) and fall back otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from ....custom_call import lookup_custom_call
from ....errors import NotFoundError
from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ....xla_data import CustomCallApiVersion
from ..ir_support import pointer_table
from ..llvm_types import I8_PTR, VOID, NotEmittable
from ..runtime import jit
from ..runtime.fallback import emit_host_callback
from .registry import CUSTOM_CALL_EMITTERS, thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode
_ORIGINAL = (
    CustomCallApiVersion.API_VERSION_ORIGINAL,
    CustomCallApiVersion.API_VERSION_UNSPECIFIED,
)


@thunk_emitter(Op.CUSTOM_CALL)
def _custom_call(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    name = instruction.custom_call_target or ""
    try:
        target = lookup_custom_call(name, "cpu")
    except NotFoundError:
        raise NotEmittable(f"custom-call target {name!r} has no cpu registration") from None
    version = CustomCallApiVersion(
        instruction.attribute("api_version", CustomCallApiVersion.API_VERSION_ORIGINAL)
    )
    if target.kind == "python":
        emit_host_callback(fe, instruction)
        return
    if target.kind == "builtin":
        # xlapy's own targets (jaxlib's lapack_*_ffi): native LAPACK calls where an emitter
        # exists (emit/linalg_lapack*), else the evaluator's kernel through the fallback.
        native = CUSTOM_CALL_EMITTERS.get(name)
        if native is None:
            raise NotEmittable(f"custom-call {name!r}: built-in target, no native emitter yet")
        native(fe, instruction)
        return
    if target.kind != "c" or version not in _ORIGINAL:
        raise NotEmittable(f"custom-call {name!r}: a {target.kind} target with {version.name}")
    if instruction.attribute("output_to_operand_aliasing"):
        raise NotEmittable("custom-call with output-to-operand aliasing")
    if any(o.shape.is_tuple for o in instruction.operands):
        raise NotEmittable("custom-call with tuple operands")
    symbol = f"xlapy_custom_call_{target.address:x}"
    jit.register_symbol(symbol, target.address)
    emit_c_call(fe, instruction, symbol)


def emit_c_call(fe: FunctionEmitter, instruction: HloInstruction, symbol: str) -> None:
    """Call the C function ``symbol`` with XLA's original custom-call signature,
    ``void f(void* out, void** ins)`` (the JIT's registered targets, and the external
    symbols of xlapy.aot's objects)."""
    function = fe.m.ir.globals.get(symbol)
    if function is None:
        function = ir.Function(
            fe.m.ir, ir.FunctionType(VOID, [I8_PTR, I8_PTR.as_pointer()]), symbol
        )
    b = fe.b
    # The target gets copies of its operands, as in the interpreter: a C function that
    # writes to its inputs must not change a value anything else (or the caller) reads.
    copies = []
    for operand, pointer in zip(
        instruction.operands, fe.operand_leaf_pointers(instruction), strict=True
    ):
        size = operand.shape.element_count() * operand.shape.element_type.byte_width
        copy = b.gep(fe.arena_base, [ir.Constant(ir.IntType(64), fe.m.reserve(size))])
        fe.m.memcpy(b, copy, pointer, size)
        copies.append(copy)
    ins = pointer_table(b, copies, "custom_call_in")
    outputs = fe.leaf_pointers(instruction)
    if instruction.shape.is_tuple:
        out = b.bitcast(pointer_table(b, outputs, "custom_call_out"), I8_PTR)
    elif outputs:
        out = outputs[0]
    else:
        out = ir.Constant(I8_PTR, None)
    b.call(function, [out, ins])
