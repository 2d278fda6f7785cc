"""The reference evaluator: runs an HLO computation with numpy, one kernel per opcode.

Values inside the evaluator are *logical*: an array is a numpy array in C
order with the element type's dtype (ml_dtypes for bf16/f8/s4...), whatever
the layout in its shape; a tuple is a Python tuple of values; a token is
:data:`TOKEN`. Layouts matter only at the boundaries (arguments in, results
out) and for the two opcodes that see memory: ``bitcast`` and ``copy``. This
keeps every kernel simple and obviously right, which is the interpreter's job:
it is the oracle the compiler is tested against.

Denormals: XLA:CPU flushes denormal floats to zero; the interpreter keeps IEEE
results (numpy's), so comparisons against the CPU backend allow for that.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import InternalError, InvalidArgumentError, UnimplementedError, XlaError
from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.opcode import HloOpcode
from ...literal import Literal
from ...shape import Shape


class Token:
    """The value of a token: carries ordering, no data."""

    _instance: Token | None = None

    def __new__(cls) -> Token:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "TOKEN"


TOKEN = Token()

Value = Any  # np.ndarray | tuple[Value, ...] | Token
Kernel = Callable[["EvalContext", HloInstruction, list[Value]], Value]
KERNELS: dict[HloOpcode, Kernel] = {}
# Opcodes whose values the evaluator supplies itself (no kernel).
EVALUATOR_OPCODES = frozenset({HloOpcode.PARAMETER})


def kernel(*opcodes: HloOpcode) -> Callable[[Kernel], Kernel]:
    """Register ``fn`` as the interpreter kernel of each opcode."""

    def register(fn: Kernel) -> Kernel:
        for opcode in opcodes:
            if opcode in KERNELS:
                raise InternalError(f"two interpreter kernels for {opcode.value}")
            KERNELS[opcode] = fn
        return fn

    return register


# -- conversions at the boundaries ---------------------------------------------------------


def value_from_literal(literal: Literal) -> Value:
    if literal.is_tuple:
        return tuple(value_from_literal(e) for e in literal.tuple_elements)
    if literal.shape.is_token:
        return TOKEN
    return np.array(literal.to_numpy())  # a writable copy in C order


def literal_from_value(value: Value, shape: Shape) -> Literal:
    """The result ``value`` as a Literal of ``shape`` (its layout included)."""
    if shape.is_tuple:
        if not isinstance(value, tuple) or len(value) != len(shape.tuple_shapes):
            raise InternalError(f"a value of type {type(value).__name__} for tuple shape {shape}")
        return Literal.make_tuple(
            [literal_from_value(v, s) for v, s in zip(value, shape.tuple_shapes, strict=True)]
        )
    if shape.is_token:
        return Literal.token()
    array = np.asarray(value, dtype=shape.element_type.dtype).reshape(shape.dimensions)
    return Literal.from_numpy(array, layout=shape.layout, element_type=shape.element_type)


def c_contiguous(value: Any, dtype: Any = None) -> np.ndarray:
    """``value`` as a C-contiguous array of the same rank.

    (``np.ascontiguousarray`` promotes a 0-d array to 1-d, which would change
    the shape of scalar results.)
    """
    array = np.asarray(value, dtype=dtype)
    return array if array.flags.c_contiguous else np.array(array, order="C")


def array_for(shape: Shape, value: Any) -> np.ndarray:
    """``value`` as an array of ``shape``'s element type and dimensions."""
    return np.asarray(value, dtype=shape.element_type.dtype).reshape(shape.dimensions)


# -- evaluation ----------------------------------------------------------------------------


