"""Compiles split into parts compiled in parallel threads (runtime.ir_partition and
jit's parallel path), and the warm start from the persistent cache that no longer parses
the stored module until someone asks for it."""

from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest
from llvmlite import ir

import xlapy
from xlapy.backends.cpu import compiler, persistent_cache
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.ir_support import i64
from xlapy.backends.cpu.llvm_types import KERNEL_TYPE
from xlapy.backends.cpu.runtime import ir_partition, jit
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module
from xlapy.literal import Literal
from xlapy.testing.hlo_programs import row_softmax

# Three kernels reached through xlapy_parallel_for (a max, an exp-sum, a divide), so
# the program splits; a loop adds a computation called directly (which must not).
SOFTMAX = row_softmax(1024, 1024, "softmax_parts")

LOOP = """HloModule loop_parts
cond {
  p = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  v = f32[1024] get-tuple-element(p), index=1
  h = f32[] constant(0.5)
  hb = f32[1024] broadcast(h), dimensions={}
  w = f32[1024] multiply(v, hb)
  ROOT t = (s32[], f32[1024]) tuple(j, w)
}
ENTRY e {
  x = f32[1024] parameter(0)
  zero = s32[] constant(0)
  t = (s32[], f32[1024]) tuple(zero, x)
  w = (s32[], f32[1024]) while(t), condition=cond, body=body
  ROOT r = f32[1024] get-tuple-element(w), index=1
}"""


def _softmax_input() -> np.ndarray:
    return np.random.default_rng(1).standard_normal((1024, 1024)).astype(np.float32)


