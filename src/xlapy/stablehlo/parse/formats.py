"""Op syntax: the pretty form of every op, the defaults of its attributes.

Most pretty forms are declarative ``assemblyFormat`` strings in StableHLO's
``.td`` files (and CHECK's and the interpreter's), so they are written here in
a small format language (``PRETTY_FORMATS``) read by one interpreter
(``FormatMixin.run_format``); the few ops with hand-written printers
(constant, while, reduce, optimization_barrier) have functions of their own.
Either way an op ends up with its generic attribute names and with operand and
result types spelled out, even where the pretty form derives them from one
type (``stablehlo.add %a, %b : tensor<4xf32>``, ``stablehlo.complex ... :
tensor<4xcomplex<f32>>``). Format language, one word per step::

    %          one operand              %*    operands, comma separated (maybe none)
    %,*        operands each followed by ','      {}    an optional attribute dictionary
    name@kind  an attribute read by ``_ATTRIBUTE_READERS[kind]`` and stored as ``name``
    T:kind     the type signature, expanded by ``FormatMixin.expand_types`` for ``kind``
    ?( ... )?  an optional group, taken when its leading literals are next
    other      a literal keyword or punctuation
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ...literal import Literal
from ..ast import (
    Block,
    DenseElements,
    DialectAttr,
    EnumAttr,
    MlirType,
    Operation,
    Region,
    SymbolRef,
)
from .attrs import DIALECT_DEFAULTS
from .lexer import SSA_USE
from .sdy import SDY_FORMATS
from .types import element_name, tuple_elements, with_element_type

_EXPONENT_MANTISSA = re.compile(r"e([0-9]+)m([0-9]+)")
_COMPONENT = {"complex<f32>": "f32", "complex<f64>": "f64"}
_FLAG = re.compile(r"(?:true|false|0|1)(?![A-Za-z0-9_])")

_ACCURACY = DialectAttr("stablehlo.result_accuracy", DIALECT_DEFAULTS["stablehlo.result_accuracy"])
# Attributes with a declared default (DefaultValued*Attr in the .td files), filled in when
# absent: MLIR's pretty printer elides a default-valued attribute that its generic printer
# shows, so only filling them makes both forms equal (and spares the lowering the defaults).
OP_DEFAULTS: dict[str, dict[str, object]] = {
    "stablehlo.custom_call": {
        "has_side_effect": False,
        "backend_config": "",
        "api_version": 1,
        "called_computations": [],
        "output_operand_aliases": [],
    },
    "stablehlo.composite": {"composite_attributes": {}, "version": 0},
    "stablehlo.cholesky": {"lower": False},
    "stablehlo.gather": {"indices_are_sorted": False},
    "stablehlo.dynamic_gather": {"indices_are_sorted": False},
    "stablehlo.scatter": {"indices_are_sorted": False, "unique_indices": False},
    "stablehlo.sort": {"dimension": -1, "is_stable": False},
    "stablehlo.send": {"is_host_transfer": False},
    "stablehlo.recv": {"is_host_transfer": False},
    "stablehlo.infeed": {"infeed_config": ""},
    "stablehlo.outfeed": {"outfeed_config": ""},
    "check.expect_almost_eq": {"tolerance": 1e-4},
    "check.expect_almost_eq_const": {"tolerance": 1e-4},
    "check.expect_close": {"max_ulp_difference": 1, "min_ulp_difference": 0},
    "check.expect_serialized_eq": {"iteration": 0},
    **{
        f"stablehlo.{op}": {"result_accuracy": _ACCURACY}
        for op in (
            "cbrt cosine exponential exponential_minus_one log log_plus_one logistic rsqrt "
            "sine sqrt tan tanh"
        ).split()
    },
}


class PendingOp:
    """An operation while it is being read."""

    __slots__ = ("name", "operands", "operand_types", "result_types", "attributes", "regions")

    def __init__(self, name: str) -> None:
        self.name = name
        self.operands: list[tuple[str, int]] = []  # SSA name, text position
        self.operand_types: list[MlirType] | None = None
        self.result_types: list[MlirType] = []
        self.attributes: dict = {}
        self.regions: list[Region] = []


# -- the format language ---------------------------------------------------------------------


def _compile(fmt: str) -> tuple:
    steps, i = _compile_steps(fmt.split(), 0, nested=False)
    return tuple(steps)


def _compile_steps(words: list[str], i: int, nested: bool) -> tuple[list, int]:
    steps: list = []
    while i < len(words):
        w = words[i]
        i += 1
        if w == ")?":
            if not nested:
                raise ValueError("')?' without '?('")
            return steps, i
        if w == "?(":
            body, i = _compile_steps(words, i, nested=True)
            lead = []
            for step in body:
                if step[0] not in ("word", "punct"):
                    break
                lead.append(step)
            steps.append(("optional", tuple(lead), tuple(body)))
        elif w in ("%", "%*", "%,*", "{}"):
            steps.append((w,))
        elif w.startswith("T:"):
            steps.append(("types", w[2:]))
        elif "@" in w:
            name, kind = w.split("@")
            steps.append(("attribute", name, _reader(kind)))
        elif w[0].isalpha():
            steps.append(("word", w))
        else:
            steps.append(("punct", w))
    if nested:
        raise ValueError("'?(' without ')?'")
    return steps, i


_UNARY = "% {} : T:same"
_BINARY = "% , % {} : T:same"
_FUNCTIONAL = "%* {} : T:fn"
_RETURN = "%* {} ?( : T:operands )?"

_FORMAT_TEXT: dict[str, str] = {
    **{
        f"stablehlo.{op}": _UNARY
        for op in (
            "abs cbrt ceil convert count_leading_zeros cosine exponential exponential_minus_one "
            "floor imag is_finite log log_plus_one logistic not negate popcnt real "
            "round_nearest_afz round_nearest_even rsqrt sign sine sqrt tan tanh "
            "uniform_quantize uniform_dequantize"
        ).split()
    },
    **{
        f"stablehlo.{op}": _BINARY
        for op in (
            "add atan2 divide maximum minimum multiply power remainder shift_left "
            "shift_right_arithmetic shift_right_logical subtract and or xor"
        ).split()
    },
    **{
        f"stablehlo.{op}": _FUNCTIONAL
        for op in (
            "bitcast_convert dynamic_update_slice reshape dynamic_reshape real_dynamic_slice "
            "dynamic_pad compute_reshape_shape cstr_reshapable"
        ).split()
    },
    "stablehlo.complex": "% , % {} : T:complex",
    "stablehlo.compare": (
        "comparison_direction@enum.comparison_direction , % , % "
        "?( , compare_type@enum.comparison_type )? {} : T:fn"
    ),
    "stablehlo.iota": "dim = iota_dimension@int {} : T:results",
    "stablehlo.dynamic_iota": "% , dim = iota_dimension@int {} : T:fn",
    "stablehlo.create_token": "{} : T:results",
    "stablehlo.replica_id": "{} : T:results",
    "stablehlo.partition_id": "{} : T:results",
    "stablehlo.after_all": "%* {} : T:vsame",
    "stablehlo.get_tuple_element": "% [ index@int ] {} : T:fn",
    "stablehlo.tuple": "%* {} : T:tuple",
    "stablehlo.slice": "% _@slice {} : T:fn",
    "stablehlo.dynamic_slice": "% , %,* sizes = slice_sizes@i64s {} : T:fn",
    "stablehlo.broadcast": "% , sizes = broadcast_sizes@i64s {} : T:fn",
    "stablehlo.broadcast_in_dim": "% , dims = broadcast_dimensions@i64s {} : T:fn",
    "stablehlo.dynamic_broadcast_in_dim": "% , % , dims = broadcast_dimensions@i64s {} : T:fn",
    "stablehlo.cholesky": "% ?( , lower = lower@bool )? {} : T:same",
    "stablehlo.clamp": "% , % , % {} : T:same",
    "stablehlo.concatenate": "%,* dim = dimension@int {} : T:fn",
    "stablehlo.convolution": (
        "( %* ) dim_numbers = dimension_numbers@convdims , window = { _@window } {} : T:fn"
    ),
    "stablehlo.custom_call": "call_target_name@symbol ( %* ) {} : T:fn",
    "stablehlo.dot": "% , % ?( , precision = precision_config@precision )? {} : T:fn",
    "stablehlo.dot_general": (
        "% , % , dot_dimension_numbers@dotdims "
        "?( , precision = precision_config@precision )? "
        "?( , algorithm = algorithm@algorithm )? {} : T:fn"
    ),
    "stablehlo.einsum": "% , % , config = einsum_config@str {} : T:fn",
    "stablehlo.unary_einsum": "% , config = einsum_config@str {} : T:fn",
    "stablehlo.fft": ("% , type = fft_type@enum.fft_type , length = fft_length@i64s {} : T:fn"),
    "stablehlo.get_dimension_size": "% , dim = dimension@int {} : T:fn",
    "stablehlo.set_dimension_size": "% , % , dim = dimension@int {} : T:fn",
    "stablehlo.select": "%* {} : T:select",
    "stablehlo.reverse": "% , dims = dimensions@i64s {} : T:same",
    "stablehlo.pad": (
        "% , % , low = edge_padding_low@i64s , high = edge_padding_high@i64s , "
        "interior = interior_padding@i64s {} : T:fn"
    ),
    "stablehlo.trace": "% , tag@str {} : T:operands",
    "stablehlo.transpose": "% , dims = permutation@i64s {} : T:fn",
    "stablehlo.return": _RETURN,
    "stablehlo.rng": (
        "% , % , % , distribution = rng_distribution@enum.rng_distribution {} : T:fn"
    ),
    "stablehlo.rng_bit_generator": "% , algorithm = rng_algorithm@enum.rng_algorithm {} : T:fn",
    "stablehlo.reduce_precision": "% , format = _@exponent_mantissa {} : T:same",
    "stablehlo.composite": "name@str %* {} : T:fn",
    "func.return": _RETURN,
    "func.call": "callee@symbol ( %* ) {} : T:fn",
    "chlo.top_k": "( % , k = k@int ) {} : T:fn",
    "check.expect_eq": "% , % {} : T:operands",
    "check.expect_almost_eq": "% , % ?( , tolerance = tolerance@float )? {} : T:operands",
    "check.expect_eq_const": "% , value@attribute {} T:value",
    "check.expect_almost_eq_const": (
        "% , value@attribute ?( , tolerance = tolerance@float )? {} T:value"
    ),
    "check.expect_close": (
        "% , % , max_ulp_difference = max_ulp_difference@int "
        "?( , min_ulp_difference = min_ulp_difference@int )? : {} T:operands"
    ),
    "check.expect_serialized_eq": (
        "% , probe_id = probe_id@str ?( , iter = iteration@int )? {} : T:operands"
    ),
    "interpreter.probe": "% , probe_id = probe_id@str {} : T:same",
    "interpreter.print": "% {} : T:same",
}


# -- attribute readers of the format language --------------------------------------------------


def _read_int(p, op: PendingOp, name: str) -> None:
    op.attributes[name] = p.integer()


def _read_float(p, op: PendingOp, name: str) -> None:
    value = p.parse_attribute()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise p.error(f"expected a number for '{name}'")
    op.attributes[name] = float(value)


def _read_bool(p, op: PendingOp, name: str) -> None:
    pos = p.skip()
    word = p.bare_id("true or false")
    if word not in ("true", "false"):
        raise p.error(f"expected true or false, found '{word}'", pos)
    op.attributes[name] = word == "true"


def _read_str(p, op: PendingOp, name: str) -> None:
    op.attributes[name] = p.string()


def _read_symbol(p, op: PendingOp, name: str) -> None:
    op.attributes[name] = p.parse_symbol()


def _read_attribute(p, op: PendingOp, name: str) -> None:
    pos = p.skip()
    op.attributes[name] = p.parse_attribute()
    if p.last_attr_type is None:
        raise p.error(f"expected a typed value for '{name}' (value : type)", pos)
    op.operand_types = [p.last_attr_type]


def _int_list(p, close: str = "]") -> list[int]:
    p.expect("[")
    values: list[int] = []
    if not p.at(close):
        values.append(p.integer())
        while p.eat(","):
            values.append(p.integer())
    p.expect(close, f"',' or '{close}' in an integer list")
    return values


def _read_i64s(p, op: PendingOp, name: str) -> None:
    op.attributes[name] = tuple(_int_list(p))


def _read_enum(kind: str) -> Callable:
    def read(p, op: PendingOp, name: str) -> None:
        if p.at("#"):
            op.attributes[name] = p.parse_attribute()
        else:
            op.attributes[name] = EnumAttr(kind, p.bare_id(f"a {kind} value"))

    return read


def _read_slice(p, op: PendingOp, name: str) -> None:
    """``[0:2, 1:4:2]``: start, limit and stride (1 unless given) per dimension."""
    starts, limits, strides = [], [], []
    p.expect("[", "'[' starting the slice ranges")
    if not p.at("]"):
        while True:
            starts.append(p.integer("a start index"))
            p.expect(":")
            limits.append(p.integer("a limit index"))
            strides.append(p.integer("a stride") if p.eat(":") else 1)
            if not p.eat(","):
                break
    p.expect("]", "',' or ']' in the slice ranges")
    op.attributes["start_indices"] = tuple(starts)
    op.attributes["limit_indices"] = tuple(limits)
    op.attributes["strides"] = tuple(strides)


def _read_exponent_mantissa(p, op: PendingOp, name: str) -> None:
    m = p.match(_EXPONENT_MANTISSA)
    if m is None:
        raise p.error(f"expected a format such as e5m10, found {p.found()}")
    op.attributes["exponent_bits"] = int(m.group(1))
    op.attributes["mantissa_bits"] = int(m.group(2))


def _read_dot_dims(p, op: PendingOp, name: str) -> None:
    """``batching_dims = [0] x [0], contracting_dims = [2] x [1]`` (batching optional)."""
    fields = {k: list(v) for k, v in DIALECT_DEFAULTS["stablehlo.dot"].items()}
    if p.eat_word("batching_dims"):
        p.expect("=")
        fields["lhs_batching_dimensions"] = _int_list(p)
        p.expect_word("x")
        fields["rhs_batching_dimensions"] = _int_list(p)
        p.expect(",")
    p.expect_word("contracting_dims")
    p.expect("=")
    fields["lhs_contracting_dimensions"] = _int_list(p)
    p.expect_word("x")
    fields["rhs_contracting_dimensions"] = _int_list(p)
    op.attributes[name] = DialectAttr("stablehlo.dot", fields)


def _read_precision(p, op: PendingOp, name: str) -> None:
    p.expect("[")
    values: list = []
    if not p.at("]"):
        while True:
            if p.at("#"):
                values.append(p.parse_attribute())
            else:
                values.append(EnumAttr("precision", p.bare_id("a precision")))
            if not p.eat(","):
                break
    p.expect("]", "',' or ']' in the precision list")
    op.attributes[name] = values


def _read_algorithm(p, op: PendingOp, name: str) -> None:
    p.expect("<", "'<' starting the dot algorithm")
    fields = p.parse_fields("stablehlo.dot_algorithm", DIALECT_DEFAULTS["stablehlo.dot_algorithm"])
    p.expect(">", "',' or '>' in the dot algorithm")
    op.attributes[name] = DialectAttr("stablehlo.dot_algorithm", fields)


def _read_conv_dims(p, op: PendingOp, name: str) -> None:
    op.attributes[name] = p.parse_conv_dims()


_WINDOW_KEYS = {
    "stride": "window_strides",
    "pad": "padding",
    "lhs_dilate": "lhs_dilation",
    "rhs_dilate": "rhs_dilation",
    "reverse": "window_reversal",
}


def _read_window(p, op: PendingOp, name: str) -> None:
    """``stride = [..], pad = [[lo, hi], ..], lhs_dilate = .., rhs_dilate = .., reverse = ..``."""
    if p.at("}"):
        return
    while True:
        key_pos = p.skip()
        key = p.bare_id("a window attribute")
        attr = _WINDOW_KEYS.get(key)
        if attr is None:
            raise p.error(f"unknown window attribute '{key}'", key_pos)
        if attr in op.attributes:
            raise p.error(f"duplicate window attribute '{key}'", key_pos)
        p.expect("=")
        if key == "pad":
            pairs: list[list[int]] = []
            p.expect("[")
            if not p.at("]"):
                while True:
                    pair_pos = p.skip()
                    pair = _int_list(p)
                    if len(pair) != 2:
                        raise p.error("each padding entry is [low, high]", pair_pos)
                    pairs.append(pair)
                    if not p.eat(","):
                        break
            p.expect("]", "',' or ']' in the padding")
            array = np.array(pairs, dtype=np.int64).reshape(len(pairs), 2)
            op.attributes[attr] = DenseElements(Literal.from_numpy(array))
        elif key == "reverse":
            p.expect("[")
            flags: list[bool] = []
            if not p.at("]"):
                while True:
                    flag_pos = p.skip()
                    word = p.match(_FLAG)
                    if word is None:
                        raise p.error(f"expected true or false, found {p.found()}", flag_pos)
                    flags.append(word.group(0) in ("true", "1"))
                    if not p.eat(","):
                        break
            p.expect("]", "',' or ']' in the window reversal")
            op.attributes[attr] = tuple(flags)
        else:
            op.attributes[attr] = tuple(_int_list(p))
        if not p.eat(","):
            return


_ATTRIBUTE_READERS: dict[str, Callable] = {
    "int": _read_int,
    "float": _read_float,
    "bool": _read_bool,
    "str": _read_str,
    "symbol": _read_symbol,
    "attribute": _read_attribute,
    "i64s": _read_i64s,
    "slice": _read_slice,
    "exponent_mantissa": _read_exponent_mantissa,
    "dotdims": _read_dot_dims,
    "precision": _read_precision,
    "algorithm": _read_algorithm,
    "convdims": _read_conv_dims,
    "window": _read_window,
}


def _reader(kind: str) -> Callable:
    if kind.startswith("enum."):
        return _read_enum(kind[len("enum.") :])
    return _ATTRIBUTE_READERS[kind]


class FormatMixin:
    """Running a compiled format; mixed into the parser."""

    def run_format(self, steps: tuple, op: PendingOp) -> None:
        for step in steps:
            kind = step[0]
            if kind == "punct":
                self.expect(step[1])
            elif kind == "word":
                self.expect_word(step[1])
            elif kind == "%":
                op.operands.append(self.parse_use())
            elif kind == "%*":
                if self.at("%"):
                    op.operands.append(self.parse_use())
                    while self.eat(","):
                        op.operands.append(self.parse_use())
            elif kind == "%,*":
                while self.at("%"):
                    op.operands.append(self.parse_use())
                    self.expect(",")
            elif kind == "{}":
                if self.at("{"):
                    dict_pos = self.skip()
                    for key, value in self.parse_attr_dict().items():
                        if key in op.attributes:
                            raise self.error(f"attribute '{key}' is given twice", dict_pos)
                        op.attributes[key] = value
            elif kind == "attribute":
                step[2](self, op, step[1])
            elif kind == "types":
                self.expand_types(step[1], op)
            elif kind == "optional":
                if self._leads(step[1]):
                    self.run_format(step[2], op)
            else:  # pragma: no cover - the format table is fixed
                raise AssertionError(step)

    def _leads(self, lead: tuple) -> bool:
        save = self.pos
        try:
            for kind, literal in lead:
                ok = self.eat(literal) if kind == "punct" else self.eat_word(literal)
                if not ok:
                    return False
            return True
        finally:
            self.pos = save

    def parse_signature(self) -> tuple[list[MlirType], list[MlirType] | None]:
        """After ``:``: ``(T, ..) -> R``, ``T, .. -> R`` or a bare type list."""
        if self.at("("):
            return self.parse_function_type()
        lhs = self.parse_type_list()
        if self.eat("->"):
            return lhs, self.parse_result_types()
        return lhs, None

    def expand_types(self, kind: str, op: PendingOp) -> None:
        """Spells out every operand and result type: pretty forms print one type where
        several are implied (``add %a, %b : T``; ``select %p, %a, %b : P, T``;
        ``complex %a, %b : tensor<complex<f32>>``) and the generic form prints them all."""
        n = len(op.operands)
        if kind == "value":  # check.expect_*_const: the constant's type is the operand's
            op.operand_types = op.operand_types * n if op.operand_types else None
            op.result_types = []
            return
        pos = self.skip()
        lhs, rhs = self.parse_signature()
        if rhs is not None:
            if kind == "operands":
                raise self.error(f"'{op.name}' has no results; write only the operand types", pos)
            operands, results = lhs, rhs
        elif kind in ("same", "fn", "vsame") and len(lhs) == 1:
            operands, results = lhs * n, lhs
        elif kind == "complex" and len(lhs) == 1:
            part = _COMPONENT.get(element_name(lhs[0]))
            if part is None:
                raise self.error(f"'{op.name}' needs a complex result type", pos)
            operands, results = [with_element_type(lhs[0], part)] * n, lhs
        elif kind == "select" and len(lhs) == 2:
            operands, results = [lhs[0], lhs[1], lhs[1]], lhs[1:]
        elif kind == "tuple" and len(lhs) == 1 and tuple_elements(lhs[0]) is not None:
            operands, results = list(tuple_elements(lhs[0])), lhs
        elif kind == "pairwise":
            operands, results = lhs, lhs
        elif kind == "results":
            operands, results = [], lhs
        elif kind == "operands":
            operands, results = (lhs * n if len(lhs) == 1 else lhs), []
        else:
            raise self.error(f"expected '->' and the result types of '{op.name}'", self.pos)
        if len(operands) != n:
            raise self.error(
                f"'{op.name}' has {n} operands but the signature gives {len(operands)} types",
                pos,
            )
        op.operand_types, op.result_types = operands, results


# -- ops with hand-written printers --------------------------------------------------------------


def _parse_constant(p: FormatMixin, op: PendingOp) -> None:
    """``constant {attrs}? value : type``, or ``constant() <{value = ..}> : () -> T`` (used
    when the result type differs from the value's, as for quantized constants)."""
    if p.eat("("):
        p.expect(")")
        if p.eat("<"):
            op.attributes.update(p.parse_attr_dict())
            p.expect(">")
        if p.at("{"):
            op.attributes.update(p.parse_attr_dict())
        p.expect(":")
        op.operand_types, op.result_types = p.parse_function_type()
        return
    if p.at("{"):
        op.attributes.update(p.parse_attr_dict())
    value_pos = p.skip()
    value = p.parse_attribute()
    if p.last_attr_type is None:
        raise p.error("expected a typed constant value (dense<...> : tensor<...>)", value_pos)
    op.attributes["value"] = value
    op.operand_types, op.result_types = [], [p.last_attr_type]


def _parse_while(p: FormatMixin, op: PendingOp) -> None:
    """``while(%iterArg = %init, ..) : T, .. [attributes {..}] cond {..} do {..}``."""
    names: list[tuple[str, int]] = []
    p.expect("(", "'(' starting the loop variables")
    if not p.at(")"):
        while True:
            pos = p.skip()
            m = p.match(SSA_USE)
            if m is None or m.group(2) is not None:
                raise p.error(f"expected a loop variable (%name), found {p.found()}")
            names.append(("%" + m.group(1), pos))
            p.expect("=", "'=' and the loop variable's initial value")
            op.operands.append(p.parse_use())
            if not p.eat(","):
                break
    p.expect(")", "',' or ')' in the loop variables")
    types: list[MlirType] = []
    if names or p.at(":"):
        p.expect(":", "':' and the loop variable types")
        types_pos = p.skip()
        types = p.parse_type_list()
        if len(types) != len(names):
            raise p.error(f"{len(names)} loop variables but {len(types)} types", types_pos)
    if p.eat_word("attributes"):
        op.attributes.update(p.parse_attr_dict())
    args = [(name, t) for (name, _), t in zip(names, types, strict=True)]
    p.expect_word("cond")
    cond = p.parse_region(entry_args=args, dialect="stablehlo")
    p.expect_word("do")
    body = p.parse_region(entry_args=args, dialect="stablehlo")
    op.regions = [cond, body]
    op.operand_types, op.result_types = types, list(types)


def _parse_reduce(p: FormatMixin, op: PendingOp) -> None:
    """``reduce(%x init: %z), .. applies OP across dimensions = [..] : sig`` or the same with
    ``across dimensions = [..] : sig reducer(%a: T, %b: T) (..) {..}``."""
    inputs: list[tuple[str, int]] = []
    inits: list[tuple[str, int]] = []
    while True:
        p.expect("(", "'(' starting a reduce input")
        inputs.append(p.parse_use())
        p.expect_word("init")
        p.expect(":")
        inits.append(p.parse_use())
        p.expect(")", "')' after the init value")
        if not p.eat(","):
            break
    op.operands = inputs + inits
    applied = None
    if p.eat_word("applies"):
        applied_pos = p.skip()
        applied = p.bare_id("the applied op")
        if "." not in applied:
            raise p.error(f"'{applied}' is not an op name (dialect.op)", applied_pos)
    p.expect_word("across")
    p.expect_word("dimensions")
    p.expect("=")
    op.attributes["dimensions"] = tuple(_int_list(p))
    if p.at("{"):
        op.attributes.update(p.parse_attr_dict())
    p.expect(":", "':' and the reduce signature")
    sig_pos = p.skip()
    operand_types, result_types = p.parse_function_type()
    n = len(inputs)
    if len(operand_types) != 2 * n or len(result_types) != n:
        raise p.error(f"a reduce of {n} inputs needs {2 * n} operand and {n} result types", sig_pos)
    op.operand_types, op.result_types = operand_types, result_types
    scalar_types = operand_types[n:]
    if applied is not None:
        lhs = [(p.fresh_name(), t) for t in scalar_types]
        rhs = [(p.fresh_name(), t) for t in scalar_types]
        args = lhs + rhs
        outs = [p.fresh_name() for _ in scalar_types]
        line, column = p.line_column(applied_pos)
        inner = Operation(
            applied,
            [a for a, _ in args],
            [t for _, t in args],
            outs,
            scalar_types,
            {},
            [],
            line,
            column,
        )
        ret = Operation("stablehlo.return", outs, list(scalar_types), [], [], {}, [], line, column)
        op.regions = [Region([Block(args, [inner, ret])])]
        return
    p.expect_word("reducer")
    groups: list[list[tuple[str, MlirType]]] = []
    p.scopes.append({})  # the reducer's arguments are defined by its region below
    try:
        while p.at("("):
            group_pos = p.skip()
            group = p.parse_block_arguments()
            if len(group) != 2:
                raise p.error("each reducer group is (%accumulator: T, %value: T)", group_pos)
            groups.append(group)
    finally:
        p.scopes.pop()
    if len(groups) != n:
        raise p.error(f"a reduce of {n} inputs needs {n} reducer argument groups")
    args = [g[0] for g in groups] + [g[1] for g in groups]
    op.regions = [p.parse_region(entry_args=args, dialect="stablehlo")]


def _parse_optimization_barrier(p: FormatMixin, op: PendingOp) -> None:
    """``optimization_barrier {attrs}? %a, %b : T, U`` or ``optimization_barrier()``."""
    if p.at("{"):
        op.attributes.update(p.parse_attr_dict())
    if p.eat("("):
        p.expect(")", "')': an optimization barrier without operands is written '()'")
        op.operand_types, op.result_types = [], []
        return
    op.operands.append(p.parse_use())
    while p.eat(","):
        op.operands.append(p.parse_use())
    p.expect(":", "':' and the operand types")
    types = p.parse_type_list()
    op.operand_types, op.result_types = types, list(types)


def _fix_custom_call(op: PendingOp) -> None:
    """The target is a string in the generic form, a symbol in the pretty one: one value."""
    target = op.attributes.get("call_target_name")
    if isinstance(target, str):
        op.attributes["call_target_name"] = SymbolRef(target)


GENERIC_FIXUPS: dict[str, Callable[[PendingOp], None]] = {"stablehlo.custom_call": _fix_custom_call}

# Ops the pretty form of which is just `operands attr-dict : signature` (chlo's, and the
# best guess for dialects xlapy does not know).
FALLBACK_FORMAT = _compile(_FUNCTIONAL)

PRETTY_FORMATS: dict[str, tuple | Callable] = {
    **{name: _compile(fmt) for name, fmt in _FORMAT_TEXT.items()},
    "stablehlo.constant": _parse_constant,
    "chlo.constant": _parse_constant,
    "stablehlo.while": _parse_while,
    "stablehlo.reduce": _parse_reduce,
    "stablehlo.optimization_barrier": _parse_optimization_barrier,
    **SDY_FORMATS,
}

__all__ = [
    "FALLBACK_FORMAT",
    "GENERIC_FIXUPS",
    "OP_DEFAULTS",
    "PRETTY_FORMATS",
    "FormatMixin",
    "PendingOp",
]
