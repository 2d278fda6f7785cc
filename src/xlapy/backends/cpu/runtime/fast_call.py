"""The fast call path: numpy arrays in, numpy arrays out, checked in native code.

Getting a data pointer out of a numpy array from Python costs about a microsecond
(``a.ctypes.data``), more than the whole native call. So the runtime has a native
entry, ``xlapy_fast_call``, that takes the argument tuple and the result list as
``PyObject*`` and reads ``PyArrayObject``'s fields itself: it checks that each argument
is exactly an ndarray of the expected dtype, dimensions and flags (C-contiguous,
aligned) and otherwise returns ``ARGUMENT_MISMATCH + k`` so that Python takes the
general path for argument ``k`` (which converts or raises a clear error); then it calls
the program's entry with the data pointers.

One function serves every program: what a program expects is a descriptor (an int64
array the executable makes) rather than code, because code emitted into each program
cost its compile 2-6 ms of LLVM time (a third of a small program's). The descriptor
holds the addresses of numpy's objects of this process, so nothing in a program's code
(or the persistent compile cache's copy of it) depends on them.

The field offsets are those of numpy's ``PyArrayObject_fields`` and CPython's tuple and
list objects: :func:`layout_ok` verifies them on this Python and numpy before the fast
path is used.
"""

from __future__ import annotations

import ctypes
import sys

import numpy as np

from ....shape import Shape

ARGUMENT_MISMATCH = 1000
_TYPE, _DATA, _ND, _DIMS, _DESCR, _FLAGS = 8, 16, 24, 32, 56, 64
_ITEMS = 24  # a tuple's first item; a list's pointer to its items
_REQUIRED_FLAGS = 0x1 | 0x100  # NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED
SYMBOL = "xlapy_fast_call"

# i32 (descriptor, arguments: tuple, results: list): three arguments for ctypes to
# convert, however many the program takes.
FUNCTION_TYPE = ctypes.CFUNCTYPE(
    ctypes.c_int32, ctypes.c_void_p, ctypes.py_object, ctypes.py_object
)
_HEAD = 6  # the descriptor's words before the first parameter's


def layout_ok() -> bool:
    """True when numpy's array struct, a tuple and a list have the field offsets the
    fast path reads."""
    a = np.zeros((3, 5), np.float32)
    base = id(a)
    read = ctypes.c_int64.from_address
    arguments, results = (a, None), [None, a]
    try:
        return (
            sys.byteorder == "little"
            and ctypes.sizeof(ctypes.c_void_p) == 8
            and read(base + _DATA).value == a.ctypes.data
            and ctypes.c_int32.from_address(base + _ND).value == 2
            and read(read(base + _DIMS).value + 8).value == 5
            and read(base + _DESCR).value == id(a.dtype)
            and read(base + _TYPE).value == id(np.ndarray)
            and ctypes.c_int32.from_address(base + _FLAGS).value & _REQUIRED_FLAGS
            == _REQUIRED_FLAGS
            and read(id(arguments) + _ITEMS).value == base
            and read(read(id(results) + _ITEMS).value + 8).value == base
        )
    except Exception:  # noqa: BLE001  (any surprise means: no fast path)
        return False


def descriptor(
    entry: int, context: int, arena: int, parameters: list[Shape], results: int
) -> np.ndarray:
    """An executable's call for ``xlapy_fast_call``: the entry's address and the two
    pointers it takes besides the tables (the run context and the arena), the counts,
    numpy's ndarray type, then per parameter the dtype object, rank and dimensions it
    must have. The object addresses are this process's (ids of objects numpy keeps for
    its lifetime)."""
    words = [entry, context, arena, len(parameters), results, id(np.ndarray)]
    for shape in parameters:
        words += [id(np.dtype(shape.element_type.dtype)), shape.rank, *shape.dimensions]
    return np.array(words, dtype=np.int64)


