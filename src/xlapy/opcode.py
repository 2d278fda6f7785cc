"""HLO opcodes and the static facts every pass needs about them.

The opcode set and text names follow XLA's ``hlo_opcode.h`` so that HLO text
written by XLA (and by JAX) reads back unchanged. Everything known about an
opcode lives in one table (``_TRAITS``) instead of scattered ``if opcode in``
checks, so a new opcode cannot be half-added: the tests insist that the table
covers every member.
"""

from __future__ import annotations

import difflib
import enum
from dataclasses import dataclass

from .errors import InvalidArgumentError


class SideEffect(enum.Enum):
    """Whether an instruction may be removed or reordered when its result is unused.

    ``CONDITIONAL`` exists because XLA decides some cases per instruction: a
    custom-call by its ``custom_call_has_side_effect`` attribute, a collective
    by its channel id / ``constrain_layout``, and control flow by what its
    called computations contain.
    """

    NONE = "none"
    ALWAYS = "always"
    CONDITIONAL = "conditional"


class AsyncRole(enum.Enum):
    """Position of an opcode in a start/update/done chain of an asynchronous op."""

    NONE = "none"
    START = "start"
    UPDATE = "update"
    DONE = "done"


@dataclass(frozen=True)
class OpcodeTraits:
    """Static facts about one opcode; see ``HloOpcode`` for the accessors."""

    arity: int | None  # number of operands, None when variadic
    elementwise: bool = False
    side_effect: SideEffect = SideEffect.NONE
    # Names of the HLO text attributes that name called computations, in the
    # order XLA prints them.
    called_computation_attributes: tuple[str, ...] = ()
    collective: bool = False
    async_role: AsyncRole = AsyncRole.NONE
    commutative: bool = False
    # XLA's CallContext of computations this opcode calls: "embedded" bodies
    # (reduce, map, sort, ...) cannot allocate buffers, "control_flow" ones can.
    call_context: str | None = None