def _softmax_expected() -> np.ndarray:
    x = _softmax_input()
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _run(executable, *arrays: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """Through the general entry, which every mode has (guard mode has no fast entry)."""
    return executable.execute([Literal.from_numpy(a) for a in arrays]).to_numpy()


def _compile(text: str, threads: str, monkeypatch, **options):  # noqa: ANN001, ANN003, ANN202
    monkeypatch.setenv(jit.ENV_THREADS, threads)
    return CpuBackend().compile(parse_module(text), CpuOptions(cache=False, **options))


def test_split_compile_matches_the_whole_module_bit_for_bit(monkeypatch):
    x = Literal.from_numpy(_softmax_input())
    whole = _compile(SOFTMAX, "1", monkeypatch)
    split = _compile(SOFTMAX, "2", monkeypatch)
    assert "parts" not in whole.program.timings
    assert split.program.timings["parts"] == 2
    assert split.program.code.objects == ()  # kept only for the persistent cache
    a, b = whole.execute([x]).to_numpy(), split.execute([x]).to_numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(b, _softmax_expected(), rtol=1e-5, atol=1e-6)
    # The fast entry (a direct call into the entry, across the split) runs too (guard
    # mode has no fast entry: every call takes the general path, checked above).
    if not split.program.guard:
        np.testing.assert_array_equal(split.call_numpy([_softmax_input()]), a)


def test_row_group_kernels_compile_in_parts_of_their_own(monkeypatch):
    # One row group calling its three kernels per block of rows (the row max is the
    # runtime library's, reduce_library): with three parts each of the two others and
    # the glue get one, and the results are those of the whole module.
    whole = _compile(SOFTMAX, "1", monkeypatch)
    split = _compile(SOFTMAX, "3", monkeypatch)
    assert split.program.row_groups == 1 and split.program.timings["parts"] == 3
    x = _softmax_input()
    np.testing.assert_array_equal(_run(split, x), _run(whole, x))


def test_loop_program_with_direct_calls_compiles_with_threads_on(monkeypatch):
    executable = _compile(LOOP, "4", monkeypatch)
    x = np.arange(1024, dtype=np.float32)
    np.testing.assert_allclose(_run(executable, x), x * 0.5**10, rtol=1e-6)


def _module() -> ir.Module:
    """An entry passing a kernel by pointer, the kernel calling an always-inline body,
    and a constant table both use."""
    module = jit.new_module("parts")
    f32 = ir.FloatType()
    table = ir.GlobalVariable(module, ir.ArrayType(f32, 4), "table")
    table.linkage = "internal"
    table.global_constant = True
    table.initializer = ir.Constant(ir.ArrayType(f32, 4), [1.0, 2.0, 3.0, 4.0])
    body = ir.Function(module, ir.FunctionType(f32, [ir.IntType(64)]), "kernel.body")
    body.linkage = "internal"
    body.attributes.add("alwaysinline")
    b = ir.IRBuilder(body.append_basic_block())
    pointer = b.gep(table, [ir.Constant(ir.IntType(64), 0), body.args[0]])
    b.ret(b.fadd(b.load(pointer), ir.Constant(f32, 0.5)))
    kernel_type = ir.FunctionType(f32, [ir.IntType(64)])
    kernel = ir.Function(module, kernel_type, "kernel")
    kernel.linkage = "internal"
    b = ir.IRBuilder(kernel.append_basic_block())
    b.ret(b.fmul(b.call(body, [kernel.args[0]]), ir.Constant(f32, 2.0)))
    runner = ir.Function(module, ir.FunctionType(f32, [kernel_type.as_pointer()]), "runner")
    b = ir.IRBuilder(runner.append_basic_block())
    b.ret(b.call(runner.args[0], [ir.Constant(ir.IntType(64), 3)]))
    entry = ir.Function(module, ir.FunctionType(f32, [ir.IntType(64)]), "entry")
    b = ir.IRBuilder(entry.append_basic_block())
    first = b.load(b.gep(table, [ir.Constant(ir.IntType(64), 0), entry.args[0]]))
    return_value = b.fadd(first, b.call(runner, [kernel]))
    b.ret(return_value)
    return module


def test_split_module_exports_only_what_crosses_parts():
    module = _module()
    split = ir_partition.split_module(module, 2, min_part_chars=0)
    assert split.text == str(module)  # rendered once, as llvmlite renders it
    assert len(split.parts) == 2
    kernel_part = next(p for p in split.parts if 'define float @"kernel"' in p)
    entry_part = next(p for p in split.parts if 'define float @"entry"' in p)
    # The kernel's always-inline body stays with it, still internal.
    assert 'define internal float @"kernel.body"' in kernel_part
    assert "kernel.body" not in entry_part
    # The kernel's pointer crosses: exported there, declared here.
    assert 'declare float @"kernel"(i64)' in entry_part
    # The table is used on both sides: defined (exported) once, declared on the other.
    assert sum('@"table" = constant' in p for p in split.parts) == 1
    assert sum('@"table" = external global [4 x float]' in p for p in split.parts) == 1
    code = jit.compile_module(module, text=split.text, parts=split.parts, keep_object=True)
    assert len(code.objects) == 2 and code.timings["parts"] == 2
    entry = code.cfunction("entry", ctypes.c_float, ctypes.c_int64)
    # table[1] + (table[3] + 0.5) * 2
    assert entry(1) == pytest.approx(2.0 + 9.0)


def _kernel_calls(constant_range: bool) -> ir.Module:
    """A caller running a kernel (the emitter's signature) over a range."""
    module = jit.new_module("kernel_calls")
    kernel = ir.Function(module, KERNEL_TYPE, "kernel")
    kernel.linkage = "internal"
    b = ir.IRBuilder(kernel.append_basic_block())
    pointer = b.bitcast(b.load(kernel.args[0]), ir.IntType(64).as_pointer())
    for _ in range(60):  # big enough to be worth a part
        b.store(b.add(b.load(pointer), kernel.args[2]), pointer)
    b.ret_void()
    caller = ir.Function(module, KERNEL_TYPE, "caller")
    b = ir.IRBuilder(caller.append_basic_block())
    start, stop = (i64(0), i64(1)) if constant_range else caller.args[1:]
    for _ in range(30):
        b.call(kernel, [caller.args[0], start, stop])
    b.ret_void()
    return module


def test_kernels_called_with_a_run_time_range_may_leave_their_caller():
    split = ir_partition.split_module(_kernel_calls(False), 2, 0, kernel_type=KERNEL_TYPE)
    assert len(split.parts) == 2
    assert any('define void @"kernel"' in p for p in split.parts)  # exported
    # Without the kernel type, or with a constant range, the call keeps them together.
    assert ir_partition.split_module(_kernel_calls(False), 2, 0).parts == []
    constant = ir_partition.split_module(_kernel_calls(True), 2, 0, kernel_type=KERNEL_TYPE)
    assert constant.parts == []


def test_small_or_single_component_modules_do_not_split():
    module = _module()
    assert ir_partition.split_module(module, 1).parts == []
    assert ir_partition.split_module(module, 2, min_part_chars=10**6).parts == []
    single = jit.new_module("single")
    f = ir.Function(single, ir.FunctionType(ir.IntType(64), [ir.IntType(64)]), "f")
    b = ir.IRBuilder(f.append_basic_block())
    b.ret(f.args[0])
    assert ir_partition.split_module(single, 4, min_part_chars=0).parts == []


def test_thread_setting(monkeypatch):
    monkeypatch.setenv(jit.ENV_THREADS, "3")
    assert jit.parallel_parts() == 3
    monkeypatch.setenv(jit.ENV_THREADS, "0")
    assert jit.parallel_parts() == 1
    monkeypatch.setenv(jit.ENV_THREADS, "many")
    with pytest.raises(InvalidArgumentError, match="XLAPY_COMPILE_THREADS"):
        jit.parallel_parts()


def test_threads_compiling_split_programs_at_once(monkeypatch):
    monkeypatch.setenv(jit.ENV_THREADS, "2")
    x = _softmax_input()
    expected = _softmax_expected()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(3):
                exe = CpuBackend().compile(parse_module(SOFTMAX), CpuOptions(cache=False))
                np.testing.assert_allclose(_run(exe, x), expected, rtol=1e-5, atol=1e-6)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(persistent_cache.ENV_VERSION, "test-compile-parallel")
    compiler.clear_cache()
    persistent_cache.reset_stats()
    yield str(tmp_path / "cache")
    compiler.clear_cache()


def test_split_program_round_trips_the_persistent_cache_without_parsing(cache_dir, monkeypatch):
    monkeypatch.setenv(jit.ENV_THREADS, "2")
    options = CpuOptions(persistent_cache_dir=cache_dir)
    first = CpuBackend().compile(parse_module(SOFTMAX), options)
    assert persistent_cache.stats()["writes"] == 1
    assert len(first.program.code.objects) == 2
    compiler.clear_cache()
    loaded = CpuBackend().compile(parse_module(SOFTMAX), options)
    assert persistent_cache.stats()["hits"] == 1
    program = loaded.program
    assert isinstance(program, persistent_cache.StoredProgram)
    # Running needs no module: the stored text is still unparsed afterwards.
    np.testing.assert_allclose(
        _run(loaded, _softmax_input()), _softmax_expected(), rtol=1e-5, atol=1e-6
    )
    assert program._source._module is None  # noqa: SLF001
    assert program.name == first.program.module.name
    # Asking for it parses it, once, and it is the optimized module compiled.
    module = loaded.hlo_module_after_optimizations
    assert module is loaded.module
    assert module.to_text() == first.program.module.to_text()


def test_stored_loop_program_keeps_its_interrupt_thunks_lazy(cache_dir):
    options = CpuOptions(persistent_cache_dir=cache_dir)
    first = CpuBackend().compile(parse_module(LOOP), options)
    compiler.clear_cache()
    loaded = CpuBackend().compile(parse_module(LOOP), options)
    x = np.arange(1024, dtype=np.float32)
    np.testing.assert_allclose(_run(loaded, x), x * 0.5**10, rtol=1e-6)
    stored, compiled = loaded.program.thunks, first.program.thunks
    assert len(stored) == len(compiled) >= 1
    assert loaded.program._source._module is None  # noqa: SLF001
    assert [t.instruction.name for t in stored] == [t.instruction.name for t in compiled]


def test_invalid_module_is_refused_by_the_verifier_with_the_cache_on(cache_dir):
    module = parse_module("HloModule bad\nENTRY e {\n  a = f32[8] parameter(0)\n"
                          "  ROOT s = f32[8] add(a, a)\n}")  # fmt: skip
    module.entry.root.shape = xlapy.Shape.array(xlapy.F32, [4])
    for options in (CpuOptions(), CpuOptions(persistent_cache_dir=cache_dir)):
        for _ in range(2):  # nothing was cached by the first refusal
            with pytest.raises(InvalidArgumentError, match="contradicts the inferred shape"):
                CpuBackend().compile(module, options)
