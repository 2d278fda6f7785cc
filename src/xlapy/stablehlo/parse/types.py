"""MLIR types as StableHLO writes them, read into ``MlirType`` (text + xlapy ``Shape``).

Types without an HLO shape (quantized element types, ``index``, ``tf32``, f6
floats, unknown dialect types, unranked tensors) still parse: they get
``shape=None`` so that the lowering, not the parser, names what is unsupported.
"""

from __future__ import annotations

import re

from ...errors import InvalidArgumentError
from ...shape import INT64_MAX, MAX_TUPLE_DEPTH, UNBOUNDED_SIZE, Shape
from ...types import PrimitiveType as P
from ..ast import DialectAttr, MlirType

ELEMENT_TYPES: dict[str, P] = {
    "i1": P.PRED,
    "i2": P.S2,
    "i4": P.S4,
    "i8": P.S8,
    "i16": P.S16,
    "i32": P.S32,
    "i64": P.S64,
    "si2": P.S2,
    "si4": P.S4,
    "si8": P.S8,
    "si16": P.S16,
    "si32": P.S32,
    "si64": P.S64,
    "ui2": P.U2,
    "ui4": P.U4,
    "ui8": P.U8,
    "ui16": P.U16,
    "ui32": P.U32,
    "ui64": P.U64,
    "f16": P.F16,
    "bf16": P.BF16,
    "f32": P.F32,
    "f64": P.F64,
    "f8E5M2": P.F8E5M2,
    "f8E4M3": P.F8E4M3,
    "f8E4M3FN": P.F8E4M3FN,
    "f8E4M3B11FNUZ": P.F8E4M3B11FNUZ,
    "f8E5M2FNUZ": P.F8E5M2FNUZ,
    "f8E4M3FNUZ": P.F8E4M3FNUZ,
    "f8E3M4": P.F8E3M4,
    "f8E8M0FNU": P.F8E8M0FNU,
    "f4E2M1FN": P.F4E2M1FN,
    "complex<f32>": P.C64,
    "complex<f64>": P.C128,
}

# Builtin scalar type names MLIR knows; the ones outside ELEMENT_TYPES get shape=None.
BUILTIN_SCALAR = re.compile(
    r"(?:index|none|bf16|tf32|f16|f32|f64|f80|f128|[su]?i[0-9]+"
    r"|f[0-9]+E[0-9]+M[0-9]+(?:B11FNUZ|FNUZ|FNU|FN)?)(?![A-Za-z0-9_$.])"
)
_SIMPLE_TENSOR = re.compile(
    r"tensor<((?:[0-9]+x|\?x)*)([a-z][a-zA-Z0-9]*|complex<[a-z][a-z0-9]*>)>"
)
_DIM = re.compile(r"(?:([0-9]+)|\?)x")
_DIALECT_TYPE = re.compile(r"![A-Za-z_][A-Za-z0-9_$.]*")
_TOKEN_TYPES = frozenset(("!stablehlo.token", "!mhlo.token"))
_BOUNDS_ENCODINGS = frozenset(
    ("stablehlo.bounds", "stablehlo.type_extensions", "mhlo.type_extensions")
)

# Parsed types are immutable, so identical texts share one object across parses.
_TYPE_CACHE: dict[str, MlirType] = {}
# The element types of tuple types, which MlirType itself does not keep.
_TUPLE_ELEMENTS: dict[str, tuple[MlirType, ...]] = {}
_CACHE_LIMIT = 50_000


def _remember(cache: dict, key: str, value: object) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def tuple_elements(t: MlirType) -> tuple[MlirType, ...] | None:
    return _TUPLE_ELEMENTS.get(t.text)


def _normalized(text: str) -> str:
    return " ".join(text.split())


def element_name(t: MlirType) -> str:
    """The element type text of a tensor type (``f32`` of ``tensor<2xf32>``)."""
    inner = t.text[len("tensor<") : -1] if t.text.startswith("tensor<") else t.text
    inner = inner.split(",")[0] if "complex<" not in inner else inner
    return re.sub(r"^(?:(?:[0-9]+|\?)x)*", "", inner).strip()


