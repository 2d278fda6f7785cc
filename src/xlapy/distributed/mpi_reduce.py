"""All-reduce across processes without gathering, when the reducer is one numpy ufunc.

The general cross-process path gathers every member's data and reduces it with the
program's reducer (correct for every type and reducer). When the reducer is one binary
op of its two parameters (add, multiply, minimum, maximum, and, or, xor), this is
faster: the devices of one process reduce in numpy, then one ring all-reduce over MPI
(``MpiTransport.allreduce``) combines the processes' partial results in the first local
device's output buffer, which the other local devices copy. numpy's ufuncs have XLA's
semantics here (minimum/maximum propagate NaN; bf16 and f16 round after each op).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..hlo.computation import HloComputation
from ..opcode import HloOpcode as Op
from .mpi import MpiTransport

# reducer opcode -> (numpy ufunc, the numpy type kinds it takes here)
_REDUCERS = {
    Op.ADD: (np.add, "biufcV"),
    Op.MULTIPLY: (np.multiply, "biufcV"),
    Op.MINIMUM: (np.minimum, "biufV"),
    Op.MAXIMUM: (np.maximum, "biufV"),
    Op.AND: (np.bitwise_and, "biu"),
    Op.OR: (np.bitwise_or, "biu"),
    Op.XOR: (np.bitwise_xor, "biu"),
}
# Types whose numpy arithmetic is XLA's: bool, integers, f16/f32/f64, c64/c128, bf16.
_TYPES = frozenset("?bhilqBHILQefdFD")


@dataclass(frozen=True)
class MpiReduction:
    ufunc: Any


def mpi_reduction(computation: HloComputation, dtype: np.dtype) -> MpiReduction | None:
    """The ufunc that equals ``computation`` on ``dtype``, or None."""
    root = computation.root
    entry = _REDUCERS.get(root.opcode)
    if entry is None or (dtype.char not in _TYPES and dtype.name != "bfloat16"):
        return None
    ufunc, kinds = entry
    if dtype.kind not in kinds:
        return None
    operands = root.operands
    if len(operands) != 2 or any(o.opcode is not Op.PARAMETER for o in operands):
        return None
    if {o.parameter_number for o in operands} != {0, 1}:
        return None
    return MpiReduction(ufunc)


def allreduce_step(
    group: Sequence[int],
    reductions: Sequence[MpiReduction],
    transport: MpiTransport,
    what: str,
) -> Any:
    """A :meth:`ProcessHub.combine` step: values are ``(operand views, output views)``
    per local device; writes every local device's outputs."""

    def step(values: dict[int, Any]) -> None:
        members = [d for d in group if d in values]
        first_in, first_out = values[members[0]]
        for i, reduction in enumerate(reductions):
            partial = first_in[i]
            if len(members) > 1:
                for d in members[1:]:
                    reduction.ufunc(partial, values[d][0][i], out=first_out[i])
                    partial = first_out[i]
            transport.allreduce(partial, first_out[i], reduction.ufunc, what)
            for d in members[1:]:
                np.copyto(values[d][1][i], first_out[i])

    return step


__all__ = ["MpiReduction", "allreduce_step", "mpi_reduction"]
