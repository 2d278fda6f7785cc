"""MLIR attribute values, read into the plain Python values ``ast`` documents.

``dense<...>`` becomes a ``DenseElements`` holding an xlapy ``Literal`` of the
tensor type; hex blobs (``dense<"0x...">``, little-endian, as JAX prints every
constant above 100 elements) decode with one numpy call so that megabyte
constants cost milliseconds. The structured StableHLO attributes
(``#stablehlo.gather<...>`` and friends) get every field, defaults filled in,
so that the pretty and the generic form of an op give equal values and the
lowering never has to know which fields the printer chose to omit.
"""

from __future__ import annotations

import copy
import re

import ml_dtypes
import numpy as np

from ...errors import InvalidArgumentError, ParseError
from ...literal import Literal
from ...shape import Shape
from ...types import PrimitiveType as P
from ..ast import (
    ConvDimensionNumbers,
    DenseElements,
    DialectAttr,
    EnumAttr,
    FunctionType,
    MlirType,
    OpaqueAttr,
    SymbolRef,
    TypedFloat,
    TypedInt,
)
from .lexer import BARE_ID, MAX_NESTING, NUMBER, SYMBOL, unescape
from .sdy import SDY_ATTRIBUTE_BODIES, parse_manual_axes_body
from .types import BUILTIN_SCALAR

_DIALECT_ATTR = re.compile(r"#([A-Za-z_][A-Za-z0-9_$]*)((?:\.[A-Za-z0-9_$]+)*)")
_DENSE_TOKEN = re.compile(r"[\[\]()]|[^\s,\[\]()]+")
_INDEX_TENSOR = re.compile(r"tensor<((?:[0-9]+x)*)index>")
_CONV_LABEL = re.compile(r"[0-9]+|[A-Za-z]")
_BRACKETS = frozenset("[]()")
_UINT_BY_BYTES = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_TYPE_STARTS = ("tensor<", "tuple<", "complex<", "vector<", "memref<")
_OPAQUE_WORDS = ("affine_map", "affine_set", "dense_resource", "sparse", "strided", "opaque")

# Every field of the structured StableHLO attributes, with the value an omitted field means.
DIALECT_DEFAULTS: dict[str, dict[str, object]] = {
    "stablehlo.gather": {
        "offset_dims": [],
        "collapsed_slice_dims": [],
        "operand_batching_dims": [],
        "start_indices_batching_dims": [],
        "start_index_map": [],
        "index_vector_dim": 0,
    },
    "stablehlo.scatter": {
        "update_window_dims": [],
        "inserted_window_dims": [],
        "input_batching_dims": [],
        "scatter_indices_batching_dims": [],
        "scatter_dims_to_operand_dims": [],
        "index_vector_dim": 0,
    },
    "stablehlo.dot": {
        "lhs_batching_dimensions": [],
        "rhs_batching_dimensions": [],
        "lhs_contracting_dimensions": [],
        "rhs_contracting_dimensions": [],
    },
    "stablehlo.dot_algorithm": {
        "lhs_precision_type": None,
        "rhs_precision_type": None,
        "accumulation_type": None,
        "lhs_component_count": 1,
        "rhs_component_count": 1,
        "num_primitive_operations": 1,
        "allow_imprecise_accumulation": False,
    },
    "stablehlo.channel_handle": {"handle": 0, "type": 0},
    "stablehlo.output_operand_alias": {
        "output_tuple_indices": [],
        "operand_index": 0,
        "operand_tuple_indices": [],
    },
    "stablehlo.result_accuracy": {
        "atol": 0.0,
        "rtol": 0.0,
        "ulps": 0,
        "mode": EnumAttr("result_accuracy_mode", "DEFAULT"),
    },
    "stablehlo.type_extensions": {"bounds": []},
}


def _int_bounds(et: P) -> tuple[int, int]:
    """Accepted literal range: signless ints take either reading (255 : i8 is -1)."""
    if et == P.PRED:
        return 0, 1
    info = ml_dtypes.iinfo(et.dtype)
    if et.is_unsigned_integral:
        return 0, int(info.max)
    return int(info.min), 2 * int(info.max) + 1


