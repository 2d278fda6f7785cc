"""The table of instructions emitted whole, filled by the emitter modules as they load.

An emitter module registers its functions with ``@thunk_emitter(opcode, ...)``;
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


def thunk_emitter(*opcodes: HloOpcode) -> Callable[[ThunkEmitter], ThunkEmitter]:
    def register(fn: ThunkEmitter) -> ThunkEmitter:
        for opcode in opcodes:
            THUNK_EMITTERS[opcode] = fn
        return fn

    return register


__all__ = ["THUNK_EMITTERS", "ThunkEmitter", "thunk_emitter"]
