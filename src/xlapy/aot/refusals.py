"""What an ahead-of-time object cannot hold, refused with the op and the reason.

An object runs with no Python and no xlapy runtime, so a program that needs the host
(Python custom calls, infeed/outfeed, send/recv, collectives across devices), LAPACK
(cholesky, triangular-solve, jaxlib's LAPACK custom calls: the JIT calls scipy's), or an
op with no native emitter (which the JIT runs through the interpreter's kernel) is
refused before or right after code generation, naming the op.

C custom calls are the exception: they become calls to an external C symbol named
after the target, ``void target(void* out, const void** in)`` (the original custom
call ABI), which the application links. That holds whether or not the target is
registered in this process; a target registered as a Python function is refused.
"""

from __future__ import annotations

from typing import Any

from ..backends.cpu.emit.control_custom_call import emit_c_call
from ..custom_call import lookup_custom_call
from ..errors import NotFoundError, UnimplementedError
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..opcode import HloOpcode
from ..passes import COMPILER_TARGETS
from ..xla_data import CustomCallApiVersion

Op = HloOpcode
_WHY_FAMILY = {
    "transfers": "it moves data to or from the host (infeed/outfeed/send/recv need "
    "xlapy's runtime queues)",
    "collectives": "it exchanges data between devices (an object runs one device)",
}
_WHY_OP = {
    Op.CHOLESKY: "it runs through LAPACK (scipy's), which an object may not call; "
    "xlapy has no native loops for it yet",
    Op.TRIANGULAR_SOLVE: "it runs through LAPACK/BLAS (scipy's), which an object may not "
    "call; xlapy has no native loops for it yet",
}
_SINGLE_DEVICE_OK = frozenset({Op.REPLICA_ID, Op.PARTITION_ID})
_ORIGINAL_ABI = (
    CustomCallApiVersion.API_VERSION_ORIGINAL,
    CustomCallApiVersion.API_VERSION_UNSPECIFIED,
)


def _refuse(instruction: HloInstruction, why: str) -> UnimplementedError:
    return UnimplementedError(
        f"xlapy aot: {instruction.opcode.value} {instruction.name} "
        f"({instruction.shape}) cannot be compiled ahead of time: {why}"
    )


def _custom_call_problem(instruction: HloInstruction) -> str | None:
    name = instruction.custom_call_target or ""
    if name in COMPILER_TARGETS:
        return None  # a marker the pipeline rewrites away
    try:
        target = lookup_custom_call(name, "cpu")
    except NotFoundError:
        target = None
    if target is not None and target.kind == "python":
        return f"custom-call target {name!r} is a Python function, which needs the host"
    if target is not None and target.kind == "builtin":
        return (
            f"custom-call target {name!r} is one of xlapy's built-in targets (jaxlib's "
            "LAPACK calls), which run through scipy's LAPACK"
        )
    version = CustomCallApiVersion(
        instruction.attribute("api_version", CustomCallApiVersion.API_VERSION_ORIGINAL)
    )
    if version not in _ORIGINAL_ABI:
        return (
            f"custom-call target {name!r} uses {version.name}; an object calls C targets "
            "with the original ABI only (void f(void* out, const void** in))"
        )
    if instruction.attribute("output_to_operand_aliasing"):
        return f"custom-call target {name!r} aliases an output with an operand"
    if any(o.shape.is_tuple for o in instruction.operands):
        return f"custom-call target {name!r} takes a tuple operand"
    return None


def check_module(module: HloModule) -> None:
    """Refuse, before compiling, a program an object cannot run."""
    for parameter in module.entry.parameters:
        for leaf in _leaf_shapes(parameter.shape):
            if any(leaf.dynamic_dimensions):
                raise _refuse(
                    parameter,
                    "a parameter with dynamic dimensions (the C interface has fixed sizes)",
                )
    for instruction in module.instructions():
        op = instruction.opcode
        why = _WHY_OP.get(op)
        if why is None and op not in _SINGLE_DEVICE_OK:
            why = _WHY_FAMILY.get(op.family)
        if why is None and op is Op.CUSTOM_CALL:
            why = _custom_call_problem(instruction)
        if why is not None:
            raise _refuse(instruction, why)


def check_emitted(emitter: Any) -> None:
    """Refuse what code generation could only do through Python (the fallback)."""
    for thunk in emitter.thunks:
        instruction = getattr(thunk, "instruction", None)
        if type(thunk).__name__ == "InterruptThunk" or instruction is None:
            continue  # a while loop's interrupt check: the object never takes it
        reason = getattr(thunk, "reason", "") or "it calls into Python"
        raise _refuse(
            instruction,
            f"it has no native code on the CPU ({reason}); the JIT runs the interpreter's "
            "kernel for it, which an object cannot",
        )


def emit_external_custom_call(fe: Any, instruction: HloInstruction) -> None:
    """A custom call as a call to the external C function named by its target; its
    operands are passed as copies (as the JIT does), the result written in place."""
    emit_c_call(fe, instruction, instruction.custom_call_target or "")


def external_symbols(module: HloModule) -> list[str]:
    """The C custom-call targets the application must link."""
    names = {
        i.custom_call_target or ""
        for i in module.instructions()
        if i.opcode is Op.CUSTOM_CALL and (i.custom_call_target or "") not in COMPILER_TARGETS
    }
    return sorted(names)


def _leaf_shapes(shape: Any) -> list[Any]:
    if shape.is_tuple:
        return [leaf for s in shape.tuple_shapes for leaf in _leaf_shapes(s)]
    return [shape] if shape.is_array else []


__all__ = ["check_emitted", "check_module", "emit_external_custom_call", "external_symbols"]