class HloOpcode(enum.Enum):
    """An HLO opcode; the value is the name HLO text uses.

    Aliases cover the XLA C++ spellings whose text name differs (``CLZ`` is
    ``count-leading-zeros``, ``COS`` is ``cosine``), so both read naturally.
    """

    ABS = "abs"
    ACOS = "acos"
    ACOSH = "acosh"
    ADD = "add"
    ADD_DEPENDENCY = "add-dependency"
    AFTER_ALL = "after-all"
    ALL_GATHER = "all-gather"
    ALL_GATHER_DONE = "all-gather-done"
    ALL_GATHER_START = "all-gather-start"
    ALL_REDUCE = "all-reduce"
    ALL_REDUCE_DONE = "all-reduce-done"
    ALL_REDUCE_START = "all-reduce-start"
    ALL_TO_ALL = "all-to-all"
    AND = "and"
    ASIN = "asin"
    ASINH = "asinh"
    ASYNC_DONE = "async-done"
    ASYNC_START = "async-start"
    ASYNC_UPDATE = "async-update"
    ATAN = "atan"
    ATAN2 = "atan2"
    ATANH = "atanh"
    BATCH_NORM_GRAD = "batch-norm-grad"
    BATCH_NORM_INFERENCE = "batch-norm-inference"
    BATCH_NORM_TRAINING = "batch-norm-training"
    BITCAST = "bitcast"
    BITCAST_CONVERT = "bitcast-convert"
    BROADCAST = "broadcast"
    CALL = "call"
    CBRT = "cbrt"
    CEIL = "ceil"
    CHOLESKY = "cholesky"
    CLAMP = "clamp"
    COUNT_LEADING_ZEROS = "count-leading-zeros"
    COLLECTIVE_BROADCAST = "collective-broadcast"
    COLLECTIVE_PERMUTE = "collective-permute"
    COLLECTIVE_PERMUTE_DONE = "collective-permute-done"
    COLLECTIVE_PERMUTE_START = "collective-permute-start"
    COLLECTIVE_REDUCE = "collective-reduce"
    COMPARE = "compare"
    COMPLEX = "complex"
    CONCATENATE = "concatenate"
    CONDITIONAL = "conditional"
    CONSTANT = "constant"
    CONVERT = "convert"
    CONVOLUTION = "convolution"
    COPY = "copy"
    COPY_DONE = "copy-done"
    COPY_START = "copy-start"
    COSINE = "cosine"
    COSH = "cosh"
    CUSTOM_CALL = "custom-call"
    DIVIDE = "divide"
    DOMAIN = "domain"
    DOT = "dot"
    DYNAMIC_RESHAPE = "dynamic-reshape"
    DYNAMIC_SLICE = "dynamic-slice"
    DYNAMIC_UPDATE_SLICE = "dynamic-update-slice"
    ERF = "erf"
    EXPONENTIAL = "exponential"
    EXPONENTIAL_MINUS_ONE = "exponential-minus-one"
    FFT = "fft"
    FLOOR = "floor"
    FUSION = "fusion"
    GATHER = "gather"
    GET_DIMENSION_SIZE = "get-dimension-size"
    GET_TUPLE_ELEMENT = "get-tuple-element"
    IMAG = "imag"
    INFEED = "infeed"
    IOTA = "iota"
    IS_FINITE = "is-finite"
    LOG = "log"
    LOG_PLUS_ONE = "log-plus-one"
    LOGISTIC = "logistic"
    MAP = "map"
    MAXIMUM = "maximum"
    MINIMUM = "minimum"
    MULHI = "mulhi"
    MULTIPLY = "multiply"
    NEGATE = "negate"
    NOT = "not"
    OPT_BARRIER = "opt-barrier"
    OR = "or"
    OUTFEED = "outfeed"
    PAD = "pad"
    PARAMETER = "parameter"
    PARTITION_ID = "partition-id"
    POPCNT = "popcnt"
    POWER = "power"
    RAGGED_ALL_TO_ALL = "ragged-all-to-all"
    RAGGED_DOT = "ragged-dot"
    REAL = "real"
    RECV = "recv"
    RECV_DONE = "recv-done"
    REDUCE = "reduce"
    REDUCE_PRECISION = "reduce-precision"
    REDUCE_SCATTER = "reduce-scatter"
    REDUCE_WINDOW = "reduce-window"
    REMAINDER = "remainder"
    REPLICA_ID = "replica-id"
    RESHAPE = "reshape"
    REVERSE = "reverse"
    RNG = "rng"
    RNG_BIT_GENERATOR = "rng-bit-generator"
    RNG_GET_AND_UPDATE_STATE = "rng-get-and-update-state"
    ROUND_NEAREST_AFZ = "round-nearest-afz"
    ROUND_NEAREST_EVEN = "round-nearest-even"
    RSQRT = "rsqrt"
    SCALED_DOT = "scaled-dot"
    SCAN = "scan"
    SCATTER = "scatter"
    SELECT = "select"
    SELECT_AND_SCATTER = "select-and-scatter"
    SEND = "send"
    SEND_DONE = "send-done"
    SET_DIMENSION_SIZE = "set-dimension-size"
    SHIFT_LEFT = "shift-left"
    SHIFT_RIGHT_ARITHMETIC = "shift-right-arithmetic"
    SHIFT_RIGHT_LOGICAL = "shift-right-logical"
    SHUFFLE = "shuffle"
    SIGN = "sign"
    SINE = "sine"
    SINH = "sinh"
    SLICE = "slice"
    SORT = "sort"
    SQRT = "sqrt"
    STOCHASTIC_CONVERT = "stochastic-convert"
    SUBTRACT = "subtract"
    TAN = "tan"
    TANH = "tanh"
    TOPK = "topk"
    TRANSPOSE = "transpose"
    TRIANGULAR_SOLVE = "triangular-solve"
    TUPLE = "tuple"
    WHILE = "while"
    XOR = "xor"

    # Aliases: XLA's C++ enumerator names where they differ from the text name.
    CLZ = "count-leading-zeros"
    COS = "cosine"
    SIN = "sine"
    EXP = "exponential"
    EXPM1 = "exponential-minus-one"
    LOG1P = "log-plus-one"
    POPULATION_COUNT = "popcnt"
    OPTIMIZATION_BARRIER = "opt-barrier"
    TOP_K = "topk"

    # -- lookups ----------------------------------------------------------
    @staticmethod
    def from_text(name: str) -> HloOpcode:
        """The opcode HLO text spells ``name``; near misses are suggested on error."""
        try:
            return HloOpcode(name)
        except ValueError:
            pass
        near = difflib.get_close_matches(name, [op.value for op in HloOpcode], n=3, cutoff=0.6)
        alias = HloOpcode.__members__.get(name.upper().replace("-", "_"))
        if alias is not None:  # a C++-style spelling such as "cos" or "clz"
            near = [alias.value] + [n for n in near if n != alias.value]
        hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
        raise InvalidArgumentError(f"unknown HLO opcode {name!r}{hint}") from None

    @staticmethod
    def from_async_text(name: str) -> tuple[HloOpcode, HloOpcode | None]:
        """Read XLA's shorthand for wrapped async ops as well as plain opcodes.

        XLA prints an async-start/update/done whose computation wraps a single
        instruction as ``<wrapped>-start`` / ``-update`` / ``-done`` (for
        example ``all-to-all-start``). Returns ``(opcode, wrapped opcode)``, the
        latter None for plain opcodes, which win when both readings exist
        (``copy-start`` is its own opcode).
        """
        try:
            return HloOpcode(name), None
        except ValueError:
            pass
        for suffix, async_opcode in _ASYNC_SUFFIXES:
            wrapped = name.removesuffix(suffix)
            if wrapped != name:
                try:
                    return async_opcode, HloOpcode(wrapped)
                except ValueError:
                    break
        return HloOpcode.from_text(name), None

    def async_text(self, wrapped: HloOpcode) -> str:
        """The shorthand name of this async opcode wrapping ``wrapped`` (negate-start)."""
        suffix = dict((op, sfx) for sfx, op in _ASYNC_SUFFIXES).get(self)
        if suffix is None:
            raise InvalidArgumentError(f"{self.value} is not async-start, async-update or "
                                       "async-done")
        return wrapped.value + suffix

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"HloOpcode.{self.name}"

    # -- facts from the table ---------------------------------------------
    @property
    def traits(self) -> OpcodeTraits:
        return _TRAITS[self]

    @property
    def arity(self) -> int | None:
        """Fixed operand count, or None for variadic opcodes."""
        return _TRAITS[self].arity

    @property
    def is_variadic(self) -> bool:
        return _TRAITS[self].arity is None

    @property
    def is_elementwise(self) -> bool:
        return _TRAITS[self].elementwise

    @property
    def is_elementwise_unary(self) -> bool:
        t = _TRAITS[self]
        return t.elementwise and t.arity == 1

    @property
    def is_elementwise_binary(self) -> bool:
        t = _TRAITS[self]
        return t.elementwise and t.arity == 2

    @property
    def is_elementwise_ternary(self) -> bool:
        t = _TRAITS[self]
        return t.elementwise and t.arity == 3

    @property
    def side_effect(self) -> SideEffect:
        return _TRAITS[self].side_effect

    @property
    def has_side_effect(self) -> bool:
        """True when every instruction of this opcode has a side effect."""
        return _TRAITS[self].side_effect is SideEffect.ALWAYS

    @property
    def may_have_side_effect(self) -> bool:
        """True unless no instruction of this opcode can ever have a side effect."""
        return _TRAITS[self].side_effect is not SideEffect.NONE

    @property
    def called_computation_attributes(self) -> tuple[str, ...]:
        return _TRAITS[self].called_computation_attributes

    @property
    def calls_computations(self) -> bool:
        return bool(_TRAITS[self].called_computation_attributes)

    @property
    def call_context(self) -> str | None:
        return _TRAITS[self].call_context

    @property
    def is_collective(self) -> bool:
        return _TRAITS[self].collective

    @property
    def family(self) -> str:
        """The op family (one of ``FAMILIES``): the file name every layer files it under."""
        return _FAMILY_OF[self]

    @property
    def async_role(self) -> AsyncRole:
        return _TRAITS[self].async_role

    @property
    def is_async_start(self) -> bool:
        return _TRAITS[self].async_role is AsyncRole.START

    @property
    def is_async_update(self) -> bool:
        return _TRAITS[self].async_role is AsyncRole.UPDATE

    @property
    def is_async_done(self) -> bool:
        return _TRAITS[self].async_role is AsyncRole.DONE

    @property
    def is_generic_async(self) -> bool:
        """async-start/update/done, which wrap an arbitrary called computation."""
        return self in (HloOpcode.ASYNC_START, HloOpcode.ASYNC_UPDATE, HloOpcode.ASYNC_DONE)

    @property
    def async_done_opcode(self) -> HloOpcode | None:
        """The opcode that completes this start opcode (copy-start -> copy-done)."""
        return _START_TO_DONE.get(self)

    @property
    def async_start_opcode(self) -> HloOpcode | None:
        """The opcode that began the operation this done opcode completes."""
        return _DONE_TO_START.get(self)

    @property
    def is_commutative(self) -> bool:
        """Binary and operand order does not matter (XLA's HloOpcodeIsBinaryCommutative)."""
        return _TRAITS[self].commutative


