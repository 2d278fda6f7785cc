"""One NVPTX module of kernels and its way to PTX text.

A :class:`PtxModule` holds an llvmlite ``ir.Module`` for ``nvptx64-nvidia-cuda``; the
emitters (``loop``, ``reduction``) add ``ptx_kernel`` functions to it, and
:meth:`PtxModule.to_ptx` turns it into PTX for one architecture (the PTX of sm_90 is
not valid for sm_80, so a module is emitted once per architecture).

The scalar code comes from the CPU backend's elemental emitters, which call C's libm
(``tanhf``, ``acos``...) and LLVM intrinsics such as ``llvm.exp.f64`` that the NVPTX
target cannot lower ("no libcall available"). ``to_ptx`` renames those declarations to
libdevice's functions (``__nv_tanhf``, ``__nv_exp``...), links libdevice, keeps only
the kernels visible and optimizes (O3, which runs LLVM's NVVMReflect: libdevice's
``__nvvm_reflect`` queries fold to the module flag ``nvvm-reflect-ftz`` = 0, no flushing
of denormals).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

from ....errors import InternalError
from ...cpu.runtime import strength_reduction
from .toolchain import libdevice_bitcode

TRIPLE = "nvptx64-nvidia-cuda"
PTX_FEATURES = "+ptx78"  # PTX ISA 7.8: valid for sm_80 and sm_90 under CUDA 12 and 13 drivers
GLOBAL_SPACE = 1
SHARED_SPACE = 3
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I8_PTR = I8.as_pointer()

# Math functions the CPU's scalar code leaves to libm or to LLVM intrinsics the NVPTX
# target cannot lower; libdevice has each as __nv_<name> (double) and __nv_<name>f (float).
_LIBDEVICE_MATH = (
    "acos acosh asin asinh atan atanh atan2 cbrt cos cosh erf erfc exp exp2 exp10 expm1 "
    "fmod hypot lgamma log log10 log1p log2 pow sin sinh tan tanh tgamma"
).split()
_INTRINSIC = re.compile(r"^llvm\.(\w+)\.(f32|f64)$")


def libdevice_name(symbol: str) -> str | None:
    """libdevice's function for a declared ``symbol`` (``tanhf`` -> ``__nv_tanhf``,
    ``llvm.exp.f64`` -> ``__nv_exp``), or None when the NVPTX target handles it itself."""
    match = _INTRINSIC.match(symbol)
    if match:
        name, width = match.groups()
        if name in _LIBDEVICE_MATH:
            return f"__nv_{name}" + ("f" if width == "f32" else "")
        return None
    if symbol in _LIBDEVICE_MATH:
        return f"__nv_{symbol}"
    if symbol.endswith("f") and symbol[:-1] in _LIBDEVICE_MATH:
        return f"__nv_{symbol}"
    return None


@functools.cache
def _initialized() -> bool:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    return True


@functools.cache
def target_machine(arch: str) -> llvm.TargetMachine:
    """The NVPTX target machine for ``arch`` (``sm_80``, ``sm_90``...) at PTX ISA 7.8."""
    _initialized()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch, features=PTX_FEATURES, opt=3)


_NOT_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]")


class PtxModule:
    """Kernels under construction for one architecture, and their PTX."""

    def __init__(self, name: str, arch: str = "sm_90") -> None:
        self.arch = arch
        self.ir = ir.Module(name=name)
        self.ir.triple = TRIPLE
        self.ir.data_layout = str(target_machine(arch).target_data)
        flag = self.ir.add_metadata([ir.Constant(I32, 4), "nvvm-reflect-ftz", ir.Constant(I32, 0)])
        self.ir.add_named_metadata("llvm.module.flags", flag)
        self.kernels: list[str] = []
        # libdevice's functions the last to_ptx linked (for tests and reports).
        self.libdevice_functions: tuple[str, ...] = ()
        self._names: set[str] = set()
        self._constants: dict[int, tuple[np.ndarray, ir.GlobalVariable]] = {}

    def unique_name(self, base: str) -> str:
        """``base`` as a PTX identifier (letters, digits, ``_``), unique in this module."""
        name = _NOT_IDENTIFIER.sub("_", base) or "k"
        if not (name[0].isalpha() or name[0] == "_"):
            name = "_" + name
        candidate, k = name, 1
        while candidate in self._names or candidate in self.ir.globals:
            candidate = f"{name}_{k}"
            k += 1
        self._names.add(candidate)
        return candidate

    def add_kernel(self, base: str, parameter_count: int) -> ir.Function:
        """A new ``.entry`` taking ``parameter_count`` generic pointers (no noalias: an
        output may share its buffer with an operand)."""
        function = ir.Function(
            self.ir,
            ir.FunctionType(ir.VoidType(), [I8_PTR] * parameter_count),
            self.unique_name(base),
        )
        function.calling_convention = "ptx_kernel"
        self.kernels.append(function.name)
        return function

    def discard_kernel(self, function: ir.Function) -> None:
        """Forget a kernel whose emission failed half way."""
        self.ir.globals.pop(function.name, None)
        if function.name in self.kernels:
            self.kernels.remove(function.name)

    def constant_pointer(self, b: ir.IRBuilder, array: np.ndarray) -> ir.Value:
        """A generic ``i8*`` to ``array``'s bytes, kept as a constant in global memory
        (one global per array, whoever asks)."""
        entry = self._constants.get(id(array))
        if entry is None:
            data = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
            array_type = ir.ArrayType(I8, max(1, data.size))
            variable = ir.GlobalVariable(
                self.ir, array_type, self.unique_name("constant"), addrspace=GLOBAL_SPACE
            )
            variable.global_constant = True
            variable.linkage = "internal"
            variable.align = 16
            variable.initializer = ir.Constant(array_type, bytearray(data.tobytes() or b"\0"))
            entry = (array, variable)
            self._constants[id(array)] = entry
        variable = entry[1]
        return b.addrspacecast(b.bitcast(variable, I8.as_pointer(GLOBAL_SPACE)), I8_PTR)

    def to_ptx(self) -> str:
        """Verify, link libdevice when a kernel needs it, optimize (O3) and print the PTX
        for ``self.arch``."""
        try:
            module = llvm.parse_assembly(str(self.ir))
            module.verify()
        except RuntimeError as error:
            raise InternalError(
                f"the GPU kernels of {self.ir.name} are invalid LLVM: {error}"
            ) from error
        machine = target_machine(self.arch)
        self.libdevice_functions = _rename_math(module.functions)
        if self.libdevice_functions:
            library = llvm.parse_bitcode(libdevice_bitcode())
            library.triple = module.triple
            library.data_layout = module.data_layout
            module.link_in(library)
        kept = set(self.kernels)
        for function in module.functions:
            if not function.is_declaration and function.name not in kept:
                function.linkage = "internal"
        for variable in module.global_variables:
            if not variable.is_declaration:
                variable.linkage = "internal"
        # Drop the unused part of libdevice first: O3 need not look at it.
        cleanup = llvm.create_new_module_pass_manager()
        cleanup.add_global_dead_code_eliminate_pass()
        cleanup.run(module, llvm.create_pass_builder(machine, _tuning(0)))
        builder = llvm.create_pass_builder(machine, _tuning(3))
        builder.getModulePassManager().run(module, builder)
        _check_resolved(module, self.ir.name)
        with strength_reduction.section(True):  # the NVPTX back-end as LLVM tunes it
            return machine.emit_assembly(module)


def _tuning(level: int) -> llvm.PipelineTuningOptions:
    return llvm.create_pipeline_tuning_options(speed_level=level)


def _rename_math(functions: Iterable[llvm.ValueRef]) -> tuple[str, ...]:
    """Point declared libm functions and unlowerable intrinsics at libdevice: the
    libdevice functions called (libdevice must be linked when there are any)."""
    renamed = []
    for function in functions:
        if not function.is_declaration:
            continue
        target = libdevice_name(function.name)
        if target is not None:
            function.name = target
            renamed.append(target)
    return tuple(sorted(set(renamed)))


def _check_resolved(module: llvm.ModuleRef, name: str) -> None:
    """After linking and optimizing (global DCE drops unused declarations), only LLVM's
    and NVVM's intrinsics may stay declared: anything else (``__nvvm_reflect`` included)
    would be an unresolved call in the PTX."""
    missing = [
        f.name for f in module.functions if f.is_declaration and not f.name.startswith("llvm.")
    ]
    if missing:
        raise InternalError(
            f"the GPU kernels of {name} call functions that neither libdevice nor the NVPTX "
            f"target provides: {', '.join(sorted(missing))}"
        )