# The native side. The arguments come as a tuple (items inline), the results as a list
# (a pointer to its items): call_numpy passes exactly those. The data pointers go into a
# table on the stack, the arguments' then the results', which the entry gets as its
# argument and result tables.
FAST_CALL_IR = rf"""
define i32 @{SYMBOL}(i64* %desc, i8* %arguments, i8* %results) {{
start:
  %entry.pp = bitcast i64* %desc to i32 (i8*, i8**, i8**, i8*)**
  %entry = load i32 (i8*, i8**, i8**, i8*)*, i32 (i8*, i8**, i8**, i8*)** %entry.pp
  %ctx.p = getelementptr i64, i64* %desc, i64 1
  %ctx.pp = bitcast i64* %ctx.p to i8**
  %ctx = load i8*, i8** %ctx.pp
  %arena.p = getelementptr i64, i64* %desc, i64 2
  %arena.pp = bitcast i64* %arena.p to i8**
  %arena = load i8*, i8** %arena.pp
  %n.p = getelementptr i64, i64* %desc, i64 3
  %n = load i64, i64* %n.p
  %nr.p = getelementptr i64, i64* %desc, i64 4
  %nr = load i64, i64* %nr.p
  %ndarray.p = getelementptr i64, i64* %desc, i64 5
  %ndarray = load i64, i64* %ndarray.p
  %items.raw = getelementptr i8, i8* %arguments, i64 {_ITEMS}
  %items = bitcast i8* %items.raw to i8**
  %ritems.raw = getelementptr i8, i8* %results, i64 {_ITEMS}
  %ritems.pp = bitcast i8* %ritems.raw to i8***
  %ritems = load i8**, i8*** %ritems.pp
  %total = add i64 %n, %nr
  %table = alloca i8*, i64 %total, align 8
  br label %arg.head

arg.head:
  %k = phi i64 [0, %start], [%k.next, %dim.done]
  %rec = phi i64 [{_HEAD}, %start], [%rec.next, %dim.done]
  %more = icmp ult i64 %k, %n
  br i1 %more, label %arg.type, label %result.head

arg.type:
  %obj.p = getelementptr i8*, i8** %items, i64 %k
  %obj = load i8*, i8** %obj.p
  %type.raw = getelementptr i8, i8* %obj, i64 {_TYPE}
  %type.p = bitcast i8* %type.raw to i64*
  %type = load i64, i64* %type.p
  %is.array = icmp eq i64 %type, %ndarray
  br i1 %is.array, label %arg.fields, label %mismatch

arg.fields:                                 ; only an ndarray has these fields
  %descr.raw = getelementptr i8, i8* %obj, i64 {_DESCR}
  %descr.p = bitcast i8* %descr.raw to i64*
  %descr = load i64, i64* %descr.p
  %want.descr.p = getelementptr i64, i64* %desc, i64 %rec
  %want.descr = load i64, i64* %want.descr.p
  %descr.ok = icmp eq i64 %descr, %want.descr
  %nd.raw = getelementptr i8, i8* %obj, i64 {_ND}
  %nd.p = bitcast i8* %nd.raw to i32*
  %nd32 = load i32, i32* %nd.p
  %nd = sext i32 %nd32 to i64
  %rank.at = add i64 %rec, 1
  %want.rank.p = getelementptr i64, i64* %desc, i64 %rank.at
  %rank = load i64, i64* %want.rank.p
  %nd.ok = icmp eq i64 %nd, %rank
  %flags.raw = getelementptr i8, i8* %obj, i64 {_FLAGS}
  %flags.p = bitcast i8* %flags.raw to i32*
  %flags = load i32, i32* %flags.p
  %flags.some = and i32 %flags, {_REQUIRED_FLAGS}
  %flags.ok = icmp eq i32 %flags.some, {_REQUIRED_FLAGS}
  %ok.1 = and i1 %descr.ok, %nd.ok
  %ok.2 = and i1 %ok.1, %flags.ok
  br i1 %ok.2, label %dim.start, label %mismatch

dim.start:                                  ; the rank is right: read the dimensions
  %dims.raw = getelementptr i8, i8* %obj, i64 {_DIMS}
  %dims.pp = bitcast i8* %dims.raw to i64**
  %dims = load i64*, i64** %dims.pp
  %want.dims = add i64 %rec, 2
  br label %dim.head

dim.head:
  %d = phi i64 [0, %dim.start], [%d.next, %dim.body]
  %dim.more = icmp ult i64 %d, %rank
  br i1 %dim.more, label %dim.body, label %dim.done

dim.body:
  %size.p = getelementptr i64, i64* %dims, i64 %d
  %size = load i64, i64* %size.p
  %want.at = add i64 %want.dims, %d
  %want.size.p = getelementptr i64, i64* %desc, i64 %want.at
  %want.size = load i64, i64* %want.size.p
  %d.next = add i64 %d, 1
  %size.ok = icmp eq i64 %size, %want.size
  br i1 %size.ok, label %dim.head, label %mismatch

dim.done:
  %data.raw = getelementptr i8, i8* %obj, i64 {_DATA}
  %data.p = bitcast i8* %data.raw to i8**
  %data = load i8*, i8** %data.p
  %slot = getelementptr i8*, i8** %table, i64 %k
  store i8* %data, i8** %slot
  %k.next = add i64 %k, 1
  %rec.next = add i64 %want.dims, %rank
  br label %arg.head

mismatch:                                   ; argument k takes the general path
  %k32 = trunc i64 %k to i32
  %status = add i32 %k32, {ARGUMENT_MISMATCH}
  ret i32 %status

result.head:
  %j = phi i64 [0, %arg.head], [%j.next, %result.body]
  %result.more = icmp ult i64 %j, %nr
  br i1 %result.more, label %result.body, label %call

result.body:
  %robj.p = getelementptr i8*, i8** %ritems, i64 %j
  %robj = load i8*, i8** %robj.p
  %rdata.raw = getelementptr i8, i8* %robj, i64 {_DATA}
  %rdata.p = bitcast i8* %rdata.raw to i8**
  %rdata = load i8*, i8** %rdata.p
  %rslot.at = add i64 %n, %j
  %rslot = getelementptr i8*, i8** %table, i64 %rslot.at
  store i8* %rdata, i8** %rslot
  %j.next = add i64 %j, 1
  br label %result.head

call:
  %result.table = getelementptr i8*, i8** %table, i64 %n
  %done = call i32 %entry(i8* %ctx, i8** %table, i8** %result.table, i8* %arena)
  ret i32 %done
}}
"""
