"""The table of instructions emitted whole, filled by the emitter modules as they load.

An emitter module registers its functions with ``@thunk_emitter(opcode, ...)``
(``@custom_call_emitter(target, ...)`` for a built-in custom-call target);
``codegen`` imports every emitter module and dispatches through ``THUNK_EMITTERS``.
The table lives apart from ``codegen`` so that the emitters, which ``codegen``
imports, need nothing from it at run time (``FunctionEmitter`` is only their
argument's type).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ....opcode import HloOpcode

if TYPE_CHECKING:
    from ....hlo.instruction import HloInstruction
    from ..codegen import FunctionEmitter

ThunkEmitter = Callable[["FunctionEmitter", "HloInstruction"], None]
THUNK_EMITTERS: dict[HloOpcode, ThunkEmitter] = {}
# Native emitters of built-in custom-call targets (jaxlib's ``lapack_*_ffi``), by target
# name; a built-in target without one runs through the fallback.
CUSTOM_CALL_EMITTERS: dict[str, ThunkEmitter] = {}


def thunk_emitter(*opcodes: HloOpcode) -> Callable[[ThunkEmitter], ThunkEmitter]:
    def register(fn: ThunkEmitter) -> ThunkEmitter:
        for opcode in opcodes:
            THUNK_EMITTERS[opcode] = fn
        return fn

    return register


def custom_call_emitter(*targets: str) -> Callable[[ThunkEmitter], ThunkEmitter]:
    """Register the native emitter of built-in custom-call ``targets``."""

    def register(fn: ThunkEmitter) -> ThunkEmitter:
        for target in targets:
            CUSTOM_CALL_EMITTERS[target] = fn
        return fn

    return register


__all__ = [
    "CUSTOM_CALL_EMITTERS",
    "THUNK_EMITTERS",
    "ThunkEmitter",
    "custom_call_emitter",
    "thunk_emitter",
]