def with_element_type(t: MlirType, name: str) -> MlirType:
    """``t`` with another element type (the real parts of a complex tensor, say)."""
    elem = ELEMENT_TYPES.get(name)
    old = element_name(t)
    text = t.text.replace(old, name, 1) if old else t.text
    shape = None
    if t.shape is not None and t.shape.is_array and elem is not None:
        shape = Shape.array(elem, t.shape.dimensions, dynamic_dimensions=t.shape.dynamic_dimensions)
    return MlirType(text, shape)


class TypeMixin:
    """Type reading; mixed into the parser (needs the Scanner and ``parse_attribute``)."""

    # How many types enclose the one being read (tuple<tuple<...>>, tensor<complex<...>>):
    # bounded so that deep nesting is a ParseError, not a RecursionError.
    _type_depth = 0

    def parse_type(self) -> MlirType:
        p = self.skip()
        m = _SIMPLE_TENSOR.match(self.text, p, self.end)
        if m is not None:
            key = m.group(0)
            t = _TYPE_CACHE.get(key)
            if t is None:
                t = self._simple_tensor(key, m.group(1), m.group(2), p)
                _remember(_TYPE_CACHE, key, t)
            self.pos = m.end()
            return t
        if self._type_depth >= MAX_TUPLE_DEPTH:
            raise self.error(
                f"types nest more than {MAX_TUPLE_DEPTH} deep, the most xlapy supports "
                "(flatten the tuple)",
                p,
            )
        self._type_depth += 1
        try:
            return self._parse_type_general(p)
        finally:
            self._type_depth -= 1

    def parse_type_list(self) -> list[MlirType]:
        types = [self.parse_type()]
        while self.eat(","):
            types.append(self.parse_type())
        return types

    def parse_function_type(self) -> tuple[list[MlirType], list[MlirType]]:
        """``(T, ...) -> R`` or ``(T, ...) -> (R, ...)``."""
        self.expect("(", "'(' starting a function type")
        inputs = [] if self.at(")") else self.parse_type_list()
        self.expect(")")
        self.expect("->", "'->' in a function type")
        return inputs, self.parse_result_types()

    def parse_result_types(self) -> list[MlirType]:
        if self.eat("("):
            if self.eat(")"):
                return []
            types = self.parse_type_list()
            self.expect(")")
            return types
        return [self.parse_type()]

    # -- the cases -----------------------------------------------------------------------
    def _simple_tensor(self, key: str, dims_text: str, elem: str, pos: int) -> MlirType:
        et = ELEMENT_TYPES.get(elem)
        if et is None:
            if not BUILTIN_SCALAR.fullmatch(elem):
                raise self.error(f"unknown element type '{elem}'", pos + len(key) - 1 - len(elem))
            return MlirType(key, None)
        dims: list[int] = []
        dynamic: list[bool] = []
        at = pos + len("tensor<")
        for d in dims_text.split("x")[:-1]:
            if d == "?":
                dims.append(UNBOUNDED_SIZE)
                dynamic.append(True)
            else:
                dims.append(self._dimension(d, at))
                dynamic.append(False)
            at += len(d) + 1
        return MlirType(key, self._shape(et, dims, dynamic, pos))

    def _dimension(self, digits: str, pos: int) -> int:
        """A static dimension size: an int64 (MLIR's), else a ParseError at ``pos``."""
        if len(digits.lstrip("0")) > len(str(INT64_MAX)) or int(digits) > INT64_MAX:
            shown = digits if len(digits) <= 40 else digits[:20] + "..."
            raise self.error(
                f"dimension size {shown} does not fit in int64 (at most {INT64_MAX})", pos
            )
        return int(digits)

    def _shape(self, et: P, dims: list[int], dynamic: list[bool], pos: int) -> Shape:
        try:
            return Shape.array(et, dims, dynamic_dimensions=dynamic)
        except InvalidArgumentError as e:
            raise self.error(f"invalid tensor type: {e}", pos) from None

    def _parse_type_general(self, start: int) -> MlirType:
        text = self.text
        if self.eat("tensor<"):
            return self._parse_tensor(start)
        if self.eat("tuple<"):
            elements: list[MlirType] = []
            if not self.eat(">"):
                elements = self.parse_type_list()
                self.expect(">", "'>' closing the tuple type")
            t_text = _normalized(text[start : self.pos])
            shapes = [e.shape for e in elements]
            shape = None if any(s is None for s in shapes) else Shape.tuple(shapes)
            t = MlirType(t_text, shape)
            _remember(_TUPLE_ELEMENTS, t_text, tuple(elements))
            return t
        if self.eat("complex<"):
            part = self.parse_type()
            self.expect(">", "'>' closing the complex type")
            t_text = f"complex<{part.text}>"
            et = ELEMENT_TYPES.get(t_text)
            return MlirType(t_text, None if et is None else Shape.array(et, ()))
        if start < self.end and text[start] == "!":
            m = self.match(_DIALECT_TYPE)
            if m is None:
                raise self.error(f"expected a type, found {self.found()}")
            name = m.group(0)
            if self.pos < self.end and text[self.pos] == "<":
                self.balanced()
            elif name in self.type_aliases:
                return self.type_aliases[name]
            t_text = _normalized(text[start : self.pos])
            return MlirType(t_text, Shape.token() if t_text in _TOKEN_TYPES else None)
        m = self.match(BUILTIN_SCALAR)
        if m is not None:
            name = m.group(0)
            et = ELEMENT_TYPES.get(name)
            return MlirType(name, None if et is None else Shape.array(et, ()))
        for opaque in ("vector<", "memref<"):
            if self.at(opaque):
                self.pos += len(opaque) - 1
                self.balanced()
                return MlirType(_normalized(text[start : self.pos]), None)
        raise self.error(f"expected a type, found {self.found()}")

    def _parse_tensor(self, start: int) -> MlirType:
        text = self.text
        if self.eat("*"):
            self.expect("x", "'x' after '*' in an unranked tensor type")
            self.parse_type()
            self.expect(">", "'>' closing the tensor type")
            return MlirType(_normalized(text[start : self.pos]), None)
        dims: list[int] = []
        dynamic: list[bool] = []
        self.skip()
        while True:
            m = _DIM.match(text, self.pos, self.end)
            if m is None:
                break
            if m.group(1) is None:
                dims.append(UNBOUNDED_SIZE)
                dynamic.append(True)
            else:
                dims.append(self._dimension(m.group(1), self.pos))
                dynamic.append(False)
            self.pos = m.end()
        elem_pos = self.pos
        elem = self.parse_type()
        encoding = None
        if self.eat(","):
            enc_pos = self.skip()
            encoding = self.parse_attribute()
        self.expect(">", "'>' closing the tensor type")
        t_text = _normalized(text[start : self.pos])
        es = elem.shape
        if es is None or not es.is_array or es.dimensions:
            if es is not None and not (es.is_array and not es.dimensions):
                raise self.error(f"'{elem.text}' is not a tensor element type", elem_pos)
            return MlirType(t_text, None)
        if encoding is not None:
            if not (isinstance(encoding, DialectAttr) and encoding.name in _BOUNDS_ENCODINGS):
                return MlirType(t_text, None)  # an encoding xlapy does not model
            bounds = encoding.fields.get("bounds", [])
            if len(bounds) != len(dims):
                raise self.error(
                    f"the bounds {bounds} need one entry per dimension ({len(dims)})", enc_pos
                )
            for i, b in enumerate(bounds):
                if b is None:
                    continue
                if not dynamic[i]:
                    raise self.error(f"dimension {i} is static and cannot have a bound", enc_pos)
                dims[i] = b
        return MlirType(t_text, self._shape(es.element_type, dims, dynamic, start))