_O = HloOpcode
_S = SideEffect
_A = AsyncRole

_UNARY_ELEMENTWISE = (
    _O.ABS, _O.ACOS, _O.ACOSH, _O.ASIN, _O.ASINH, _O.ATAN, _O.ATANH, _O.CBRT, _O.CEIL,
    _O.COUNT_LEADING_ZEROS, _O.CONVERT, _O.COPY, _O.COSINE, _O.COSH, _O.ERF, _O.EXPONENTIAL,
    _O.EXPONENTIAL_MINUS_ONE, _O.FLOOR, _O.IMAG, _O.IS_FINITE, _O.LOG, _O.LOG_PLUS_ONE,
    _O.LOGISTIC, _O.NEGATE, _O.NOT, _O.POPCNT, _O.REAL, _O.REDUCE_PRECISION,
    _O.ROUND_NEAREST_AFZ, _O.ROUND_NEAREST_EVEN, _O.RSQRT, _O.SIGN, _O.SINE, _O.SINH, _O.SQRT,
    _O.TAN, _O.TANH,
)  # fmt: skip
_BINARY_ELEMENTWISE = (
    _O.ADD, _O.ATAN2, _O.COMPARE, _O.COMPLEX, _O.DIVIDE, _O.MAXIMUM, _O.MINIMUM, _O.MULHI,
    _O.MULTIPLY, _O.POWER, _O.REMAINDER, _O.SUBTRACT, _O.AND, _O.OR, _O.XOR, _O.SHIFT_LEFT,
    _O.SHIFT_RIGHT_ARITHMETIC, _O.SHIFT_RIGHT_LOGICAL, _O.STOCHASTIC_CONVERT,
)  # fmt: skip
_COMMUTATIVE = (
    _O.ADD, _O.MULTIPLY, _O.MULHI, _O.MAXIMUM, _O.MINIMUM, _O.AND, _O.OR, _O.XOR,
)  # fmt: skip