@dataclass
class DeviceContext:
    """What one replica/partition of an execution shares across its computations."""

    replica_id: int = 0
    partition_id: int = 0
    num_replicas: int = 1
    num_partitions: int = 1
    collectives: Any = None  # distributed hub, set for multi-device executions
    infeed: Any = None
    outfeed: Any = None
    rng_state: list[int] = field(default_factory=lambda: [0x5EED])
    custom_calls: Any = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class EvalContext:
    """Passed to kernels: the device, and how to call other computations."""

    def __init__(self, device: DeviceContext) -> None:
        self.device = device

    def call(self, computation: HloComputation, arguments: Sequence[Value]) -> Value:
        """Evaluate ``computation`` on ``arguments`` (values, not literals)."""
        return evaluate(computation, arguments, self)

    def call_batched(self, computation: HloComputation, arguments: Sequence[Value]) -> Value:
        """Evaluate a *scalar* computation on whole arrays at once, when that is exact.

        Reducers, comparators and map functions take scalars; when every
        instruction of ``computation`` is elementwise (or a constant, parameter,
        tuple or get-tuple-element), running it on arrays of N scalars gives the
        N results at numpy speed. Otherwise it runs once per element.
        """
        if _is_batchable(computation):
            return evaluate(computation, arguments, self)
        return _call_per_element(self, computation, arguments)

    def fail(self, instruction: HloInstruction, message: str) -> XlaError:
        return InvalidArgumentError(f"{instruction.opcode.value} {instruction.name}: {message}")


_BATCHABLE = {
    HloOpcode.PARAMETER,
    HloOpcode.CONSTANT,
    HloOpcode.TUPLE,
    HloOpcode.GET_TUPLE_ELEMENT,
}
_batchable_cache: weakref.WeakKeyDictionary[HloComputation, bool] = weakref.WeakKeyDictionary()


def _is_batchable(computation: HloComputation) -> bool:
    key = computation
    if key not in _batchable_cache:
        _batchable_cache[key] = all(
            (i.opcode in _BATCHABLE or i.opcode.is_elementwise)
            and (i.opcode is not HloOpcode.CONSTANT or i.shape.is_scalar)
            and all(op.shape.is_scalar or op.shape.is_tuple for op in i.operands)
            for i in computation.instructions
        )
    return _batchable_cache[key]


def _call_per_element(
    ctx: EvalContext, computation: HloComputation, arguments: Sequence[Value]
) -> Value:
    """Run a scalar computation once per element of (same-shaped) array arguments."""
    leaves = [np.asarray(a) for a in arguments]
    shape = np.broadcast_shapes(*(a.shape for a in leaves)) if leaves else ()
    leaves = [np.broadcast_to(a, shape) for a in leaves]
    results: list[Value] = []
    for index in np.ndindex(*shape):
        results.append(evaluate(computation, [a[index] for a in leaves], ctx))
    root = computation.root.shape
    if root.is_tuple:
        return tuple(
            np.array([r[k] for r in results], dtype=s.element_type.dtype).reshape(shape)
            for k, s in enumerate(root.tuple_shapes)
        )
    return np.array(results, dtype=root.element_type.dtype).reshape(shape)


def evaluate(computation: HloComputation, arguments: Sequence[Value], ctx: EvalContext) -> Value:
    """Run ``computation`` on ``arguments`` and return the root's value."""
    params = computation.parameters
    if len(arguments) != len(params):
        raise InvalidArgumentError(
            f"computation {computation.name} takes {len(params)} arguments, got {len(arguments)}"
        )
    values: dict[int, Value] = {}
    for param, argument in zip(params, arguments, strict=True):
        values[id(param)] = argument
    remaining_uses = {id(i): len(i.users) for i in computation.instructions}
    root = computation.root
    for instruction in computation.post_order():
        key = id(instruction)
        if key in values:
            continue
        operands = [values[id(op)] for op in instruction.operands]
        fn = KERNELS.get(instruction.opcode)
        if fn is None:
            raise UnimplementedError(
                f"the interpreter has no kernel for {instruction.opcode.value} yet "
                f"(instruction {instruction.name})"
            )
        values[key] = fn(ctx, instruction, operands)
        # Free operands nobody needs any more (big while loops would hold every step).
        for op in instruction.iter_operands_unique():
            remaining_uses[id(op)] -= 1
            if remaining_uses[id(op)] == 0 and op is not root:
                values.pop(id(op), None)
    return values[id(root)]


__all__ = [
    "EVALUATOR_OPCODES",
    "KERNELS",
    "TOKEN",
    "DeviceContext",
    "EvalContext",
    "Token",
    "Value",
    "array_for",
    "c_contiguous",
    "evaluate",
    "kernel",
    "literal_from_value",
    "value_from_literal",
]
