"""Shapes: arrays (element type, dimensions, layout), tuples and tokens.

A ``Shape`` is immutable and hashable, so the compiler can use shapes as keys
and share them between instructions without defensive copies. Its text form is
exactly HLO's (``f32[2,3]{1,0}``, ``(f32[2]{0}, s32[])``, ``token[]``,
``f32[<=10]``), and :meth:`Shape.parse` reads what :meth:`Shape.__str__`
writes, so shapes round-trip through HLO text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from .errors import InvalidArgumentError, ParseError, UnimplementedError
from .layout import (
    Layout,
    PaddingValue,
    check_layout_for_dimensions,
    parse_tile_list,
    physical_element_count,
)
from .types import PrimitiveType

UNBOUNDED_SIZE = -(2**63)  # XLA's kUnboundedSize: a dynamic dimension with no bound ("?")
INT64_MAX = 2**63 - 1  # dimension sizes and element counts are int64 in XLA
# How deep tuple shapes may nest. XLA sets no limit, but every walk over a shape, a
# literal or a value (printing, comparing, converting) follows the nesting, and real
# programs nest a handful of levels; a bound here keeps all of those walks far from
# Python's recursion limit, so a deep tuple is a clear error instead of a RecursionError.
MAX_TUPLE_DEPTH = 64

_DEFAULT = object()  # sentinel: "give this array the default layout"


class Shape:
    """An array, tuple, token or opaque shape; see the module docstring."""

    __slots__ = (
        "_element_type",
        "_dimensions",
        "_dynamic",
        "_layout",
        "_tuple_shapes",
        "_hash",
        "_depth",
    )

    def __init__(
        self,
        element_type: PrimitiveType,
        dimensions: Sequence[int] = (),
        dynamic_dimensions: Sequence[bool] | None = None,
        layout: Layout | None = None,
        tuple_shapes: Sequence[Shape] = (),
    ) -> None:
        self._element_type = element_type_of(element_type)
        self._dimensions = _dimension_sizes(dimensions)
        self._dynamic = (
            tuple(bool(b) for b in dynamic_dimensions)
            if dynamic_dimensions is not None
            else (False,) * len(self._dimensions)
        )
        if layout is None and self._element_type.is_array_type and not self._dimensions:
            layout = Layout(())  # a scalar's layout is trivial; keep one so text round-trips
        self._layout = layout
        self._tuple_shapes = tuple(tuple_shapes)
        self._hash: int | None = None
        self._depth = 0
        self._validate()

    def _validate(self) -> None:
        et = self._element_type
        if et == PrimitiveType.TUPLE:
            for s in self._tuple_shapes:
                if not isinstance(s, Shape):
                    raise InvalidArgumentError(f"tuple element {s!r} is not a Shape")
            self._depth = 1 + max((s._depth for s in self._tuple_shapes), default=0)
            if self._depth > MAX_TUPLE_DEPTH:
                raise UnimplementedError(
                    f"tuple shapes nested {self._depth} deep; xlapy supports at most "
                    f"{MAX_TUPLE_DEPTH} levels of nesting (flatten the tuple)"
                )
            return
        if et == PrimitiveType.PRIMITIVE_TYPE_INVALID:
            raise InvalidArgumentError("PRIMITIVE_TYPE_INVALID is not an element type")
        if len(self._dynamic) != len(self._dimensions):
            raise InvalidArgumentError(
                f"dynamic_dimensions {list(self._dynamic)} must have one entry per dimension "
                f"({len(self._dimensions)})"
            )
        if not et.is_array_type and (self._dimensions or self._layout):
            raise InvalidArgumentError(f"a {et.hlo_name} shape has no dimensions or layout")
        for i, (d, dyn) in enumerate(zip(self._dimensions, self._dynamic, strict=True)):
            if d < 0 and not (dyn and d == UNBOUNDED_SIZE):
                raise InvalidArgumentError(
                    f"dimension {i} of {et.hlo_name}{list(self._dimensions)} has negative size "
                    f"{d}; sizes must be >= 0 (or '?' for an unbounded dynamic dimension)"
                )
        too_big = [d for d in self._dimensions if d > INT64_MAX]
        if too_big:
            raise InvalidArgumentError(
                f"dimension size {too_big[0]} of {et.hlo_name}{list(self._dimensions)} does not "
                f"fit in int64; sizes must be at most {INT64_MAX}"
            )
        if math.prod(self._bounds_for_layout()) > INT64_MAX:
            raise InvalidArgumentError(
                f"{et.hlo_name}{list(self._dimensions)} has more than {INT64_MAX} elements "
                "(the element count must fit in int64)"
            )
        if self._layout is not None:
            check_layout_for_dimensions(self._layout, self._bounds_for_layout())

    def _bounds_for_layout(self) -> tuple[int, ...]:
        return tuple(0 if d == UNBOUNDED_SIZE else d for d in self._dimensions)

    # -- construction -----------------------------------------------------
    @staticmethod
    def array(
        element_type: PrimitiveType,
        dimensions: Sequence[int],
        layout: Layout | Sequence[int] | None | object = _DEFAULT,
        dynamic_dimensions: Sequence[bool] | None = None,
    ) -> Shape:
        """An array shape; default (major-to-minor) layout unless one is given.

        ``layout`` may be a ``Layout``, a minor_to_major sequence, or ``None``
        for a shape without layout (as HLO text without ``{...}``).
        """
        element_type = element_type_of(element_type)
        if not element_type.is_array_type:
            raise InvalidArgumentError(
                f"Shape.array needs an array element type, not {element_type.hlo_name}; "
                "use Shape.tuple() or Shape.token()"
            )
        dimensions = _dimension_sizes(dimensions)
        if layout is _DEFAULT:
            layout = Layout.default(len(dimensions))
        elif layout is not None and not isinstance(layout, Layout):
            layout = Layout(tuple(layout))  # type: ignore[arg-type]
        return Shape(element_type, dimensions, dynamic_dimensions, layout)  # type: ignore[arg-type]

    @staticmethod
    def scalar(element_type: PrimitiveType) -> Shape:
        return Shape.array(element_type, ())

    @staticmethod
    def tuple(shapes: Iterable[Shape]) -> Shape:
        return Shape(PrimitiveType.TUPLE, tuple_shapes=tuple(shapes))

    @staticmethod
    def token() -> Shape:
        return Shape(PrimitiveType.TOKEN)

    @staticmethod
    def opaque() -> Shape:
        return Shape(PrimitiveType.OPAQUE_TYPE)

    @staticmethod
    def parse(text: str) -> Shape:
        """Read a shape in HLO text form; ``ParseError`` points at what is wrong."""
        if not isinstance(text, str):
            raise InvalidArgumentError(f"Shape.parse needs a string, got {type(text).__name__}")
        shape, pos = parse_shape_at(text, 0)
        pos = _skip_space(text, pos)
        if pos != len(text):
            raise ParseError(
                f"unexpected text after the shape: {text[pos:]!r}", text=text, offset=pos
            )
        return shape

    # -- accessors --------------------------------------------------------
    @property
    def element_type(self) -> PrimitiveType:
        return self._element_type

    @property
    def dimensions(self) -> tuple[int, ...]:
        return self._dimensions

    @property
    def dynamic_dimensions(self) -> tuple[bool, ...]:
        return self._dynamic

    @property
    def layout(self) -> Layout | None:
        return self._layout

    @property
    def tuple_shapes(self) -> tuple[Shape, ...]:
        if not self.is_tuple:
            raise InvalidArgumentError(f"{self} is not a tuple shape")
        return self._tuple_shapes

    @property
    def is_array(self) -> bool:
        return self._element_type.is_array_type

    @property
    def is_tuple(self) -> bool:
        return self._element_type == PrimitiveType.TUPLE

    @property
    def is_token(self) -> bool:
        return self._element_type == PrimitiveType.TOKEN

    @property
    def is_opaque(self) -> bool:
        return self._element_type == PrimitiveType.OPAQUE_TYPE

    @property
    def is_scalar(self) -> bool:
        return self.is_array and not self._dimensions

    @property
    def rank(self) -> int:
        if not self.is_array:
            raise InvalidArgumentError(f"{self} is not an array shape; only arrays have a rank")
        return len(self._dimensions)

    @property
    def has_layout(self) -> bool:
        if self.is_tuple:
            return all(s.has_layout for s in self._tuple_shapes)
        return self._layout is not None or not self.is_array

    @property
    def is_static(self) -> bool:
        if self.is_tuple:
            return all(s.is_static for s in self._tuple_shapes)
        return not any(self._dynamic)

    @property
    def tuple_depth(self) -> int:
        """How deep tuples nest in this shape: 0 for an array, 1 for a tuple of arrays."""
        return self._depth

    def is_dynamic_dimension(self, dimension: int) -> bool:
        return self._dynamic[dimension]

    @property
    def is_unbounded_dynamic(self) -> bool:
        if self.is_tuple:
            return any(s.is_unbounded_dynamic for s in self._tuple_shapes)
        return UNBOUNDED_SIZE in self._dimensions

    def element_count(self) -> int:
        """Number of logical elements (bounds for dynamic dimensions)."""
        if not self.is_array:
            raise InvalidArgumentError(f"{self} is not an array shape; it has no element count")
        if self.is_unbounded_dynamic:
            raise InvalidArgumentError(f"{self} has an unbounded dimension; its size is unknown")
        return math.prod(self._dimensions)

    def byte_size(self, pointer_size: int = 8) -> int:
        """Bytes of the buffer (XLA's ShapeUtil::ByteSizeOf): padding and tiles included,
        packed sub-byte elements when the layout says so, a pointer per tuple element."""
        if self.is_tuple:
            return pointer_size * len(self._tuple_shapes)
        if not self.is_array:
            return 0
        if self.is_unbounded_dynamic:
            raise InvalidArgumentError(f"{self} has an unbounded dimension; its size is unknown")
        count = physical_element_count(self._dimensions, self._layout)
        bits = (self._layout.element_size_in_bits if self._layout else 0) or (
            8 * self._element_type.byte_width
        )
        return (count * bits + 7) // 8

    def dimension(self, index: int) -> int:
        """Size of a dimension; negative indices count from the end as in Python."""
        rank = self.rank
        if not -rank <= index < rank:
            raise InvalidArgumentError(
                f"dimension {index} is out of range for {self} (rank {rank})"
            )
        return self._dimensions[index]

    # -- derived shapes -----------------------------------------------------
    def with_layout(self, layout: Layout | Sequence[int] | None) -> Shape:
        if layout is not None and not isinstance(layout, Layout):
            layout = Layout(tuple(layout))
        return Shape(self._element_type, self._dimensions, self._dynamic, layout)

    def with_default_layout(self) -> Shape:
        """This shape (recursively for tuples) with the default layout."""
        if self.is_tuple:
            return Shape.tuple(s.with_default_layout() for s in self._tuple_shapes)
        if not self.is_array:
            return self
        return self.with_layout(Layout.default(len(self._dimensions)))

    def without_layout(self) -> Shape:
        if self.is_tuple:
            return Shape.tuple(s.without_layout() for s in self._tuple_shapes)
        if not self.is_array:
            return self
        return self.with_layout(None)

    def with_element_type(self, element_type: PrimitiveType) -> Shape:
        return Shape(element_type, self._dimensions, self._dynamic, self._layout)

    def with_dimensions(self, dimensions: Sequence[int]) -> Shape:
        """Same element type, new dimensions, default layout (if this one has a layout)."""
        layout = Layout.default(len(dimensions)) if self._layout is not None else None
        return Shape(self._element_type, dimensions, None, layout)

    # -- comparisons ----------------------------------------------------------
    def _key(self) -> tuple:
        return (
            self._element_type,
            self._dimensions,
            self._dynamic,
            self._layout,
            self._tuple_shapes,
        )

    def __eq__(self, other: object) -> bool:
        """Equal in everything, layout included (a missing layout differs from any layout)."""
        return isinstance(other, Shape) and self._key() == other._key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def equal(
        self,
        other: Shape,
        *,
        ignore_layout: bool = False,
        ignore_element_type: bool = False,
        ignore_dynamic_dimensions: bool = False,
        ignore_fp_precision: bool = False,
    ) -> bool:
        """ShapeUtil::Equal with XLA's relaxations (Shape::Equal's ignore_* flags)."""
        if self.is_tuple or other.is_tuple:
            return (
                self.is_tuple
                and other.is_tuple
                and len(self._tuple_shapes) == len(other._tuple_shapes)
                and all(
                    a.equal(
                        b,
                        ignore_layout=ignore_layout,
                        ignore_element_type=ignore_element_type,
                        ignore_dynamic_dimensions=ignore_dynamic_dimensions,
                        ignore_fp_precision=ignore_fp_precision,
                    )
                    for a, b in zip(self._tuple_shapes, other._tuple_shapes, strict=True)
                )
            )
        if self.is_array != other.is_array:
            return False
        if not ignore_element_type:
            a, b = self._element_type, other._element_type
            if ignore_fp_precision and a.is_float and b.is_float:
                pass
            elif a != b:
                return False
        if self._dimensions != other._dimensions:
            return False
        if not ignore_dynamic_dimensions and self._dynamic != other._dynamic:
            return False
        return ignore_layout or self._layout == other._layout

    def same_dimensions(self, other: Shape) -> bool:
        """ShapeUtil::SameDimensions: equal dimension sizes, nothing else compared."""
        return self.is_array and other.is_array and self._dimensions == other._dimensions

    def compatible(self, other: Shape) -> bool:
        """ShapeUtil::Compatible: same type and dimensions; layouts are ignored."""
        return self.equal(other, ignore_layout=True)

    def compatible_ignoring_element_type(self, other: Shape) -> bool:
        return self.equal(other, ignore_layout=True, ignore_element_type=True)

    def compatible_ignoring_fp_precision(self, other: Shape) -> bool:
        return self.equal(other, ignore_layout=True, ignore_fp_precision=True)

    # -- text -----------------------------------------------------------------
    def to_string(self, print_layout: bool = True) -> str:
        if self.is_tuple:
            # XLA marks every fifth element of a tuple with its index.
            parts = [
                (f"/*index={i}*/" if i and i % 5 == 0 else "") + s.to_string(print_layout)
                for i, s in enumerate(self._tuple_shapes)
            ]
            return "(" + ", ".join(parts) + ")"
        name = self._element_type.hlo_name
        if not self.is_array:
            return f"{name}[]"
        dims = ",".join(
            _dim_text(d, dyn) for d, dyn in zip(self._dimensions, self._dynamic, strict=True)
        )
        text = f"{name}[{dims}]"
        if (
            print_layout
            and self._layout is not None
            and (self._dimensions or not self._layout.is_plain)
        ):
            text += str(self._layout)
        return text

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"Shape.parse({str(self)!r})"

    def __reduce__(self):  # pickling and copying keep the text form
        return (Shape.parse, (str(self),))


class ProgramShape:
    """The signature of a computation: parameter shapes (and names) and the result.

    Shape rules use it to check called computations (reducers, comparators,
    loop bodies) without seeing the computations themselves.
    """

    __slots__ = ("parameters", "result", "parameter_names")

    def __init__(
        self,
        parameters: Sequence[Shape],
        result: Shape,
        parameter_names: Sequence[str] | None = None,
    ) -> None:
        self.parameters = tuple(parameters)
        self.result = result
        names = tuple(parameter_names) if parameter_names is not None else ()
        if names and len(names) != len(self.parameters):
            raise InvalidArgumentError(
                f"{len(names)} parameter names for {len(self.parameters)} parameters"
            )
        self.parameter_names = names

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ProgramShape)
            and self.parameters == other.parameters
            and self.result == other.result
        )

    def __hash__(self) -> int:
        return hash((self.parameters, self.result))

    def __str__(self) -> str:
        if self.parameter_names:
            params = ", ".join(
                f"{n}: {s}" for n, s in zip(self.parameter_names, self.parameters, strict=True)
            )
        else:
            params = ", ".join(str(s) for s in self.parameters)
        return f"({params}) -> {self.result}"

    def __repr__(self) -> str:
        return f"ProgramShape<{self}>"


def element_type_of(value: object) -> PrimitiveType:
    """``value`` as an element type: a ``PrimitiveType``, its number, or its HLO name
    (``"f32"``); anything else is an ``InvalidArgumentError`` (not the enum's ValueError)."""
    if isinstance(value, PrimitiveType):
        return value
    if isinstance(value, str):
        return PrimitiveType.from_hlo_name(value)
    try:
        return PrimitiveType(value)
    except (ValueError, TypeError):
        raise InvalidArgumentError(
            f"{value!r} is not an element type; pass a PrimitiveType such as xlapy.F32 or an "
            "HLO name such as 'f32'"
        ) from None


def _dimension_sizes(dimensions: Sequence[int]) -> tuple[int, ...]:
    """``dimensions`` as a tuple of Python ints, or ``InvalidArgumentError`` for values
    that are not sizes (``None``, ``inf``, text that is not a number)."""
    try:
        return tuple(int(d) for d in dimensions)
    except (TypeError, ValueError, OverflowError):
        raise InvalidArgumentError(
            f"dimensions must be a sequence of integers, got {dimensions!r}"
        ) from None


def _dim_text(size: int, dynamic: bool) -> str:
    if size == UNBOUNDED_SIZE:
        return "?"
    return f"<={size}" if dynamic else str(size)


# -- parsing -------------------------------------------------------------------

_WS_OR_COMMENT = re.compile(r"(?:\s+|/\*.*?\*/)*", re.S)
_TYPE_NAME = re.compile(r"[a-z][a-z0-9]*")
_INT = re.compile(r"-?\d+")


def _skip_space(text: str, pos: int) -> int:
    """Skip blanks and /*...*/ comments (XLA prints /*index=5*/ in long tuples)."""
    return _WS_OR_COMMENT.match(text, pos).end()


def _expect(text: str, pos: int, char: str, what: str) -> int:
    pos = _skip_space(text, pos)
    if not text.startswith(char, pos):
        found = repr(text[pos]) if pos < len(text) else "the end of the text"
        raise ParseError(f"expected {char!r} {what}, found {found}", text=text, offset=pos)
    return pos + len(char)


def parse_shape_at(text: str, pos: int, depth: int = 0) -> tuple[Shape, int]:
    """Parse one shape starting at ``pos``; return it and the position after it.

    The HLO text parser calls this in the middle of an instruction line. ``depth``
    counts the tuples around ``pos``: the recursion stops at ``MAX_TUPLE_DEPTH``
    with a ``ParseError`` pointing at the tuple that nests too deep.
    """
    pos = _skip_space(text, pos)
    if text.startswith("(", pos):
        if depth >= MAX_TUPLE_DEPTH:
            raise ParseError(
                f"tuple shapes nest more than {MAX_TUPLE_DEPTH} deep, the most xlapy "
                "supports (flatten the tuple)",
                text=text,
                offset=pos,
            )
        pos += 1
        elements: list[Shape] = []
        pos = _skip_space(text, pos)
        if text.startswith(")", pos):
            return Shape.tuple(()), pos + 1
        while True:
            element, pos = parse_shape_at(text, pos, depth + 1)
            elements.append(element)
            pos = _skip_space(text, pos)
            if text.startswith(",", pos):
                pos += 1
                continue
            pos = _expect(text, pos, ")", "to close the tuple shape")
            return Shape.tuple(elements), pos
    m = _TYPE_NAME.match(text, pos)
    if not m:
        found = repr(text[pos]) if pos < len(text) else "the end of the text"
        raise ParseError(
            f"expected a shape such as f32[2,3] or (s32[], f32[4]), found {found}",
            text=text,
            offset=pos,
        )
    try:
        element_type = PrimitiveType.from_hlo_name(m.group())
    except InvalidArgumentError as e:
        raise ParseError(str(e), text=text, offset=pos) from None
    if element_type == PrimitiveType.TUPLE:
        raise ParseError("write a tuple shape as (shape, ...), not tuple[]", text=text, offset=pos)
    pos = _expect(text, m.end(), "[", f"after the element type {m.group()}")
    dims: list[int] = []
    dynamic: list[bool] = []
    pos = _skip_space(text, pos)
    if not text.startswith("]", pos):
        while True:
            pos = _skip_space(text, pos)
            is_dynamic = False
            if text.startswith("?", pos):
                dims.append(UNBOUNDED_SIZE)
                dynamic.append(True)
                pos += 1
            else:
                if text.startswith("<=", pos):
                    is_dynamic = True
                    pos = _skip_space(text, pos + 2)
                mi = _INT.match(text, pos)
                if not mi:
                    found = repr(text[pos]) if pos < len(text) else "the end of the text"
                    raise ParseError(
                        f"expected a dimension size (an integer, <=N or ?), found {found}",
                        text=text,
                        offset=pos,
                    )
                dims.append(parse_dimension_size(mi.group(), text, pos))
                dynamic.append(is_dynamic)
                pos = mi.end()
            pos = _skip_space(text, pos)
            if text.startswith(",", pos):
                pos += 1
                continue
            break
    pos = _expect(text, pos, "]", "to close the dimensions")
    layout = None
    after = _skip_space(text, pos)
    if text.startswith("{", after) and element_type.is_array_type:
        layout, pos = _parse_layout_at(text, after, len(dims))
    if not element_type.is_array_type and dims:
        raise ParseError(
            f"{element_type.hlo_name}[] takes no dimensions", text=text, offset=m.start()
        )
    try:
        shape = Shape(element_type, dims, dynamic, layout)
    except InvalidArgumentError as e:
        raise ParseError(str(e), text=text, offset=m.start()) from None
    return shape, pos


def parse_dimension_size(digits: str, text: str, offset: int) -> int:
    """The dimension size written ``digits`` at ``offset`` of ``text``: an int64 >= 0,
    else a ``ParseError`` there (also for numbers too long for Python's ``int()``)."""
    if digits.startswith("-"):
        raise ParseError(f"dimension size {digits} is negative", text=text, offset=offset)
    if len(digits.lstrip("0")) > len(str(INT64_MAX)) or int(digits) > INT64_MAX:
        shown = digits if len(digits) <= 40 else digits[:20] + "..."
        raise ParseError(
            f"dimension size {shown} does not fit in int64 (at most {INT64_MAX})",
            text=text,
            offset=offset,
        )
    return int(digits)


_ANNOTATION = re.compile(r"([A-Z]+|#)\(")


def _parse_layout_at(text: str, pos: int, rank: int) -> tuple[Layout, int]:
    start = pos
    pos += 1  # '{'
    m2m: list[int] = []
    pos = _skip_space(text, pos)
    while True:
        pos = _skip_space(text, pos)
        mi = _INT.match(text, pos)
        if not mi:
            break
        if len(mi.group()) > 20:  # no rank is that large; int() of 5000 digits would raise
            raise ParseError(
                f"layout dimension {mi.group()[:20]}... is too large", text=text, offset=pos
            )
        m2m.append(int(mi.group()))
        pos = _skip_space(text, mi.end())
        if text.startswith(",", pos):
            pos += 1
            continue
        break
    if len(m2m) != rank:
        raise ParseError(
            f"layout {{{','.join(map(str, m2m))}}} has {len(m2m)} dimensions but the array has "
            f"{rank}; minor_to_major must list every dimension once",
            text=text,
            offset=start,
        )
    tiles = ()
    element_bits = 0
    memory_space = 0
    padded: tuple[int, ...] = ()
    pad_value = PaddingValue.ZERO_PAD
    extras: list[tuple[str, str]] = []
    if text.startswith(":", pos):
        pos += 1
        while True:
            pos = _skip_space(text, pos)
            ma = _ANNOTATION.match(text, pos)
            if not ma:
                break
            name = ma.group(1)
            groups: list[str] = []
            p = ma.end() - 1
            while text.startswith("(", p):
                body, p = _balanced_group(text, p)
                groups.append(body)
                if name != "T":
                    break
            try:
                if name == "T":
                    tiles = parse_tile_list(groups)
                elif name == "E":
                    element_bits = int(groups[0])
                elif name == "S":
                    memory_space = int(groups[0])
                elif name == "PAD":
                    dims_text, _, value_text = groups[0].partition(";")
                    padded = tuple(int(x) for x in dims_text.split(","))
                    if value_text:
                        pad_value = PaddingValue[value_text.strip()]
                else:
                    extras.append((name, groups[0]))
            except (ValueError, KeyError, InvalidArgumentError) as e:
                raise ParseError(
                    f"bad layout annotation {name}({groups[0] if groups else ''}): {e}",
                    text=text,
                    offset=pos,
                ) from None
            pos = p
    pos = _expect(text, pos, "}", "to close the layout")
    try:
        layout = Layout(
            tuple(m2m), tiles, element_bits, memory_space, padded, pad_value, tuple(extras)
        )
    except InvalidArgumentError as e:
        raise ParseError(str(e), text=text, offset=start) from None
    return layout, pos


def _balanced_group(text: str, pos: int) -> tuple[str, int]:
    """The body of the parenthesized group at ``pos`` and the position after it."""
    depth = 0
    for i in range(pos, len(text)):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[pos + 1 : i], i + 1
    raise ParseError("unclosed '(' in the layout", text=text, offset=pos)


def reshape_kept_dimensions(source: Sequence[int], target: Sequence[int]) -> dict[int, int]:
    """The dimensions a reshape from ``source`` to ``target`` keeps whole: source
    dimension -> target dimension, where both have the same size and the same number of
    elements before them in row-major order.

    A dynamic dimension can pass through a reshape only there: its valid elements keep
    their place relative to the dimensions after it (XLA's dynamic dimension inference
    forwards a dynamic size the same way); elsewhere a dynamic size would have to split
    or merge with its neighbours.
    """
    before_target: dict[int, int] = {}
    count = 1
    for e, size in enumerate(target):
        before_target.setdefault(count, e)
        count *= size
    kept: dict[int, int] = {}
    count = 1
    for d, size in enumerate(source):
        e = before_target.get(count)
        # Size-1 target dimensions share a prefix count: walk to the one of this size.
        while e is not None and e < len(target) and target[e] != size and target[e] == 1:
            e += 1
        if e is not None and e < len(target) and target[e] == size:
            kept[d] = e
        count *= size
    return kept


__all__ = [
    "INT64_MAX",
    "MAX_TUPLE_DEPTH",
    "ProgramShape",
    "Shape",
    "UNBOUNDED_SIZE",
    "element_type_of",
    "parse_dimension_size",
    "parse_shape_at",
    "reshape_kept_dimensions",
]