_TRAITS: dict[HloOpcode, OpcodeTraits] = {
    **{op: OpcodeTraits(1, elementwise=True) for op in _UNARY_ELEMENTWISE},
    **{
        op: OpcodeTraits(2, elementwise=True, commutative=op in _COMMUTATIVE)
        for op in _BINARY_ELEMENTWISE
    },
    _O.CLAMP: OpcodeTraits(3, elementwise=True),
    _O.SELECT: OpcodeTraits(3, elementwise=True),
    # map applies its computation per element, which XLA counts as elementwise.
    _O.MAP: OpcodeTraits(None, elementwise=True, called_computation_attributes=("to_apply",),
                         call_context="embedded"),
    # bitcast-convert may change rank when bit widths differ, so it is not elementwise.
    _O.BITCAST_CONVERT: OpcodeTraits(1),
    _O.ADD_DEPENDENCY: OpcodeTraits(2),
    _O.AFTER_ALL: OpcodeTraits(None),
    _O.ALL_GATHER: OpcodeTraits(None, side_effect=_S.CONDITIONAL, collective=True),
    _O.ALL_GATHER_START: OpcodeTraits(None, side_effect=_S.ALWAYS, collective=True,
                                      async_role=_A.START),
    _O.ALL_GATHER_DONE: OpcodeTraits(1, side_effect=_S.ALWAYS, collective=True,
                                     async_role=_A.DONE),
    _O.ALL_REDUCE: OpcodeTraits(None, side_effect=_S.CONDITIONAL, collective=True,
                                called_computation_attributes=("to_apply",),
                                call_context="embedded"),
    _O.ALL_REDUCE_START: OpcodeTraits(None, side_effect=_S.ALWAYS, collective=True,
                                      async_role=_A.START,
                                      called_computation_attributes=("to_apply",),
                                      call_context="embedded"),
    _O.ALL_REDUCE_DONE: OpcodeTraits(1, side_effect=_S.ALWAYS, collective=True,
                                     async_role=_A.DONE),
    _O.ALL_TO_ALL: OpcodeTraits(None, side_effect=_S.CONDITIONAL, collective=True),
    _O.RAGGED_ALL_TO_ALL: OpcodeTraits(6, side_effect=_S.CONDITIONAL, collective=True),
    _O.COLLECTIVE_BROADCAST: OpcodeTraits(None, side_effect=_S.CONDITIONAL, collective=True),
    _O.COLLECTIVE_PERMUTE: OpcodeTraits(None, side_effect=_S.CONDITIONAL, collective=True),
    _O.COLLECTIVE_PERMUTE_START: OpcodeTraits(None, side_effect=_S.ALWAYS, collective=True,
                                              async_role=_A.START),
    _O.COLLECTIVE_PERMUTE_DONE: OpcodeTraits(1, side_effect=_S.ALWAYS, collective=True,
                                             async_role=_A.DONE),
    _O.COLLECTIVE_REDUCE: OpcodeTraits(None, side_effect=_S.CONDITIONAL, collective=True,
                                       called_computation_attributes=("to_apply",),
                                       call_context="embedded"),
    _O.REDUCE_SCATTER: OpcodeTraits(None, side_effect=_S.CONDITIONAL, collective=True,
                                    called_computation_attributes=("to_apply",),
                                    call_context="embedded"),
    _O.ASYNC_START: OpcodeTraits(None, side_effect=_S.CONDITIONAL, async_role=_A.START,
                                 called_computation_attributes=("calls",),
                                 call_context="control_flow"),
    _O.ASYNC_UPDATE: OpcodeTraits(None, side_effect=_S.CONDITIONAL, async_role=_A.UPDATE,
                                  called_computation_attributes=("calls",),
                                  call_context="control_flow"),
    _O.ASYNC_DONE: OpcodeTraits(1, side_effect=_S.CONDITIONAL, async_role=_A.DONE,
                                called_computation_attributes=("calls",),
                                call_context="control_flow"),
    _O.COPY_START: OpcodeTraits(1, async_role=_A.START),
    _O.COPY_DONE: OpcodeTraits(1, async_role=_A.DONE),
    _O.SEND: OpcodeTraits(2, side_effect=_S.ALWAYS, async_role=_A.START),
    _O.SEND_DONE: OpcodeTraits(1, side_effect=_S.ALWAYS, async_role=_A.DONE),
    _O.RECV: OpcodeTraits(1, side_effect=_S.ALWAYS, async_role=_A.START),
    _O.RECV_DONE: OpcodeTraits(1, side_effect=_S.ALWAYS, async_role=_A.DONE),
    _O.BATCH_NORM_GRAD: OpcodeTraits(5),
    _O.BATCH_NORM_INFERENCE: OpcodeTraits(5),
    _O.BATCH_NORM_TRAINING: OpcodeTraits(3),
    _O.BITCAST: OpcodeTraits(1),
    _O.BROADCAST: OpcodeTraits(1),
    _O.CALL: OpcodeTraits(None, side_effect=_S.CONDITIONAL,
                          called_computation_attributes=("to_apply",),
                          call_context="control_flow"),
    _O.CHOLESKY: OpcodeTraits(1),
    _O.CONCATENATE: OpcodeTraits(None),
    _O.CONDITIONAL: OpcodeTraits(
        None, side_effect=_S.CONDITIONAL,
        called_computation_attributes=(
            "branch_computations", "true_computation", "false_computation",
        ),
        call_context="control_flow",
    ),
    _O.CONSTANT: OpcodeTraits(0),
    _O.CONVOLUTION: OpcodeTraits(None),
    _O.CUSTOM_CALL: OpcodeTraits(None, side_effect=_S.CONDITIONAL,
                                 called_computation_attributes=("called_computations",
                                                                "to_apply"),
                                 call_context="embedded"),
    _O.DOMAIN: OpcodeTraits(1),
    _O.DOT: OpcodeTraits(2),
    _O.RAGGED_DOT: OpcodeTraits(3),
    _O.SCALED_DOT: OpcodeTraits(4),
    _O.DYNAMIC_RESHAPE: OpcodeTraits(None),
    _O.DYNAMIC_SLICE: OpcodeTraits(None),
    _O.DYNAMIC_UPDATE_SLICE: OpcodeTraits(None),
    _O.FFT: OpcodeTraits(1),
    _O.FUSION: OpcodeTraits(None, side_effect=_S.CONDITIONAL,
                            called_computation_attributes=("calls",), call_context="embedded"),
    _O.GATHER: OpcodeTraits(2),
    _O.GET_DIMENSION_SIZE: OpcodeTraits(1),
    _O.SET_DIMENSION_SIZE: OpcodeTraits(2),
    _O.GET_TUPLE_ELEMENT: OpcodeTraits(1),
    _O.INFEED: OpcodeTraits(1, side_effect=_S.ALWAYS),
    _O.OUTFEED: OpcodeTraits(2, side_effect=_S.ALWAYS),
    _O.IOTA: OpcodeTraits(0),
    _O.OPT_BARRIER: OpcodeTraits(1),
    _O.PAD: OpcodeTraits(2),
    _O.PARAMETER: OpcodeTraits(0),
    _O.PARTITION_ID: OpcodeTraits(0),
    _O.REPLICA_ID: OpcodeTraits(0),
    _O.REDUCE: OpcodeTraits(None, called_computation_attributes=("to_apply",),
                            call_context="embedded"),
    _O.REDUCE_WINDOW: OpcodeTraits(None, called_computation_attributes=("to_apply",),
                                   call_context="embedded"),
    _O.RESHAPE: OpcodeTraits(1),
    _O.REVERSE: OpcodeTraits(1),
    _O.RNG: OpcodeTraits(None, side_effect=_S.ALWAYS),
    # rng-bit-generator is a pure function of its state operand.
    _O.RNG_BIT_GENERATOR: OpcodeTraits(1),
    _O.RNG_GET_AND_UPDATE_STATE: OpcodeTraits(0, side_effect=_S.ALWAYS),
    _O.SCAN: OpcodeTraits(None, called_computation_attributes=("to_apply",),
                          call_context="embedded"),
    _O.SCATTER: OpcodeTraits(None, called_computation_attributes=("to_apply",),
                             call_context="embedded"),
    _O.SELECT_AND_SCATTER: OpcodeTraits(3, called_computation_attributes=("select", "scatter"),
                                        call_context="embedded"),
    _O.SHUFFLE: OpcodeTraits(1),
    _O.SLICE: OpcodeTraits(1),
    _O.SORT: OpcodeTraits(None, called_computation_attributes=("to_apply",),
                          call_context="embedded"),
    _O.TOPK: OpcodeTraits(1),
    _O.TRANSPOSE: OpcodeTraits(1),
    _O.TRIANGULAR_SOLVE: OpcodeTraits(2),
    _O.TUPLE: OpcodeTraits(None),
    _O.WHILE: OpcodeTraits(1, side_effect=_S.CONDITIONAL,
                           called_computation_attributes=("condition", "body"),
                           call_context="control_flow"),
}  # fmt: skip

