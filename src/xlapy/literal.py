"""Literals: host values of any shape, stored the way the layout says.

An array literal keeps its elements in one flat, read-only numpy buffer in the
layout's *physical* order, padding and partial tiles included, because that is
what a device buffer of the same shape holds: transfers, bitcasts and
layout-sensitive passes can then move bytes without re-deriving the index
math. For the default (row-major) layout the buffer is simply the C-order
ravel of the logical array, so the common case costs no copy.

Tuple literals hold their element literals; a token literal holds nothing.
Literals are immutable: every operation returns a new literal.

Equality (``equal`` / ``==``) compares shapes ignoring layout and then the
element *bits* of the logical values. That is what XLA's ``Literal::Equal``
does whenever both layouts agree (a ``memcmp`` of the buffers): a NaN equals a
NaN with the same sign and payload, and ``-0.0 != 0.0``. XLA falls back to
C++ ``==`` when layouts differ (so NaN never equals NaN there); xlapy keeps the
bitwise rule in every case so that equality does not depend on layout.
``near`` is the approximate, NaN-aware comparison for numerical results.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

import ml_dtypes
import numpy as np

from .errors import InvalidArgumentError, UnimplementedError
from .layout import Layout, PaddingValue, linear_index, physical_element_count, physical_positions
from .literal_format import format_element, format_literal
from .memory import check_allocation
from .shape import MAX_TUPLE_DEPTH, Shape, element_type_of
from .types import PrimitiveType

P = PrimitiveType

# -- element helpers ------------------------------------------------------------

_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _int_range(element_type: PrimitiveType) -> tuple[int, int]:
    info = ml_dtypes.iinfo(element_type.dtype)
    return int(info.min), int(info.max)


def _float_bits(values: np.ndarray, element_type: PrimitiveType) -> np.ndarray:
    """The stored bit patterns of float values (sub-byte kinds masked to their width)."""
    values = np.ascontiguousarray(values)
    bits = values.view(_UINT_OF_SIZE[values.dtype.itemsize])
    if element_type.is_sub_byte:
        bits = bits & np.uint8((1 << element_type.bit_width) - 1)
    return bits


def _canonical(values: np.ndarray, element_type: PrimitiveType) -> np.ndarray:
    """An array whose elementwise equality is literal equality (bits for floats)."""
    if element_type.is_complex:
        part = element_type.component_type
        return np.stack([_float_bits(values.real, part), _float_bits(values.imag, part)])
    if element_type.is_float:
        return _float_bits(values, element_type)
    if element_type.is_pred:
        return np.asarray(values, dtype=np.bool_)
    wide = np.uint64 if element_type.is_unsigned_integral else np.int64
    return np.asarray(values).astype(wide)


def _float_extremes(element_type: PrimitiveType) -> tuple[float, float]:
    """(lowest, highest) of a float type: infinities when it has them."""
    info = ml_dtypes.finfo(element_type.dtype)
    probe = np.array([np.inf, -np.inf]).astype(element_type.dtype).astype(np.float64)
    has_inf = bool(np.isinf(probe[0]))
    low = -np.inf if has_inf else float(info.min)
    high = np.inf if has_inf else float(info.max)
    return low, high


def _pad_lowest(element_type: PrimitiveType) -> object:
    if element_type.is_float:
        return _float_extremes(element_type)[0]
    if element_type.is_pred:
        return False
    return _int_range(element_type)[0]


def _pad_highest(element_type: PrimitiveType) -> object:
    if element_type.is_float:
        return _float_extremes(element_type)[1]
    if element_type.is_pred:
        return True
    return _int_range(element_type)[1]


_PAD_VALUES = {
    PaddingValue.INVALID_PAD: lambda et: 0,
    PaddingValue.ZERO_PAD: lambda et: 0,
    PaddingValue.ONE_PAD: lambda et: 1,
    PaddingValue.LOWEST_PAD: _pad_lowest,
    PaddingValue.HIGHEST_PAD: _pad_highest,
    PaddingValue.UNKNOWN_PAD: lambda et: 0,
}


def _padding_element(element_type: PrimitiveType, layout: Layout) -> np.ndarray:
    if element_type.is_complex and layout.padding_value in (
        PaddingValue.LOWEST_PAD,
        PaddingValue.HIGHEST_PAD,
    ):
        raise UnimplementedError(
            f"{layout.padding_value.name} is not defined for complex type {element_type}: "
            "complex numbers have no order"
        )
    value = _PAD_VALUES[layout.padding_value](element_type)
    with np.errstate(all="ignore"):
        return np.array(value).astype(element_type.dtype)


@functools.lru_cache(maxsize=256)
def _cached_positions(dimensions: tuple[int, ...], layout: Layout) -> np.ndarray:
    positions = np.ascontiguousarray(physical_positions(dimensions, layout)).ravel()
    positions.flags.writeable = False
    return positions


def _is_row_major(layout: Layout) -> bool:
    return layout.is_plain and layout.minor_to_major == tuple(range(layout.rank - 1, -1, -1))


def _readonly(array: np.ndarray) -> np.ndarray:
    if array.flags.writeable:
        array = array.view()
        array.flags.writeable = False
    return array


def _with_default_layouts(shape: Shape) -> Shape:
    """A literal always has a layout: fill in the default where the shape has none."""
    if shape.is_tuple:
        return Shape.tuple(_with_default_layouts(s) for s in shape.tuple_shapes)
    if shape.is_array and shape.layout is None:
        return Shape(
            shape.element_type,
            shape.dimensions,
            shape.dynamic_dimensions,
            Layout.default(len(shape.dimensions)),
        )
    return shape


def _as_layout(layout: Layout | Sequence[int] | Shape | None, rank: int) -> Layout:
    if layout is None:
        return Layout.default(rank)
    if isinstance(layout, Shape):
        return layout.layout or Layout.default(rank)
    if isinstance(layout, Layout):
        return layout
    try:
        return Layout(tuple(int(d) for d in layout))
    except (TypeError, ValueError, OverflowError):
        raise InvalidArgumentError(
            f"{layout!r} is not a layout; pass a Layout or a minor_to_major sequence"
        ) from None


def _numpy_max_rank() -> int:
    """The most dimensions a numpy array may have (64 in numpy 2, 32 before)."""
    for rank in (64, 32):
        try:
            np.empty((1,) * rank, np.int8)
        except ValueError:
            continue
        return rank
    return 32  # pragma: no cover  (every numpy since 1.0 allows 32)


# Literals hand their values out as numpy arrays, so they have at most numpy's rank.
MAX_RANK = _numpy_max_rank()


# -- Python values ---------------------------------------------------------------

# Python scalar kinds in promotion order and the element type XLA's client picks.
_PY_KIND_ORDER = {bool: 0, int: 1, float: 2, complex: 3}
_PY_KIND_TYPE = {0: P.PRED, 1: P.S32, 2: P.F32, 3: P.C64}
_S32_RANGE = (-(2**31), 2**31 - 1)
_S64_RANGE = (-(2**63), 2**63 - 1)


def _describe_item(shape: tuple[int, ...]) -> str:
    return "a scalar" if not shape else f"a list of length {shape[0]}"


def _index_text(path: tuple[int, ...]) -> str:
    return "".join(f"[{i}]" for i in path)


def _nested_shape(value: object, path: tuple[int, ...], leaves: list[object]) -> tuple[int, ...]:
    """Dimensions of a nested list; the error names the first place lengths differ."""
    if isinstance(value, list) and len(path) >= MAX_RANK:
        raise InvalidArgumentError(
            f"the nested list has more than {MAX_RANK} levels; arrays have at most "
            f"{MAX_RANK} dimensions"
        )
    if isinstance(value, list):
        if not value:
            return (0,)
        shapes = [_nested_shape(v, path + (i,), leaves) for i, v in enumerate(value)]
        first = shapes[0]
        for i, s in enumerate(shapes):
            if s == first:
                continue
            depth = next(
                (k for k in range(min(len(s), len(first))) if s[k] != first[k]),
                min(len(s), len(first)),
            )
            here = path + (i,) + (0,) * depth
            there = path + (0,) * (depth + 1)
            a, b = s[depth:], first[depth:]
            raise InvalidArgumentError(
                f"ragged nested list: at nesting level {len(path) + depth + 1}, element "
                f"{_index_text(here)} is {_describe_item(a)} but element {_index_text(there)} "
                f"is {_describe_item(b)}; every sub-list at one level must have the same length"
            )
        return (len(value),) + first
    if isinstance(value, np.ndarray):
        leaves.append(value)
        return value.shape
    if isinstance(value, (bool, int, float, complex, np.generic)):
        leaves.append(value)
        return ()
    if isinstance(value, tuple):
        raise InvalidArgumentError(
            f"element {_index_text(path)} is a Python tuple inside a nested list; tuples "
            "make tuple literals and cannot be array elements (use a list)"
        )
    raise InvalidArgumentError(
        f"element {_index_text(path)} has type {type(value).__name__}; array literals hold "
        "bool, int, float or complex values (or numpy arrays)"
    )


def _python_element_type(leaves: list[object]) -> PrimitiveType:
    """The element type XLA's Python client gives a collection of Python scalars."""
    if any(isinstance(x, (np.ndarray, np.generic)) for x in leaves):
        return PrimitiveType.from_dtype(np.result_type(*leaves))
    if not leaves:
        return P.F32
    kind = max(next(k for t, k in _PY_KIND_ORDER.items() if isinstance(x, t)) for x in leaves)
    element_type = _PY_KIND_TYPE[kind]
    if element_type == P.S32:
        ints = [int(x) for x in leaves]
        lo, hi = min(ints), max(ints)
        if lo < _S64_RANGE[0] or hi > _S64_RANGE[1]:
            bad = lo if lo < _S64_RANGE[0] else hi
            raise InvalidArgumentError(
                f"Python int {bad} does not fit in s64; pass element_type=U64 for values "
                "up to 2**64-1"
            )
        if lo < _S32_RANGE[0] or hi > _S32_RANGE[1]:
            element_type = P.S64
    return element_type