def _to_int(token: str) -> int:
    """The integer ``token`` (decimal or 0x hex); ``ValueError`` for more digits than any
    element type holds (``int()`` itself refuses past 4300 digits)."""
    if len(token) > 48:
        raise ValueError(f"integer {token[:20]}... has {len(token)} digits, too many for any type")
    return int(token, 16) if "x" in token else int(token)


def _wrap_ints(values: list[int], et: P) -> np.ndarray:
    if et.is_signed_integral:
        half = 1 << (et.bit_width - 1)
        values = [v - 2 * half if v >= half else v for v in values]
    return np.array(values, dtype=np.uint64 if et.is_unsigned_integral else np.int64)


def _floats_from_bits(bits: list[int], et: P) -> np.ndarray:
    dtype = et.dtype
    raw = np.array(bits, dtype=np.uint64).astype(_UINT_BY_BYTES[dtype.itemsize])
    if et.is_sub_byte:
        raw &= (1 << et.bit_width) - 1
    return raw.view(dtype)


class AttrMixin:
    """Attribute reading; mixed into the parser (needs the Scanner and TypeMixin)."""

    last_attr_type: MlirType | None = None
    _attr_depth = 0  # attributes being read around the current one

    def parse_attribute(self):
        """One attribute value; sets ``last_attr_type`` when it carried ``: type``."""
        if self._attr_depth >= MAX_NESTING:
            raise self.error(
                f"attributes nest more than {MAX_NESTING} deep, the most xlapy supports"
            )
        self._attr_depth += 1
        try:
            return self._parse_attribute()
        finally:
            self._attr_depth -= 1

    def _parse_attribute(self):
        self.last_attr_type = None
        p = self.skip()
        if p >= self.end:
            raise self.error("expected an attribute value, found end of input")
        c = self.text[p]
        if c == '"':
            value = self.string()
            self._optional_scalar_type()
            return value
        if c == "[":
            self.pos += 1
            items: list = []
            if not self.eat("]"):
                items.append(self.parse_attribute())
                while self.eat(","):
                    items.append(self.parse_attribute())
                self.expect("]", "',' or ']' in a list")
            self.last_attr_type = None
            return items
        if c == "{":
            return self.parse_attr_dict()
        if c == "@":
            return self.parse_symbol()
        if c == "#":
            return self._parse_hash_attribute()
        if c.isdigit() or c in "-+":
            return self._parse_number()
        if c == "(":
            inputs, results = self.parse_function_type()
            return FunctionType(tuple(inputs), tuple(results))
        if c == "!" or self.text.startswith(_TYPE_STARTS, p, self.end):
            return self.parse_type()
        m = BARE_ID.match(self.text, p, self.end)
        if m is None:
            raise self.error(f"expected an attribute value, found {self.found()}")
        word = m.group(0)
        if word == "dense" and self.text.startswith("<", m.end(), self.end):
            self.pos = m.end()
            return self._parse_dense(p)
        if word == "array" and self.text.startswith("<", m.end(), self.end):
            self.pos = m.end()
            return self._parse_array()
        if word in ("true", "false"):
            self.pos = m.end()
            self._optional_scalar_type()
            return word == "true"
        if word == "unit":
            self.pos = m.end()
            return True
        if word in _OPAQUE_WORDS and self.text.startswith("<", m.end(), self.end):
            self.pos = m.end()
            self.balanced()
            if word in ("dense_resource", "sparse") and self.eat(":"):
                self.last_attr_type = self.parse_type()
            return OpaqueAttr(" ".join(self.text[p : self.pos].split()))
        if word == "distinct":
            self.pos = m.end()
            self.balanced()
            self.balanced()
            return OpaqueAttr(self.text[p : self.pos])
        if BUILTIN_SCALAR.match(self.text, p, self.end):
            return self.parse_type()
        raise self.error(f"expected an attribute value, found {self.found()}")

    def parse_attr_dict(self) -> dict:
        """``{name = value, unit_name, "quoted name" = value}``."""
        self.expect("{")
        out: dict = {}
        if self.eat("}"):
            return out
        while True:
            key_pos = self.skip()
            if self.text.startswith('"', key_pos, self.end):
                key = self.string()
            else:
                key = self.bare_id("an attribute name")
            if key in out:
                raise self.error(f"duplicate attribute '{key}'", key_pos)
            if not self.eat("="):
                out[key] = True
            elif key == "mhlo.backend_config" and self.at("{"):
                out[key] = self.parse_typed_dict()
            else:
                out[key] = self.parse_attribute()
            if not self.eat(","):
                break
        self.expect("}", "',' or '}' in an attribute dictionary")
        return out

    def parse_typed_dict(self) -> dict:
        """A typed-FFI dictionary: its numbers keep the text they were written with
        (``86 : ui8``, as ``TypedInt``/``TypedFloat``), which XLA carries into HLO."""
        self.expect("{")
        out: dict = {}
        if self.eat("}"):
            return out
        while True:
            key_pos = self.skip()
            key = self.string() if self.at('"') else self.bare_id("an attribute name")
            if key in out:
                raise self.error(f"duplicate attribute '{key}'", key_pos)
            if not self.eat("="):
                out[key] = True
                if not self.eat(","):
                    break
                continue
            start = self.skip()
            value = self.parse_typed_dict() if self.at("{") else self.parse_attribute()
            text = " ".join(self.text[start : self.pos].split())
            if isinstance(value, int) and not isinstance(value, bool):
                value = TypedInt(value, text)
            elif isinstance(value, float):
                value = TypedFloat(value, text)
            out[key] = value
            if not self.eat(","):
                break
        self.expect("}", "',' or '}' in an attribute dictionary")
        return out

    def parse_symbol(self) -> SymbolRef:
        start = self.skip()
        m = self.match(SYMBOL)
        if m is None:
            raise self.error(f"expected a symbol (@name), found {self.found()}")
        name = m.group(1) if m.group(1) is not None else unescape(m.group(2))
        while self.text.startswith("::", self.pos, self.end):  # nested reference @a::@b
            self.pos += 2
            inner = self.parse_symbol()
            name = f"{name}::@{inner.name}"
        if not name:
            raise self.error("empty symbol name", start)
        return SymbolRef(name)

    # -- scalars -------------------------------------------------------------------------
    def _optional_scalar_type(self) -> MlirType | None:
        """``: type`` after a scalar, taken only when it is a builtin scalar type: in
        ``tolerance = 0.1 : tensor<f64>`` the type belongs to the op, not the number."""
        save = self.pos
        if self.eat(":"):
            p = self.skip()
            if BUILTIN_SCALAR.match(self.text, p, self.end):
                t = self.parse_type()
                self.last_attr_type = t
                return t
        self.pos = save
        return None

    def _parse_number(self):
        start = self.skip()
        m = self.match(NUMBER)
        if m is None:
            raise self.error(f"expected a number, found {self.found()}")
        token = m.group(0)
        t = self._optional_scalar_type()
        et = None if t is None or t.shape is None else t.shape.element_type
        is_float_text = "." in token
        float_type = (et is not None and (et.is_float or et.is_complex)) or (
            t is not None and et is None and t.text.startswith(("f", "bf", "tf"))
        )
        if float_type:
            if is_float_text or "x" not in token:
                return float(token)
            bits = self._integer(token, start)
            if et is None:
                return bits  # the bits of a float type xlapy does not model
            if bits < 0 or bits >= 1 << et.bit_width:
                raise self.error(f"{token} is not a bit pattern of {t.text}", start)
            return float(_floats_from_bits([bits], et)[0].astype(np.float64))
        if is_float_text:
            if t is not None:
                raise self.error(f"a float is not a valid {t.text} value", start)
            return float(token)
        return self._integer(token, start)

    def _integer(self, token: str, pos: int) -> int:
        try:
            return _to_int(token)
        except ValueError as e:
            raise self.error(str(e), pos) from None

    # -- dense<...> ----------------------------------------------------------------------
    def _parse_dense(self, start: int):
        self.expect("<")
        body_pos = self.skip()
        text = self.text
        hex_body = None
        if text.startswith('"', body_pos, self.end):
            hex_body = self.string()
            content = None
        else:
            close = text.find(">", body_pos, self.end)
            if close < 0:
                raise self.error("unterminated dense<...>: no closing '>'", body_pos)
            content = text[body_pos:close]
            self.pos = close
        self.expect(">")
        self.expect(":", "':' and the type of the dense literal")
        type_pos = self.skip()
        t = self.parse_type()
        self.last_attr_type = t
        shape = t.shape
        index_tensor = _INDEX_TENSOR.fullmatch(t.text)
        if index_tensor:  # index tensors (custom-call layouts) hold plain integers
            dims = [int(d) for d in index_tensor.group(1).split("x") if d]
            shape = Shape.array(P.S64, dims)
        if shape is None:
            return OpaqueAttr(" ".join(text[start : self.pos].split()))
        if not shape.is_array:
            raise self.error(f"dense<...> needs a tensor type, not {t.text}", type_pos)
        if not shape.is_static:
            raise self.error(f"dense<...> needs a static shape, not {t.text}", type_pos)
        et, dims = shape.element_type, shape.dimensions
        try:
            if hex_body is not None:
                array = self._dense_hex(hex_body, et, dims, body_pos)
            else:
                array = self._dense_values(content, et, dims, body_pos)
            return DenseElements(Literal.from_numpy(array, element_type=et))
        except InvalidArgumentError as e:
            raise self.error(f"invalid dense literal for {t.text}: {e}", body_pos) from None

    def _dense_hex(self, body: str, et: P, dims: tuple[int, ...], pos: int) -> np.ndarray:
        if not body.startswith("0x"):
            raise self.error("a string dense literal must be hex data ('0x...')", pos)
        try:
            data = bytes.fromhex(body[2:])
        except ValueError:
            raise self.error("invalid hex digits in the dense literal", pos) from None
        count = int(np.prod(dims, dtype=np.int64))
        dtype = et.dtype
        item = dtype.itemsize
        if len(data) == count * item:
            raw = np.frombuffer(data, dtype=_UINT_BY_BYTES[item] if not et.is_complex else dtype)
        elif len(data) == item and count != 1:
            raw = np.frombuffer(data, dtype=_UINT_BY_BYTES[item] if not et.is_complex else dtype)
            raw = np.repeat(raw, count)
        elif et == P.PRED and len(data) == (count + 7) // 8:
            raw = np.unpackbits(np.frombuffer(data, np.uint8), bitorder="little")[:count]
        else:
            raise self.error(
                f"the hex data has {len(data)} bytes; {count} elements of "
                f"{et.hlo_name} need {count * item}",
                pos,
            )
        if et.is_complex:
            values = raw.astype(dtype)
        elif et == P.PRED:
            values = raw != 0
        elif et.is_sub_byte:
            bits = raw & np.uint8((1 << et.bit_width) - 1)
            if et.is_float:
                values = bits.view(dtype)
            elif et.is_signed_integral:
                half = 1 << (et.bit_width - 1)
                values = ((bits.astype(np.int16) ^ half) - half).astype(dtype)
            else:
                values = bits.astype(dtype)
        else:
            values = raw.view(dtype)
        return values.reshape(dims)

    def _dense_values(self, content: str, et: P, dims: tuple[int, ...], pos: int) -> np.ndarray:
        tokens = _DENSE_TOKEN.findall(content)
        count = int(np.prod(dims, dtype=np.int64))
        if not tokens:
            if count != 0:
                raise self.error(f"dense<> is empty but the type has {count} elements", pos)
            return np.zeros(dims, dtype=et.dtype)
        leaves: list = []
        if tokens[0] == "[":
            shape, end = self._dense_nest(tokens, 0, leaves, et.is_complex, pos)
            if end != len(tokens):
                raise self.error("unexpected text after the dense list", pos)
            if tuple(shape) != tuple(dims):
                raise self.error(
                    f"the dense literal has shape {list(shape)} but the type says {list(dims)}",
                    pos,
                )
        else:
            end = self._dense_leaf(tokens, 0, leaves, et.is_complex, pos)
            if end != len(tokens):
                raise self.error("a dense splat holds one value", pos)
        values = self._dense_convert(leaves, et, pos)
        if len(values) != count:
            values = np.broadcast_to(values, (count,))
        return values.reshape(dims)

    def _dense_leaf(self, tokens: list[str], i: int, leaves: list, cplx: bool, pos: int) -> int:
        if tokens[i] == "(":
            pair = tokens[i + 1 : i + 4]
            if len(pair) != 3 or pair[2] != ")" or pair[0] in _BRACKETS or pair[1] in _BRACKETS:
                raise self.error("a complex value is written (real, imag)", pos)
            if not cplx:
                raise self.error("a (real, imag) pair needs a complex element type", pos)
            leaves.append((tokens[i + 1], tokens[i + 2]))
            return i + 4
        if tokens[i] in _BRACKETS:
            raise self.error(f"unexpected '{tokens[i]}' in the dense literal", pos)
        if cplx:
            raise self.error("a complex element is written (real, imag)", pos)
        leaves.append(tokens[i])
        return i + 1

    def _dense_nest(
        self, tokens: list[str], i: int, leaves: list, cplx: bool, pos: int, depth: int = 0
    ) -> tuple[list[int], int]:
        """Reads one bracketed list at ``tokens[i]``; returns its shape and the next index."""
        if depth >= MAX_NESTING:
            raise self.error(f"the dense literal nests more than {MAX_NESTING} lists deep", pos)
        i += 1
        count = 0
        inner: list[int] | None = None
        while i < len(tokens) and tokens[i] != "]":
            if tokens[i] == "[":
                shape, i = self._dense_nest(tokens, i, leaves, cplx, pos, depth + 1)
                if inner is not None and shape != inner:
                    raise self.error("the dense literal's nested lists differ in length", pos)
                if inner is None and count:
                    raise self.error("the dense literal mixes values and lists", pos)
                inner = shape
            else:
                if inner is not None:
                    raise self.error("the dense literal mixes values and lists", pos)
                i = self._dense_leaf(tokens, i, leaves, cplx, pos)
            count += 1
        if i >= len(tokens):
            raise self.error("unbalanced '[' in the dense literal", pos)
        return [count, *(inner or [])], i + 1

    def _dense_convert(self, leaves: list, et: P, pos: int) -> np.ndarray:
        try:
            if et.is_complex:
                part = et.component_type
                re_ = self._dense_convert([c[0] for c in leaves], part, pos)
                im = self._dense_convert([c[1] for c in leaves], part, pos)
                out = np.empty(len(leaves), dtype=et.dtype)
                out.real, out.imag = re_, im  # not re + 1j * im: inf * 1j is nan
                return out
            if et == P.PRED:
                out = []
                for tok in leaves:
                    if tok in ("true", "1"):
                        out.append(True)
                    elif tok in ("false", "0"):
                        out.append(False)
                    else:
                        raise ValueError(f"'{tok}' is not a boolean")
                return np.array(out, dtype=np.bool_)
            if et.is_integral:
                lo, hi = _int_bounds(et)
                values = [_to_int(tok) for tok in leaves]
                for v in values:
                    if not lo <= v <= hi:
                        raise ValueError(f"{v} is out of range for {et.hlo_name}")
                return _wrap_ints(values, et).astype(et.dtype)
            if not any("x" in tok for tok in leaves):
                with np.errstate(all="ignore"):  # MLIR too rounds 1e39 : f32 to inf
                    return np.array([float(t) for t in leaves], dtype=np.float64).astype(et.dtype)
            out = np.zeros(len(leaves), dtype=et.dtype)
            for k, tok in enumerate(leaves):
                if "x" in tok and "." not in tok:  # a bit pattern: NaN payloads survive
                    bits = _to_int(tok)
                    if bits < 0 or bits >= 1 << et.bit_width:
                        raise ValueError(f"{tok} is not a bit pattern of {et.hlo_name}")
                    out[k] = _floats_from_bits([bits], et)[0]
                else:
                    with np.errstate(all="ignore"):
                        out[k] = np.float64(float(tok)).astype(et.dtype)
            return out
        except (ValueError, OverflowError) as e:
            raise self.error(f"invalid dense element: {e}", pos) from None

    # -- array<...> ----------------------------------------------------------------------
    def _parse_array(self) -> tuple:
        self.expect("<")
        t_pos = self.skip()
        t = self.parse_type()
        et = None if t.shape is None else t.shape.element_type
        if et is None or t.shape.dimensions:
            raise self.error(f"array<...> holds scalars, not {t.text}", t_pos)
        values: list = []
        if self.eat(":"):
            while True:
                vpos = self.skip()
                if et == P.PRED:
                    word = self.bare_id("true or false")
                    if word not in ("true", "false"):
                        raise self.error(f"expected true or false, found '{word}'", vpos)
                    values.append(word == "true")
                else:
                    m = self.match(NUMBER)
                    if m is None:
                        raise self.error(f"expected a number, found {self.found()}")
                    tok = m.group(0)
                    if et.is_float:
                        values.append(float(tok))
                    elif "." in tok:
                        raise self.error(f"a float is not a valid {t.text} value", vpos)
                    else:
                        values.append(self._integer(tok, vpos))
                if not self.eat(","):
                    break
        self.expect(">", "',' or '>' in array<...>")
        self.last_attr_type = None
        return tuple(values)

    # -- #dialect attributes -------------------------------------------------------------
    def _parse_hash_attribute(self):
        start = self.skip()
        m = self.match(_DIALECT_ATTR)
        if m is None:
            raise self.error(f"expected an attribute, found {self.found()}")
        dialect, rest = m.group(1), m.group(2)
        if not self.text.startswith("<", self.pos, self.end):
            name = m.group(0)
            if name in self.attr_aliases:
                return self.attr_aliases[name]
            raise self.error(f"undefined attribute alias {name}", start)
        if not rest and dialect == "sdy":  # #sdy<manual_axes{"x"}>
            self.expect("<")
            value = parse_manual_axes_body(self)
            self.expect(">", "'>' closing #sdy<manual_axes...>")
            return value
        if not rest:  # #stablehlo<comparison_direction LT>
            save = self.pos
            self.pos += 1
            kind = BARE_ID.match(self.text, self.skip(), self.end)
            if kind is not None:
                self.pos = kind.end()
                value = BARE_ID.match(self.text, self.skip(), self.end)
                if value is not None:
                    self.pos = value.end()
                    if self.eat(">"):
                        return EnumAttr(kind.group(0), value.group(0))
            self.pos = save
            self.balanced()
            return OpaqueAttr(" ".join(self.text[start : self.pos].split()))
        name = dialect + rest
        special = _SPECIAL_BODIES.get(name)
        if special is not None:
            self.expect("<")
            value = special(self, name)
            self.expect(">", f"'>' closing #{name}<...>")
            return value
        return self._parse_dialect_body(name, start)

    def _parse_dialect_body(self, name: str, start: int):
        """``<key = value, ...>`` fields or a lone ``<IDENT>`` enum; anything else opaque."""
        defaults = DIALECT_DEFAULTS.get(name)
        save = self.pos
        self.expect("<")
        if defaults is not None:
            fields = self.parse_fields(name, defaults)
            self.expect(">", f"',' or '>' in #{name}<...>")
            return DialectAttr(name, fields)
        word = BARE_ID.match(self.text, self.skip(), self.end)
        if word is not None:
            after = self._skip_from(word.end())
            if self.text.startswith(">", after, self.end):
                self.pos = after + 1
                return EnumAttr(name.split(".", 1)[1], word.group(0))
            if self.text.startswith("=", after, self.end):
                try:
                    fields = self.parse_fields(name, None)
                    self.expect(">")
                    return DialectAttr(name, fields)
                except ParseError:
                    pass  # not key = attribute pairs: keep the text
        self.pos = save
        self.balanced()
        return OpaqueAttr(" ".join(self.text[start : self.pos].split()))

    def _skip_from(self, pos: int) -> int:
        save = self.pos
        self.pos = pos
        p = self.skip()
        self.pos = save
        return p

    def parse_fields(self, name: str, defaults: dict | None) -> dict:
        """``key = value`` pairs up to (not including) the closing ``>``."""
        fields: dict = {}
        if not self.at(">"):
            while True:
                key_pos = self.skip()
                key = self.bare_id("a field name")
                if defaults is not None and key not in defaults:
                    raise self.error(f"#{name} has no field '{key}'", key_pos)
                if key in fields:
                    raise self.error(f"duplicate field '{key}'", key_pos)
                self.expect("=")
                fields[key] = self.parse_attribute()
                if not self.eat(","):
                    break
        if defaults is not None:
            for key, value in defaults.items():
                if key not in fields:
                    fields[key] = copy.copy(value)
            for key in ("lhs_precision_type", "rhs_precision_type", "accumulation_type"):
                if name == "stablehlo.dot_algorithm" and fields[key] is None:
                    raise self.error(f"#{name} needs '{key}'")
        self.last_attr_type = None
        return fields

    # -- special syntaxes ----------------------------------------------------------------
    def parse_bounds_list(self, close: str) -> list[int | None]:
        """``4, ?`` bounds: an integer or ``?`` (no bound) per dimension."""
        out: list[int | None] = []
        if self.at(close):
            return out
        while True:
            if self.eat("?"):
                out.append(None)
            else:
                out.append(self.integer("a bound or '?'"))
            if not self.eat(","):
                return out

    def parse_conv_dims(self) -> ConvDimensionNumbers:
        """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` (or the ``raw`` field form)."""
        if self.eat_word("raw"):
            start = self.pos
            fields = self.parse_fields("stablehlo.conv", None)
            try:
                return ConvDimensionNumbers(
                    **{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
                )
            except TypeError as e:
                raise self.error(f"invalid convolution dimension numbers: {e}", start) from None
        lhs = self._conv_layout("b", "f")
        self.expect_word("x")
        rhs = self._conv_layout("i", "o")
        self.expect("->")
        out = self._conv_layout("b", "f")
        return ConvDimensionNumbers(lhs[0], lhs[1], lhs[2], rhs[0], rhs[1], rhs[2], *out)

    def _conv_layout(self, first: str, second: str) -> tuple[int, int, tuple[int, ...]]:
        start = self.skip()
        self.expect("[", "'[' starting a convolution layout")
        labels: list[str] = []
        if not self.at("]"):
            while True:
                m = self.match(_CONV_LABEL)
                if m is None:
                    raise self.error(f"expected a dimension label, found {self.found()}")
                labels.append(m.group(0))
                if not self.eat(","):
                    break
        self.expect("]", "',' or ']' in a convolution layout")
        spatial = sorted(int(x) for x in labels if x.isdigit())
        expected = sorted([first, second] + [str(i) for i in range(len(labels) - 2)])
        if sorted(labels) != expected or spatial != list(range(len(labels) - 2)):
            raise self.error(
                f"a convolution layout needs '{first}', '{second}' and spatial dimensions "
                f"0..n-1 once each, got [{', '.join(labels)}]",
                start,
            )
        spatial_positions = [0] * (len(labels) - 2)
        for position, label in enumerate(labels):
            if label.isdigit():
                spatial_positions[int(label)] = position
        return labels.index(first), labels.index(second), tuple(spatial_positions)


def _bounds_body(parser: AttrMixin, name: str) -> DialectAttr:
    return DialectAttr(name, {"bounds": parser.parse_bounds_list(">")})


def _type_extensions_body(parser: AttrMixin, name: str) -> DialectAttr:
    bounds: list[int | None] = []
    if parser.eat_word("bounds"):
        parser.expect("=")
        parser.expect("[")
        bounds = parser.parse_bounds_list("]")
        parser.expect("]")
    return DialectAttr(name, {"bounds": bounds})


def _conv_body(parser: AttrMixin, name: str) -> ConvDimensionNumbers:
    return parser.parse_conv_dims()


_SPECIAL_BODIES = {
    "stablehlo.bounds": _bounds_body,
    "stablehlo.type_extensions": _type_extensions_body,
    "mhlo.type_extensions": _type_extensions_body,
    "stablehlo.conv": _conv_body,
    **SDY_ATTRIBUTE_BODIES,
}

__all__ = ["AttrMixin", "DIALECT_DEFAULTS"]