_START_TO_DONE: dict[HloOpcode, HloOpcode] = {
    _O.ALL_GATHER_START: _O.ALL_GATHER_DONE,
    _O.ALL_REDUCE_START: _O.ALL_REDUCE_DONE,
    _O.COLLECTIVE_PERMUTE_START: _O.COLLECTIVE_PERMUTE_DONE,
    _O.COPY_START: _O.COPY_DONE,
    _O.SEND: _O.SEND_DONE,
    _O.RECV: _O.RECV_DONE,
    _O.ASYNC_START: _O.ASYNC_DONE,
}
_DONE_TO_START = {done: start for start, done in _START_TO_DONE.items()}


# -- op families ------------------------------------------------------------------
# One vocabulary for every layer: an opcode's shape rule, builder function,
# evaluator kernel, StableHLO lowering and CPU emitter live in modules named after
# its family (``indexing`` or ``indexing_*``), so the files that handle gather are
# found by name alone (tests/test_layers.py holds every layer to it).
FAMILIES: dict[str, tuple[str, ...]] = {
    "elementwise": (
        "abs", "acos", "acosh", "add", "and", "asin", "asinh", "atan", "atan2", "atanh",
        "bitcast-convert", "cbrt", "ceil", "clamp", "compare", "complex", "convert", "copy",
        "cosine", "cosh", "count-leading-zeros", "divide", "erf", "exponential",
        "exponential-minus-one", "floor", "imag", "is-finite", "log", "log-plus-one",
        "logistic", "map", "maximum", "minimum", "mulhi", "multiply", "negate", "not", "or",
        "popcnt", "power", "real", "reduce-precision", "remainder", "round-nearest-afz",
        "round-nearest-even", "rsqrt", "select", "shift-left", "shift-right-arithmetic",
        "shift-right-logical", "sign", "sine", "sinh", "sqrt", "stochastic-convert",
        "subtract", "tan", "tanh", "xor",
    ),
    "movement": (
        "add-dependency", "after-all", "bitcast", "broadcast", "concatenate", "constant",
        "domain", "dynamic-reshape", "get-dimension-size", "get-tuple-element", "iota",
        "opt-barrier", "pad", "parameter", "reshape", "reverse", "set-dimension-size",
        "shuffle", "slice", "transpose", "tuple",
    ),
    "indexing": ("dynamic-slice", "dynamic-update-slice", "gather", "scatter"),
    "reductions": ("reduce", "reduce-window", "select-and-scatter", "sort", "topk"),
    "linalg": (
        "batch-norm-grad", "batch-norm-inference", "batch-norm-training", "cholesky",
        "convolution", "dot", "fft", "ragged-dot", "scaled-dot", "triangular-solve",
    ),
    "control": (
        "async-done", "async-start", "async-update", "call", "conditional", "copy-done",
        "copy-start", "custom-call", "fusion", "scan", "while",
    ),
    "collectives": (
        "all-gather", "all-gather-done", "all-gather-start", "all-reduce", "all-reduce-done",
        "all-reduce-start", "all-to-all", "collective-broadcast", "collective-permute",
        "collective-permute-done", "collective-permute-start", "collective-reduce",
        "partition-id", "ragged-all-to-all", "reduce-scatter", "replica-id",
    ),
    "random": ("rng", "rng-bit-generator", "rng-get-and-update-state"),
    "transfers": ("infeed", "outfeed", "recv", "recv-done", "send", "send-done"),
}
_FAMILY_OF: dict[HloOpcode, str] = {
    HloOpcode(name): family for family, names in FAMILIES.items() for name in names
}

_ASYNC_SUFFIXES = (
    ("-start", _O.ASYNC_START), ("-update", _O.ASYNC_UPDATE), ("-done", _O.ASYNC_DONE),
)

del _O, _S, _A

# Attribute names whose values are called computations, whatever the opcode
# table says, so that text using them on any opcode still links up.
COMPUTATION_ATTRIBUTES = frozenset(
    {
        "to_apply",
        "calls",
        "condition",
        "body",
        "select",
        "scatter",
        "true_computation",
        "false_computation",
        "branch_computations",
        "called_computations",
    }
)


__all__ = ["COMPUTATION_ATTRIBUTES", "FAMILIES", "AsyncRole", "HloOpcode", "OpcodeTraits", "SideEffect"]
