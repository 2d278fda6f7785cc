"""A compiled GPU program: per computation, a list of steps over numbered buffer slots.

Why steps over slots: XLA's GPU back-end turns a scheduled HLO module into a sequence of
thunks (kernel launches, library calls, copies, control flow) over buffer allocations.
Here a computation becomes a :class:`Sequence`; each array value it computes gets a
*slot*, and values that are views of another (tuple, get-tuple-element, bitcast, a
row-major reshape) share their source's slot, so they cost nothing at run time. A run
fills a frame (a list indexed by slot) with device buffers: parameters from the caller,
constants from the ones loaded once, the rest allocated by the step that computes them.
Each step lists the slots that die after it; the frame drops them, and the buffer goes
back to the caching allocator as soon as nothing else holds it (stream order makes the
reuse safe: a later kernel on the same stream runs after every earlier one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class LeafInfo:
    """What a slot holds: its element type and element count (for allocation)."""

    dtype: np.dtype
    shape: tuple[int, ...]

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize


@dataclass
class Step:
    """One thing a sequence does; ``kind`` says which runner of the executable runs it."""

    kind: str  # "kernel", "gemm", "alias", "while", "conditional"
    name: str  # the HLO instruction it came from (errors and profiles name it)
    inputs: list[int]
    outputs: list[int]
    detail: Any = None  # the kind's own data (launch plan, gemm shape, sub-sequences...)
    release: list[int] = field(default_factory=list)  # slots dead after this step


@dataclass
class Sequence:
    """A computation as steps: run with one buffer per parameter leaf; returns one buffer
    per root leaf."""

    name: str
    slot_info: list[LeafInfo]
    parameter_slots: list[int]
    result_slots: list[int]
    constant_slots: dict[int, np.ndarray]
    steps: list[Step]
    release_at_start: list[int] = field(default_factory=list)  # parameters nothing reads

    def compute_liveness(self) -> None:
        """Set each step's ``release``: the slots it reads or writes last, except results
        and constants (which outlive the run)."""
        keep = set(self.result_slots) | set(self.constant_slots)
        last: dict[int, int] = {}
        for k, step in enumerate(self.steps):
            for slot in (*step.inputs, *step.outputs):
                last[slot] = k
        for step in self.steps:
            step.release = []
        for slot, k in last.items():
            if slot not in keep:
                self.steps[k].release.append(slot)
        self.release_at_start = [s for s in self.parameter_slots if s not in last and s not in keep]


@dataclass(frozen=True)
class GemmDetail:
    """A batched row-major matrix product for cuBLAS: C[b] = op(A[b]) @ op(B[b])."""

    dtype: np.dtype
    batch: int
    m: int
    n: int
    k: int
    transpose_a: bool
    transpose_b: bool


@dataclass(frozen=True)
class WhileDetail:
    condition: Sequence
    body: Sequence


@dataclass(frozen=True)
class ConditionalDetail:
    branches: tuple[Sequence, ...]
    branch_leaf_counts: tuple[int, ...]  # operand leaves each branch takes, in input order
    index_is_pred: bool


__all__ = [
    "ConditionalDetail",
    "GemmDetail",
    "LeafInfo",
    "Sequence",
    "Step",
    "WhileDetail",
]
