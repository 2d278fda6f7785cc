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

import functools
import math
import queue
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import (
    InternalError,
    InvalidArgumentError,
    ResourceExhaustedError,
    UnimplementedError,
    XlaError,
)
from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..literal import Literal
from ..memory import allocation_limit, check_allocation
from ..opcode import HloOpcode
from ..shape import Shape


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
    array = np.asarray(value, dtype=shape.element_type.dtype)
    if shape.is_static or array.ndim != shape.rank:
        array = array.reshape(shape.dimensions)
    # A dynamic dimension comes back at its dynamic size, as PjRt hands it to JAX.
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


def value_of_shape(item: Any, shape: Shape, what: str) -> Value:
    """A host-supplied value (array, Literal, nested tuple) as an evaluator value of ``shape``.

    Hosts hand values in through infeeds and Python custom-call targets (here and
    in the CPU backend's fallback); a wrong shape is the host's error, named by ``what``.
    """
    if isinstance(item, Literal):
        item = value_from_literal(item)
    if shape.is_tuple:
        if not isinstance(item, (tuple, list)) or len(item) != len(shape.tuple_shapes):
            raise InvalidArgumentError(f"{what}: expected a tuple for shape {shape}, got {item!r}")
        return tuple(
            value_of_shape(v, s, what) for v, s in zip(item, shape.tuple_shapes, strict=True)
        )
    if shape.is_token:
        return TOKEN
    array = np.asarray(item)
    if tuple(array.shape) != tuple(shape.dimensions):
        raise InvalidArgumentError(
            f"{what}: expected data of shape {shape}, got an array of shape {array.shape}"
        )
    return array_for(shape, array)


def copy_value(value: Value) -> Value:
    """A deep copy, for values that leave the evaluator's hands (outfeed, copy-start)."""
    if isinstance(value, tuple):
        return tuple(copy_value(v) for v in value)
    return value if isinstance(value, Token) else np.array(value, copy=True)


def index_scalar(value: Value) -> int:
    """A start index or size of any integer type (s4...u64) as a Python int, sign respected."""
    return int(np.asarray(value).reshape(()).item())


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
    local_hub: Any = None  # send/recv's mailbox when there is no hub (``collectives``)
    host_channels: Any = None  # this device's SendToHost/RecvFromHost queues (HostChannels)

    @property
    def index(self) -> int:
        """This device's place among all of the execution's (replica-major, then partition)."""
        return self.replica_id * self.num_partitions + self.partition_id


@dataclass
class FeedQueues:
    """Infeed and outfeed of one device: the client fills and drains them."""

    infeed: queue.Queue = field(default_factory=queue.Queue)
    outfeed: queue.Queue = field(default_factory=queue.Queue)


def device_context(
    options: Any, index: int, hub: Any, feeds: FeedQueues, rng_state: list[int]
) -> DeviceContext:
    """The context of device ``index`` (replica-major, then partition) of an execution."""
    return DeviceContext(
        replica_id=index // options.num_partitions,
        partition_id=index % options.num_partitions,
        num_replicas=options.num_replicas,
        num_partitions=options.num_partitions,
        collectives=hub,
        infeed=feeds.infeed,
        outfeed=feeds.outfeed,
        rng_state=rng_state,
    )


class EvalContext:
    """Passed to kernels: the device, and how to call other computations."""

    def __init__(self, device: DeviceContext) -> None:
        self.device = device
        self.depth = 0  # calls into computations in progress (``MAX_NESTED_CALLS``)

    def call(self, computation: HloComputation, arguments: Sequence[Value]) -> Value:
        """Evaluate ``computation`` on ``arguments`` (values, not literals)."""
        if self.depth >= MAX_NESTED_CALLS:
            raise ResourceExhaustedError(
                f"calls into computations nest more than {MAX_NESTED_CALLS} deep at "
                f"{computation.name} (while, conditional, map, reduce, sort ... inside one "
                "another); the interpreter supports at most that many (call chains of any "
                "depth are fine)"
            )
        self.depth += 1
        try:
            return evaluate(computation, arguments, self)
        finally:
            self.depth -= 1

    def call_batched(self, computation: HloComputation, arguments: Sequence[Value]) -> Value:
        """Evaluate a *scalar* computation on whole arrays at once, when that is exact.

        Reducers, comparators and map functions take scalars; when every
        instruction of ``computation`` is elementwise (or a constant, parameter,
        tuple or get-tuple-element), running it on arrays of N scalars gives the
        N results at numpy speed. Otherwise it runs once per element.
        """
        if _is_batchable(computation):
            return self.call(computation, arguments)
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
        results.append(ctx.call(computation, [a[index] for a in leaves]))
    root = computation.root.shape
    if root.is_tuple:
        return tuple(
            np.array([r[k] for r in results], dtype=s.element_type.dtype).reshape(shape)
            for k, s in enumerate(root.tuple_shapes)
        )
    return np.array(results, dtype=root.element_type.dtype).reshape(shape)


