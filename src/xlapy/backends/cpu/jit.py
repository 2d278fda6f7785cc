"""From an ``llvmlite.ir.Module`` to machine code in this process.

One target machine for the host (its CPU name and features, so the loop and
SLP vectorizers use AVX2/AVX-512 where the machine has them), LLVM's standard
O3 pipeline, and MCJIT. Symbols that native code calls and that are not in the
process's loaded libraries (BLAS entry points out of scipy, the runtime's
callbacks) are registered by name with :func:`register_symbol`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from dataclasses import dataclass, field

import llvmlite.binding as llvm
from llvmlite import ir

from ...errors import InternalError

_lock = threading.Lock()
_state: dict[str, object] = {}


def _initialize() -> llvm.TargetMachine:
    """Initialize LLVM once per process; returns the host target machine."""
    with _lock:
        if "tm" not in _state:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            for name in ("m", "mvec"):
                path = ctypes.util.find_library(name)
                if path:
                    llvm.load_library_permanently(path)
            tm = _new_target_machine()
            # Read once: each ``target_data`` access makes an object whose disposal
            # can free data the target machine still uses.
            _state["data_layout"] = str(tm.target_data)
            _state["triple"] = llvm.get_process_triple()
            _state["tm"] = tm
        return _state["tm"]  # type: ignore[return-value]


def _new_target_machine() -> llvm.TargetMachine:
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=3,
        codemodel="jitdefault",
    )


def target_machine() -> llvm.TargetMachine:
    return _initialize()


def host_triple() -> str:
    _initialize()
    return _state["triple"]  # type: ignore[return-value]


def target_data_layout() -> str:
    _initialize()
    return _state["data_layout"]  # type: ignore[return-value]


def register_symbol(name: str, address: int) -> None:
    """Make ``name`` resolve to ``address`` in code compiled from now on."""
    _initialize()
    llvm.add_symbol(name, address)


def new_module(name: str) -> ir.Module:
    """An empty IR module for the host."""
    module = ir.Module(name=name)
    module.triple = host_triple()
    module.data_layout = target_data_layout()
    return module


@dataclass
class CompiledCode:
    """Machine code for one IR module; keeps its engine (and so the code) alive."""

    engine: llvm.ExecutionEngine
    optimized_ir: str = ""
    timings: dict[str, float] = field(default_factory=dict)

    def address(self, function_name: str) -> int:
        address = self.engine.get_function_address(function_name)
        if not address:
            raise InternalError(f"the JIT has no function {function_name!r}")
        return address

    def cfunction(self, function_name: str, restype: object, *argtypes: object) -> object:
        """The function as a ctypes callable (it releases the GIL while it runs)."""
        return ctypes.CFUNCTYPE(restype, *argtypes)(self.address(function_name))


def compile_module(module: ir.Module, *, opt_level: int = 3, keep_ir: bool = False) -> CompiledCode:
    """Verify, optimize (O``opt_level``, vectorizers on) and JIT-compile ``module``."""
    import time

    tm = _initialize()
    timings: dict[str, float] = {}
    start = time.perf_counter()
    text = str(module)
    try:
        parsed = llvm.parse_assembly(text)
        parsed.verify()
    except RuntimeError as e:
        raise InternalError(f"xlapy produced invalid LLVM IR for {module.name}: {e}") from e
    timings["parse"] = time.perf_counter() - start
    start = time.perf_counter()
    if opt_level > 0:
        pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        # Unrolling after vectorization doubles the machine code (and the time to make
        # it: 72 -> 21 ms for a tiled transpose) for no measurable speed on these loops.
        pto.loop_unrolling = False
        builder = llvm.create_pass_builder(tm, pto)
        builder.getModulePassManager().run(parsed, builder)
    timings["optimize"] = time.perf_counter() - start
    start = time.perf_counter()
    with _lock:
        # An engine owns its target machine and frees it with itself: give it its own.
        engine = llvm.create_mcjit_compiler(parsed, _new_target_machine())
        engine.finalize_object()
    timings["codegen"] = time.perf_counter() - start
    return CompiledCode(engine, str(parsed) if keep_ir else "", timings)
