"""The fast call path: numpy arrays in, numpy arrays out, checked in native code.

Getting a data pointer out of a numpy array from Python costs about a
microsecond (``a.ctypes.data``), more than the whole native call. So the
executable gets a second native entry, ``<entry>_py``, that takes the argument
and result arrays as ``PyObject*`` and reads ``PyArrayObject``'s fields itself:
it checks that each argument is exactly an ndarray of the expected dtype,
dimensions and flags (C-contiguous, aligned) and otherwise returns
``ARGUMENT_MISMATCH + k`` so that Python takes the general path for argument
``k`` (which converts or raises a clear error). The field offsets are those of
numpy's ``PyArrayObject_fields``; :func:`layout_ok` verifies them on this numpy
before the fast path is used.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np
from llvmlite import ir

from ....shape import Shape
from ....types import PrimitiveType
from ..ir_support import i64, pointer_table
from ..llvm_types import I8_PTR, I32, I64
from . import jit

ARGUMENT_MISMATCH = 1000
_DATA, _ND, _DIMS, _DESCR, _FLAGS = 16, 24, 32, 56, 64
_TYPE = 8
_REQUIRED_FLAGS = 0x1 | 0x100  # NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED


def layout_ok() -> bool:
    """True when numpy's array struct has the field offsets the fast path reads."""
    a = np.zeros((3, 5), np.float32)
    base = id(a)
    read = ctypes.c_int64.from_address
    try:
        return (
            read(base + _DATA).value == a.ctypes.data
            and ctypes.c_int32.from_address(base + _ND).value == 2
            and ctypes.c_int64.from_address(read(base + _DIMS).value + 8).value == 5
            and read(base + _DESCR).value == id(a.dtype)
            and read(base + _TYPE).value == id(np.ndarray)
            and ctypes.c_int32.from_address(base + _FLAGS).value & _REQUIRED_FLAGS
            == _REQUIRED_FLAGS
        )
    except Exception:  # noqa: BLE001  (any surprise means: no fast path)
        return False


_OBJECT_PREFIX = "xlapy_numpy_"


def _object_symbol(obj: object) -> str:
    """The symbol standing for numpy's ndarray type or a dtype of an HLO element type."""
    return _OBJECT_PREFIX + ("ndarray" if obj is np.ndarray else np.dtype(obj).name)  # type: ignore[call-overload]


@functools.cache
def _dtypes() -> dict[str, np.dtype]:
    found = {}
    for element_type in PrimitiveType:
        try:
            dtype = np.dtype(element_type.dtype)
        except (TypeError, ValueError, AttributeError, NotImplementedError):
            continue  # tuples, tokens, opaque: no array of them reaches a fast entry
        found[dtype.name] = dtype
    return found


def _symbol_object(symbol: str) -> object:
    name = symbol[len(_OBJECT_PREFIX) :]
    return np.ndarray if name == "ndarray" else _dtypes()[name]


def register_object_symbol(symbol: str) -> None:
    jit.register_symbol(symbol, id(_symbol_object(symbol)))


def resolve_symbol(name: str) -> bool:
    """Bind ``name`` if it is one of the numpy objects fast entries compare against
    (code loaded from the persistent compile cache); False for another name."""
    if not name.startswith(_OBJECT_PREFIX):
        return False
    try:
        register_object_symbol(name)
    except KeyError:
        return False
    return True


def _field(b: ir.IRBuilder, obj: ir.Value, offset: int, ty: ir.Type) -> ir.Value:
    return b.load(b.bitcast(b.gep(obj, [i64(offset)]), ty.as_pointer()))


def emit_fast_entry(
    module: ir.Module,
    entry: ir.Function,
    name: str,
    parameters: list[Shape],
    results: int,
    relocatable: bool = False,
) -> None:
    """``i32 name(i8* ctx, i8* arena, PyObject* args..., PyObject* results...)``.

    The entry compares each argument's type and dtype with numpy's objects: their
    addresses as constants, or in ``relocatable`` code (the persistent compile cache) as
    external symbols that :func:`resolve_symbol` binds in whichever process loads it."""
    n = len(parameters)

    def object_address(obj: object) -> ir.Value:
        if not relocatable:
            return i64(id(obj))
        symbol = _object_symbol(obj)
        register_object_symbol(symbol)
        found = module.globals.get(symbol)
        if found is None:
            found = ir.GlobalVariable(module, ir.IntType(8), symbol)
            found.linkage = "external"
        return found.ptrtoint(I64)

    function = ir.Function(
        module, ir.FunctionType(I32, [I8_PTR, I8_PTR] + [I8_PTR] * (n + results)), name
    )
    b = ir.IRBuilder(function.append_basic_block("entry"))
    ctx, arena = function.args[:2]
    objects = function.args[2:]
    data = []
    for k, (obj, shape) in enumerate(zip(objects[:n], parameters, strict=True)):

        def require(ok: ir.Value, k: int = k) -> None:
            """Continue if ``ok``, else report argument ``k`` to the general path."""
            good, bad = function.append_basic_block(), function.append_basic_block()
            b.cbranch(ok, good, bad)
            b.position_at_end(bad)
            b.ret(I32(ARGUMENT_MISMATCH + k))
            b.position_at_end(good)

        # The type first: only an ndarray has the fields read below.
        require(b.icmp_unsigned("==", _field(b, obj, _TYPE, I64), object_address(np.ndarray)))
        descr = np.dtype(shape.element_type.dtype)
        ok = b.icmp_unsigned("==", _field(b, obj, _DESCR, I64), object_address(descr))
        ok = b.and_(ok, b.icmp_signed("==", _field(b, obj, _ND, I32), I32(shape.rank)))
        flags = _field(b, obj, _FLAGS, I32)
        ok = b.and_(
            ok, b.icmp_signed("==", b.and_(flags, I32(_REQUIRED_FLAGS)), I32(_REQUIRED_FLAGS))
        )
        require(ok)  # the rank is right before the dimensions are read
        dims_pointer = _field(b, obj, _DIMS, I64.as_pointer())
        ok = ir.Constant(ir.IntType(1), 1)
        for d, size in enumerate(shape.dimensions):
            ok = b.and_(ok, b.icmp_signed("==", b.load(b.gep(dims_pointer, [i64(d)])), i64(size)))
        require(ok)
        data.append(_field(b, obj, _DATA, I8_PTR))
    outs = [_field(b, obj, _DATA, I8_PTR) for obj in objects[n:]]
    args_table = pointer_table(b, data, "fast_args")
    results_table = pointer_table(b, outs, "fast_results")
    b.ret(b.call(entry, [ctx, args_table, results_table, arena]))