def call_scalar(
    ctx: EvalContext, computation: HloComputation, arguments: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """Call a scalar computation elementwise over same-shaped arrays; one array per result.

    Arguments are converted to the parameters' types (a bf16 input may meet an
    f32 reducer) and every result is broadcast to the arguments' shape: a
    computation returning a constant gives a scalar from a batched call.
    """
    params = computation.parameters
    args = [
        np.asarray(a, dtype=p.shape.element_type.dtype)
        for a, p in zip(arguments, params, strict=True)
    ]
    shape = np.broadcast_shapes(*(a.shape for a in args)) if args else ()
    out = ctx.call_batched(computation, args)
    root = computation.root.shape
    leaves, shapes = (list(out), root.tuple_shapes) if root.is_tuple else ([out], (root,))
    return [
        np.broadcast_to(np.asarray(v, dtype=s.element_type.dtype), shape)
        for v, s in zip(leaves, shapes, strict=True)
    ]


# Opcodes whose kernel is nothing but "evaluate the called computation on the operands":
# ``evaluate`` runs them on its own stack of frames instead, so that chains of calls as
# long as a program likes never recurse in Python.
_INLINE_CALLS = {HloOpcode.CALL: "to_apply", HloOpcode.FUSION: "calls"}
# How deep other calls into computations (while, conditional, map, reduce, sort ...)
# may nest, each a few Python frames: past this a ResourceExhaustedError says so
# instead of Python's RecursionError.
MAX_NESTED_CALLS = 150


class _Frame:
    """One computation being evaluated: its values so far and where it stands."""

    __slots__ = ("computation", "order", "next", "values", "remaining_uses", "caller")

    def __init__(
        self,
        computation: HloComputation,
        arguments: Sequence[Value],
        caller: HloInstruction | None,
    ) -> None:
        params = computation.parameters
        if len(arguments) != len(params):
            raise InvalidArgumentError(
                f"computation {computation.name} takes {len(params)} arguments, "
                f"got {len(arguments)}"
            )
        self.computation = computation
        self.order = computation.post_order()
        self.next = 0
        self.values: dict[int, Value] = {
            id(param): argument for param, argument in zip(params, arguments, strict=True)
        }
        self.remaining_uses = {id(i): len(i.users) for i in computation.instructions}
        self.caller = caller

    def store(self, instruction: HloInstruction, value: Value) -> None:
        """Record ``instruction``'s value and free operands nobody needs any more (big
        while loops would hold every step)."""
        self.values[id(instruction)] = value
        root = self.computation.root
        for op in instruction.iter_operands_unique():
            self.remaining_uses[id(op)] -= 1
            if self.remaining_uses[id(op)] == 0 and op is not root:
                self.values.pop(id(op), None)


def evaluate(computation: HloComputation, arguments: Sequence[Value], ctx: EvalContext) -> Value:
    """Run ``computation`` on ``arguments`` and return the root's value.

    Calls and fusions push a frame on an explicit stack rather than recursing, so
    call chains of any depth run; other computation calls recurse through their
    kernels, at most ``MAX_NESTED_CALLS`` deep.
    """
    stack = [_Frame(computation, arguments, None)]
    while True:
        frame = stack[-1]
        if frame.next == len(frame.order):
            stack.pop()
            result = frame.values[id(frame.computation.root)]
            if not stack:
                return result
            stack[-1].store(frame.caller, result)
            continue
        instruction = frame.order[frame.next]
        frame.next += 1
        key = id(instruction)
        if key in frame.values:
            continue
        operands = [frame.values[id(op)] for op in instruction.operands]
        callee = _INLINE_CALLS.get(instruction.opcode)
        if callee is not None and instruction.attribute(callee) is not None:
            stack.append(_Frame(instruction.attribute(callee), operands, instruction))
            continue
        fn = KERNELS.get(instruction.opcode)
        if fn is None:
            raise UnimplementedError(
                f"the interpreter has no kernel for {instruction.opcode.value} yet "
                f"(instruction {instruction.name})"
            )
        check_result_size(instruction)
        if instruction.opcode.is_elementwise and not instruction.shape.is_static:
            operands = common_extents(operands)
        frame.store(instruction, fn(ctx, instruction, operands))


def common_extents(operands: list[Value]) -> list[Value]:
    """Same-rank array operands cut to their smallest size along each dimension.

    Values are carried at their dynamic sizes, so an elementwise op may meet a dynamic
    operand of size 3 and a static one of size 6 along a dimension ``<=6``: XLA reads the
    static one's first 3 elements there (the rest lies in the padding).
    """
    arrays = [np.asarray(v) for v in operands if isinstance(v, np.ndarray) and v.ndim]
    if len({a.shape for a in arrays}) <= 1:
        return operands
    rank = arrays[0].ndim
    extents = [min(a.shape[d] for a in arrays if a.ndim == rank) for d in range(rank)]
    window = tuple(slice(0, n) for n in extents)
    return [
        v[window] if isinstance(v, np.ndarray) and v.ndim == rank else v for v in operands
    ]


def evaluate_computation(
    computation: HloComputation,
    arguments: Sequence[Literal],
    device: DeviceContext | None = None,
) -> Literal:
    """``computation`` run on ``arguments``: literals in, the root's literal out.

    ``device`` defaults to a lone device (replica 0 of 1, no feeds, no collectives).
    """
    ctx = EvalContext(device if device is not None else DeviceContext())
    values = [value_from_literal(a) for a in arguments]
    return literal_from_value(evaluate(computation, values, ctx), computation.root.shape)


def evaluate_instruction(
    instruction: HloInstruction, operands: Sequence[Literal]
) -> Literal | None:
    """The value of ``instruction`` on constant ``operands``, or None when it has none now.

    None when the opcode has no kernel or the kernel reports an error: such an
    error belongs to the program's run (a value it rejects), not to whoever asks
    early, as constant folding does. Computations the instruction calls are
    evaluated as usual; the device is a lone one (replica 0 of 1).
    """
    fn = KERNELS.get(instruction.opcode)
    if fn is None:
        return None
    try:
        check_result_size(instruction)
        values = [value_from_literal(o) for o in operands]
        with np.errstate(all="ignore"):
            result = fn(EvalContext(DeviceContext()), instruction, values)
        return literal_from_value(result, instruction.shape)
    except XlaError:
        return None


def check_result_size(instruction: HloInstruction) -> None:
    """``ResourceExhaustedError`` before a kernel allocates a result no machine could hold."""
    if not _fits(instruction.shape):
        check_allocation(
            _byte_size(instruction.shape),
            f"the result {instruction.shape} of {instruction.opcode.value} {instruction.name}",
        )


@functools.lru_cache(maxsize=4096)
def _fits(shape: Shape) -> bool:
    return _byte_size(shape) <= allocation_limit()


def _byte_size(shape: Shape) -> int:
    """Bytes of every array leaf of ``shape`` (as numpy holds them: one element after
    another, a byte per sub-byte element); unbounded dimensions count as empty."""
    if shape.is_tuple:
        return sum(_byte_size(s) for s in shape.tuple_shapes)
    if not shape.is_array or shape.is_unbounded_dynamic:
        return 0
    return math.prod(shape.dimensions) * shape.element_type.dtype.itemsize


__all__ = [
    "EVALUATOR_OPCODES",
    "MAX_NESTED_CALLS",
    "KERNELS",
    "TOKEN",
    "DeviceContext",
    "FeedQueues",
    "EvalContext",
    "Token",
    "Value",
    "array_for",
    "c_contiguous",
    "check_result_size",
    "common_extents",
    "device_context",
    "call_scalar",
    "copy_value",
    "evaluate",
    "evaluate_computation",
    "evaluate_instruction",
    "index_scalar",
    "kernel",
    "literal_from_value",
    "value_from_literal",
    "value_of_shape",
]