def _check_int_leaves(leaves: list[object], element_type: PrimitiveType) -> None:
    """numpy silently wraps some narrow ints (s4, u2); XLA would reject them."""
    lo, hi = _int_range(element_type)
    for x in leaves:
        if isinstance(x, (bool, int)) and not lo <= int(x) <= hi:
            raise InvalidArgumentError(
                f"value {x} is out of range for {element_type}, namely [{lo}, {hi}]"
            )


def _to_dtype(array: np.ndarray, element_type: PrimitiveType) -> np.ndarray:
    dtype = element_type.dtype
    if array.dtype == dtype:
        return array
    if array.dtype.kind == "c" and not element_type.is_complex:
        raise InvalidArgumentError(
            f"cannot make a {element_type} literal from complex values (dtype {array.dtype})"
        )
    try:
        with np.errstate(all="ignore"):
            return array.astype(dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise InvalidArgumentError(
            f"cannot convert values of dtype {array.dtype} to {element_type}: {e}"
        ) from None


# -- tolerances -------------------------------------------------------------------

# (rtol, atol) per float type; f8/f4 kinds derive theirs from their precision.
_TOLERANCES: dict[PrimitiveType, tuple[float, float]] = {
    P.F64: (1e-10, 1e-12),
    P.F32: (1e-5, 1e-6),
    P.F16: (2e-3, 1e-3),
    P.BF16: (1.6e-2, 1e-2),
}


def default_tolerance(element_type: PrimitiveType) -> tuple[float, float]:
    """(rtol, atol) that ``near`` uses for an element type; (0, 0) for exact types."""
    element_type = element_type.component_type
    if not element_type.is_float:
        return 0.0, 0.0
    if element_type in _TOLERANCES:
        return _TOLERANCES[element_type]
    mantissa = element_type.exponent_mantissa_bits[1]
    rtol = 2.0 ** (1 - mantissa)  # two units in the last place
    return rtol, float(ml_dtypes.finfo(element_type.dtype).tiny)


def _near_mask(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """True where two float64 arrays differ beyond tolerance (NaN/inf must match)."""
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    with np.errstate(all="ignore"):
        finite = np.isfinite(a) & np.isfinite(b)
        close = np.abs(a - b) <= atol + rtol * np.maximum(np.abs(a), np.abs(b))
    same_special = (a == b) | (nan_a & nan_b)
    return ~np.where(finite, close, same_special)


# -- Literal ----------------------------------------------------------------------


def _from_value(value: object, element_type: PrimitiveType | None, depth: int) -> Literal:
    """``Literal.from_value`` with the tuple nesting around ``value`` counted, so that a
    deeply nested Python tuple is an error rather than a RecursionError."""
    if isinstance(value, Literal):
        return value if element_type is None else value.convert(element_type)
    if isinstance(value, tuple):
        if depth >= MAX_TUPLE_DEPTH:
            raise UnimplementedError(
                f"tuples nested more than {MAX_TUPLE_DEPTH} deep; xlapy supports at most "
                f"{MAX_TUPLE_DEPTH} levels of nesting (flatten the tuple)"
            )
        return Literal.make_tuple(_from_value(v, element_type, depth + 1) for v in value)
    return Literal._from_python(value, element_type)


class Literal:
    """A host value of an array, tuple or token shape; see the module docstring."""

    __slots__ = ("_shape", "_data", "_elements")

    def __init__(self, shape: Shape, data: np.ndarray | None = None) -> None:
        if not isinstance(shape, Shape):
            raise InvalidArgumentError(f"Literal needs a Shape, got {type(shape).__name__}")
        shape = _with_default_layouts(shape)
        self._shape = shape
        self._data: np.ndarray | None = None
        self._elements: tuple[Literal, ...] = ()
        if shape.is_tuple:
            if data is not None:
                raise InvalidArgumentError(
                    f"a tuple literal {shape} has no flat data buffer; use Literal.make_tuple"
                )
            self._elements = tuple(Literal(s) for s in shape.tuple_shapes)
        elif shape.is_token:
            if data is not None:
                raise InvalidArgumentError("a token literal holds no data")
        elif shape.is_array:
            self._data = self._checked_buffer(shape, data)
        else:
            raise UnimplementedError(f"literals of {shape} are not supported (opaque values)")

    @staticmethod
    def _checked_buffer(shape: Shape, data: np.ndarray | None) -> np.ndarray:
        if shape.is_unbounded_dynamic:
            raise UnimplementedError(
                f"a literal of {shape} needs a size for its unbounded dimension; "
                "unbounded dynamic literals are not supported"
            )
        if len(shape.dimensions) > MAX_RANK:
            raise InvalidArgumentError(
                f"a literal of {shape} has rank {len(shape.dimensions)}; literals hold at most "
                f"{MAX_RANK} dimensions (numpy's limit)"
            )
        et = shape.element_type
        count = physical_element_count(shape.dimensions, shape.layout)
        if data is None:
            return _readonly(Literal._fresh_buffer(shape))
        if not isinstance(data, np.ndarray):
            raise InvalidArgumentError(
                f"data must be a numpy array (the flat physical buffer), got {type(data).__name__}"
            )
        if data.dtype != et.dtype:
            raise InvalidArgumentError(
                f"data has dtype {data.dtype} but a {et} literal stores {et.dtype}"
            )
        if data.ndim != 1 or data.size != count:
            raise InvalidArgumentError(
                f"data for {shape} must be a 1-D buffer of {count} elements (its physical size, "
                f"padding included), got shape {data.shape}"
            )
        return _readonly(np.ascontiguousarray(data))

    @staticmethod
    def _fresh_buffer(shape: Shape) -> np.ndarray:
        """Zeros where elements live, the padding value everywhere else."""
        dims, layout = shape.dimensions, shape.layout
        count = physical_element_count(dims, layout)
        dtype = shape.element_type.dtype
        check_allocation(count * dtype.itemsize, f"a literal of {shape}")
        if layout.is_plain:
            return np.zeros(count, dtype)
        buffer = np.full(count, _padding_element(shape.element_type, layout), dtype)
        buffer[_cached_positions(dims, layout)] = np.zeros((), dtype)
        return buffer

    @classmethod
    def _of(cls, shape: Shape, data: np.ndarray | None, elements: tuple[Literal, ...]) -> Literal:
        """Internal constructor: the caller guarantees consistency."""
        lit = object.__new__(cls)
        lit._shape, lit._data, lit._elements = shape, data, elements
        return lit

    # -- construction ---------------------------------------------------------
    @staticmethod
    def from_numpy(
        array: object,
        layout: Layout | Sequence[int] | None = None,
        element_type: PrimitiveType | None = None,
    ) -> Literal:
        """An array literal of a numpy array's values; shares its memory when it can.

        With the default layout and a C-contiguous input, the buffer is a view of
        ``array`` (as ``np.asarray`` would be): do not mutate the source afterwards.
        """
        try:
            arr = np.asarray(array)
        except (ValueError, TypeError, OverflowError) as e:  # ragged lists, odd objects
            raise InvalidArgumentError(
                f"Literal.from_numpy: cannot make an array of {type(array).__name__}: {e}"
            ) from None
        if not arr.dtype.isnative:
            arr = arr.astype(arr.dtype.newbyteorder("="))
        if element_type is None:
            element_type = PrimitiveType.from_dtype(arr.dtype)
        else:
            element_type = element_type_of(element_type)
            if not element_type.is_array_type:
                raise InvalidArgumentError(f"{element_type} is not an array element type")
            arr = _to_dtype(arr, element_type)
        layout = _as_layout(layout, arr.ndim)
        shape = Shape(element_type, arr.shape, None, layout)
        if _is_row_major(layout):
            data = arr.ravel(order="C")
        elif layout.is_plain:
            data = arr.transpose(layout.major_to_minor).ravel(order="C")
        else:
            data = Literal._fresh_buffer(shape)
            data[_cached_positions(shape.dimensions, layout)] = arr.ravel(order="C")
        return Literal._of(shape, _readonly(data), ())

    @staticmethod
    def from_value(value: object, element_type: PrimitiveType | None = None) -> Literal:
        """A literal from Python/numpy values: scalars, nested lists, arrays, tuples.

        Python scalars get the types XLA's Python client gives them (bool -> pred,
        int -> s32 or s64 when it does not fit, float -> f32, complex -> c64).
        A Python tuple makes a tuple literal, element by element.
        """
        return _from_value(value, element_type, 0)

    @staticmethod
    def _from_python(value: object, element_type: PrimitiveType | None) -> Literal:
        """``from_value`` of anything but a Literal or a tuple."""
        if isinstance(value, (np.ndarray, np.generic)):
            return Literal.from_numpy(value, element_type=element_type)
        leaves: list[object] = []
        _nested_shape(value, (), leaves)
        if element_type is None:
            element_type = _python_element_type(leaves)
        element_type = element_type_of(element_type)
        if not element_type.is_array_type:
            raise InvalidArgumentError(f"{element_type} is not an array element type")
        staging = None
        if element_type.is_integral:
            _check_int_leaves(leaves, element_type)
            staging = np.uint64 if element_type.is_unsigned_integral else np.int64
        try:
            arr = np.array(value, dtype=staging)
        except (ValueError, OverflowError, TypeError) as e:
            raise InvalidArgumentError(
                f"cannot make a {element_type} array of {value!r}: {e}"
            ) from None
        if arr.dtype == object:
            raise InvalidArgumentError(
                f"cannot make a {element_type} array of {value!r}: numpy sees mixed objects"
            )
        return Literal.from_numpy(arr, element_type=element_type)

    @staticmethod
    def make_tuple(elements: Iterable[object]) -> Literal:
        """A tuple literal; elements that are not literals go through ``from_value``."""
        items = tuple(e if isinstance(e, Literal) else Literal.from_value(e) for e in elements)
        return Literal._of(Shape.tuple(e.shape for e in items), None, items)

    @staticmethod
    def token() -> Literal:
        return Literal._of(Shape.token(), None, ())

    @staticmethod
    def scalar(value: object, element_type: PrimitiveType) -> Literal:
        lit = Literal.from_value(value, element_type)
        if not lit.shape.is_scalar:
            raise InvalidArgumentError(f"Literal.scalar needs one value, got shape {lit.shape}")
        return lit

    @staticmethod
    def zeros(shape: Shape) -> Literal:
        return Literal(shape)

    # -- accessors -------------------------------------------------------------
    @property
    def shape(self) -> Shape:
        return self._shape

    @property
    def element_type(self) -> PrimitiveType:
        return self._shape.element_type

    @property
    def is_tuple(self) -> bool:
        return self._shape.is_tuple

    @property
    def is_token(self) -> bool:
        return self._shape.is_token

    @property
    def is_array(self) -> bool:
        return self._shape.is_array

    @property
    def dimensions(self) -> tuple[int, ...]:
        return self._array_shape("dimensions").dimensions

    @property
    def tuple_elements(self) -> tuple[Literal, ...]:
        if not self.is_tuple:
            raise InvalidArgumentError(f"a literal of {self._shape} is not a tuple")
        return self._elements

    @property
    def data(self) -> np.ndarray:
        """The flat physical buffer (read-only), padding and partial tiles included."""
        self._array_shape("a data buffer")
        return self._data

    def _array_shape(self, what: str) -> Shape:
        if not self.is_array:
            raise InvalidArgumentError(
                f"a literal of {self._shape} has no {what}: only array literals do"
            )
        return self._shape

    def element_count(self) -> int:
        return self._array_shape("element count").element_count()

    def to_numpy(self) -> np.ndarray | tuple | None:
        """The logical values: a C-order array (read-only), a tuple, or None for a token."""
        if self.is_tuple:
            return tuple(e.to_numpy() for e in self._elements)
        if self.is_token:
            return None
        dims, layout = self._shape.dimensions, self._shape.layout
        if _is_row_major(layout):
            return self._data.reshape(dims)
        if layout.is_plain:
            physical = self._data.reshape([dims[d] for d in layout.major_to_minor])
            return _readonly(physical.transpose(np.argsort(layout.major_to_minor)))
        return _readonly(self._data[_cached_positions(dims, layout)].reshape(dims))

    def get(self, multi_index: Sequence[int] | int = ()) -> object:
        """One element as a numpy scalar of the element type."""
        shape = self._array_shape("elements")
        if isinstance(multi_index, (int, np.integer)):
            multi_index = (int(multi_index),)
        position = linear_index(shape.dimensions, shape.layout, tuple(multi_index))
        return self._data[position]

    def byte_size(self) -> int:
        """Bytes of the value: ``Shape.byte_size`` for arrays, the elements' sum for tuples."""
        if self.is_tuple:
            return sum(e.byte_size() for e in self._elements)
        if self.is_token:
            return 0
        return self._shape.byte_size()

    # -- transformations ---------------------------------------------------------
    def relayout(self, layout: Layout | Sequence[int] | Shape) -> Literal:
        """The same values in another layout (a Shape with layouts for tuples)."""
        if self.is_tuple:
            if not isinstance(layout, Shape) or not layout.is_tuple:
                raise InvalidArgumentError(
                    f"relayout of tuple literal {self._shape} needs a tuple Shape with layouts"
                )
            if not layout.compatible(self._shape):
                raise InvalidArgumentError(
                    f"relayout target {layout} is not compatible with {self._shape}"
                )
            return Literal.make_tuple(
                e.relayout(s) for e, s in zip(self._elements, layout.tuple_shapes, strict=True)
            )
        if self.is_token:
            return self
        if isinstance(layout, Shape) and not layout.compatible(self._shape):
            raise InvalidArgumentError(
                f"relayout target {layout} is not compatible with {self._shape}"
            )
        new_layout = _as_layout(layout, len(self.dimensions))
        if new_layout == self._shape.layout:
            return self
        lit = Literal.from_numpy(self.to_numpy(), new_layout)
        if self._shape.is_static:
            return lit
        shape = Shape(
            self.element_type, self.dimensions, self._shape.dynamic_dimensions, new_layout
        )
        return Literal._of(shape, lit._data, ())

    def convert(self, element_type: PrimitiveType) -> Literal:
        """Host-side element conversion, as XLA's ``Literal::Convert``.

        numpy ``astype`` except that float -> integer saturates and maps NaN to 0
        (XLA's choice for the C++ undefined cases). This is a host utility, not
        the semantics of the HLO ``convert`` op on a backend.
        """
        element_type = element_type_of(element_type)
        if self.is_tuple:
            return Literal.make_tuple(e.convert(element_type) for e in self._elements)
        self._array_shape("element type to convert")
        if not element_type.is_array_type:
            raise InvalidArgumentError(f"cannot convert to {element_type}: not an array type")
        src = self.element_type
        if src.is_complex and not element_type.is_complex:
            raise UnimplementedError(f"converting from {src} to {element_type} is not implemented")
        values = self.to_numpy()
        if (src.is_float or src.is_complex) and element_type.is_integral:
            values = _saturate_to_int(values, element_type)
        with np.errstate(all="ignore"):
            out = values.astype(element_type.dtype)
        layout = self._shape.layout
        return Literal.from_numpy(out, layout.replace(element_size_in_bits=0))

    # -- comparisons ---------------------------------------------------------------
    def first_mismatch(
        self,
        other: Literal,
        *,
        rtol: float | None = None,
        atol: float | None = None,
        exact: bool = False,
    ) -> str | None:
        """Where and how two literals differ (None if they match), for error messages.

        ``exact`` uses ``equal``'s bitwise rule, otherwise ``near``'s tolerances.
        """
        if not isinstance(other, Literal):
            return f"{type(other).__name__} is not a Literal"
        if not self._shape.equal(other._shape, ignore_layout=True):
            return (
                f"shapes differ: {self._shape.to_string(False)} vs {other._shape.to_string(False)}"
            )
        if self.is_tuple:
            for i, (a, b) in enumerate(zip(self._elements, other._elements, strict=True)):
                found = a.first_mismatch(b, rtol=rtol, atol=atol, exact=exact)
                if found is not None:
                    return f"tuple element {{{i}}}: {found}"
            return None
        if self.is_token:
            return None
        a, b = self.to_numpy(), other.to_numpy()
        mask = self._mismatch_mask(a, b, rtol, atol, exact)
        if not mask.any():
            return None
        index = tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), a.shape))
        et = self.element_type
        where = "{" + ",".join(str(i) for i in index) + "}"
        return (
            f"at index {where}: {format_element(a[index], et)} vs {format_element(b[index], et)} "
            f"({int(mask.sum())} of {mask.size} elements differ)"
        )

    def _mismatch_mask(
        self, a: np.ndarray, b: np.ndarray, rtol: float | None, atol: float | None, exact: bool
    ) -> np.ndarray:
        et = self.element_type
        default_rtol, default_atol = default_tolerance(et)
        if exact or not (et.is_float or et.is_complex):
            ca, cb = _canonical(a, et), _canonical(b, et)
            mask = ca != cb
            return mask.any(axis=0) if et.is_complex else mask
        rtol = default_rtol if rtol is None else rtol
        atol = default_atol if atol is None else atol
        if et.is_complex:
            a128, b128 = a.astype(np.complex128), b.astype(np.complex128)
            return _near_mask(a128.real, b128.real, rtol, atol) | _near_mask(
                a128.imag, b128.imag, rtol, atol
            )
        return _near_mask(a.astype(np.float64), b.astype(np.float64), rtol, atol)

    def equal(self, other: Literal) -> bool:
        """Same shape (layout ignored) and bitwise-identical values; see module docstring."""
        return self.first_mismatch(other, exact=True) is None

    def near(self, other: Literal, rtol: float | None = None, atol: float | None = None) -> bool:
        """Approximately equal: per-type default tolerances, NaN matches only NaN,
        an infinity only the same infinity, integers and pred exactly."""
        return self.first_mismatch(other, rtol=rtol, atol=atol) is None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Literal):
            return NotImplemented
        return self.equal(other)

    def __hash__(self) -> int:
        if self.is_tuple:
            return hash(("tuple", tuple(hash(e) for e in self._elements)))
        if self.is_token:
            return hash("token")
        canon = np.ascontiguousarray(_canonical(self.to_numpy(), self.element_type))
        return hash((self._shape.to_string(False), canon.tobytes()))

    # -- text ------------------------------------------------------------------------
    def __str__(self) -> str:
        return format_literal(self)

    def __repr__(self) -> str:
        return f"Literal({format_literal(self, oneline=True)})"


def _saturate_to_int(values: np.ndarray, element_type: PrimitiveType) -> np.ndarray:
    """Float values clamped into an integer type's range, NaN -> 0 (XLA's choice)."""
    lo, hi = _int_range(element_type)
    x = np.asarray(values).real.astype(np.float64)
    wide = np.uint64 if element_type.is_unsigned_integral else np.int64
    out = np.zeros(x.shape, wide)
    with np.errstate(all="ignore"):
        inside = (x > lo) & (x < hi)
        out[inside] = x[inside].astype(wide)
        out[x >= hi] = hi
        out[x <= lo] = lo
    return out


__all__ = ["Literal", "default_tolerance"]
