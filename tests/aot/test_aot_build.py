"""Building objects: refusals that name the op, cross-compilation, the pinned header,
the footprint report, and the JIT's IR left as it was when AOT is off."""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess

import pytest

import xlapy.aot as aot
from benchmarks import workloads
from xlapy.aot import command
from xlapy.aot.objects import EM_AARCH64, EM_X86_64
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.custom_call import register_custom_call, unregister_custom_call
from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.hlo import parse_module
from xlapy.tools.inputs import load_module

CORPUS = pathlib.Path(__file__).parents[1] / "data" / "hlo_corpus"
SOFTMAX = """HloModule softmax
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[16,32] parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[16] reduce(x, ninf), dimensions={1}, to_apply=max
  d = f32[16,32] subtract(x, f32[16,32] broadcast(mx), dimensions={0})
  ex = f32[16,32] exponential(d)
  zero = f32[] constant(0)
  s = f32[16] reduce(ex, zero), dimensions={1}, to_apply=add
  ROOT r = f32[16,32] divide(ex, f32[16,32] broadcast(s), dimensions={0})
}"""


def _softmax():
    text = SOFTMAX.replace("f32[16,32] broadcast(mx), dimensions={0}", "bm").replace(
        "f32[16,32] broadcast(s), dimensions={0}", "bs"
    )
    text = text.replace(
        "  d = f32[16,32] subtract(x, bm)",
        "  bm = f32[16,32] broadcast(mx), dimensions={0}\n  d = f32[16,32] subtract(x, bm)",
    ).replace(
        "  ROOT r = f32[16,32] divide(ex, bs)",
        "  bs = f32[16,32] broadcast(s), dimensions={0}\n  ROOT r = f32[16,32] divide(ex, bs)",
    )
    return parse_module(text)


# -- refusals -------------------------------------------------------------------------------


def test_python_custom_call_is_refused_naming_the_target():
    register_custom_call("aot_python_target", lambda x: x * 2, "cpu")
    try:
        module = parse_module("""HloModule py
ENTRY e {
  x = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(x), custom_call_target="aot_python_target"
}""")
        with pytest.raises(
            UnimplementedError, match="custom-call c .*'aot_python_target' is a Python"
        ):
            aot.compile(module, "py")
    finally:
        unregister_custom_call("aot_python_target", "cpu")


@pytest.mark.parametrize(
    "file, op, why",
    [
        ("raw_infeed_outfeed", "infeed", "to or from the host"),
        ("send_recv", "send", "to or from the host"),
        ("all_reduce", "all-reduce", "between devices"),
        ("linalg_tpu", "cholesky", "LAPACK"),
        ("linalg_cpu", "custom-call", "lapack_spotrf_ffi"),
        ("conv_1d_3d", "convolution", "no native code on the CPU"),
    ],
)
def test_programs_that_need_the_host_or_lapack_are_refused(file, op, why):
    module = load_module(str(CORPUS / f"{file}.hlo"))
    with pytest.raises(
        UnimplementedError, match=f"xlapy aot: {op} .*cannot be compiled ahead of time"
    ) as e:
        aot.compile(module, "refused")
    assert why in str(e.value)


def test_bad_names_and_thread_counts_are_refused():
    module = _softmax()
    with pytest.raises(InvalidArgumentError, match="C identifier"):
        aot.compile(module, "not-a-name")
    with pytest.raises(InvalidArgumentError, match="--threads"):
        aot.compile(module, "ok", threads=0)
    with pytest.raises(InvalidArgumentError, match="unknown target triple"):
        aot.compile(module, "ok", target="nonsense-unknown-none")


# -- targets ----------------------------------------------------------------------------------


def test_aarch64_cross_build_is_a_relocatable_aarch64_object():
    result = aot.compile(_softmax(), "sm_arm", target="aarch64-unknown-linux-gnu")
    facts = result.elf
    assert facts.machine == EM_AARCH64 and facts.relocatable
    assert "sm_arm_run" in {s.name for s in facts.symbols if s.bound == "global"}
    with pytest.raises(UnimplementedError, match="thread pool is x86-64"):
        aot.compile(_softmax(), "sm_arm", target="aarch64-unknown-linux-gnu", threads=2)


@pytest.mark.parametrize("cpu", ["x86-64-v2", "x86-64-v3", "x86-64-v4"])
def test_x86_64_levels_build(cpu):
    result = aot.compile(
        workloads.WORKLOADS["matmul"](64).build(), "mm", target="x86_64-unknown-linux-gnu", cpu=cpu
    )
    assert result.elf.machine == EM_X86_64 and result.elf.relocatable
    assert result.target.cpu == cpu
    assert f"cpu {cpu}" in result.header


# -- the C interface ----------------------------------------------------------------------------

PINNED = [
    "#define tup_NUM_ARGS 2",
    "#define tup_NUM_RESULTS 2",
    "extern const size_t tup_arg_bytes[tup_NUM_ARGS];",
    "extern const size_t tup_result_bytes[tup_NUM_RESULTS];",
    "extern const size_t tup_temp_bytes;",
    "int tup_run(const void* const* args, void* const* results, void* temp);",
]


def test_header_is_the_pinned_interface_and_documents_every_buffer(cc, tmp_path):
    module = parse_module("""HloModule tup, entry_computation_layout={(f32[2,3]{1,0}, s32[])->(f32[3,2]{0,1}, s32[])}
ENTRY e {
  a = f32[2,3] parameter(0)
  n = s32[] parameter(1)
  t = f32[3,2]{0,1} transpose(a), dimensions={1,0}
  m = s32[] multiply(n, n)
  ROOT r = (f32[3,2]{0,1}, s32[]) tuple(t, m)
}""")
    result = aot.compile(module, "tup", outdir=str(tmp_path))
    header = (tmp_path / "tup.h").read_text()
    for line in PINNED:
        assert line in header
    assert "arg[0] parameter 0 (a): f32[2, 3], row-major (layout {1,0}), dense, 24 bytes" in header
    assert "arg[1] parameter 1 (n): s32[] (a scalar), 4 bytes" in header
    assert "result[0] result{0}: f32[3, 2], layout {0,1}" in header
    assert result.elf.relocatable
    # The header compiles as C++ with the wrapper class, which runs the program.
    program = tmp_path / "use.cc"
    program.write_text(
        '#include "tup.h"\n#include <cstdio>\n'
        "int main() {\n"
        "  float a[6] = {1, 2, 3, 4, 5, 6}; int n = 7; float t[6]; int m = 0;\n"
        "  Tup p; p.set_arg(0, a); p.set_arg(1, &n); p.set_result(0, t); p.set_result(1, &m);\n"
        "  if (p.Run() != 0) return 1;\n"
        '  for (int i = 0; i < 6; ++i) std::printf("%g ", t[i]);\n'
        '  std::printf("%d\\n", m);\n'
        "  return 0;\n}\n"
    )
    cxx = os.environ.get("CXX", "c++")
    built = subprocess.run(
        [cxx, "-std=c++17", "-I", str(tmp_path), str(program), str(tmp_path / "tup.o"),
         "-o", str(tmp_path / "use"), "-lm"],
        capture_output=True, text=True,
    )  # fmt: skip
    if built.returncode != 0 and "not found" in built.stderr:
        pytest.skip(f"no C++ compiler: {built.stderr}")
    assert built.returncode == 0, built.stderr
    out = subprocess.run([str(tmp_path / "use")], capture_output=True, text=True, check=True)
    # t = a^T (3x2) stored column-major ({0,1}): the bytes are a's rows.
    assert out.stdout.split() == ["1", "2", "3", "4", "5", "6", "49"]


def test_report_lists_kernels_and_totals(tmp_path, capsys):
    hlo = tmp_path / "softmax.hlo"
    hlo.write_text(_softmax().to_text())
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(["aot", str(hlo), "--name", "sm", "-o", str(tmp_path), "--report"])
    assert args.run(args) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "sm.o").exists() and (tmp_path / "sm.h").exists()
    assert "sm_run" in out and "function" in out and "total: code" in out
    rows = [line.split() for line in out.splitlines() if line.split()[1:2] == ["function"]]
    assert len(rows) >= 2 and all(int(row[-1]) > 0 for row in rows)


# -- the JIT is unchanged when AOT is off -------------------------------------------------------


def _ir(module, options, tmp_path, tag):  # noqa: ANN001, ANN202
    """The LLVM IR the JIT compiles, with this process's addresses blanked out."""
    options.dump_dir = str(tmp_path / tag)
    CpuBackend().compile(module, options)
    text = (tmp_path / tag / f"{module.name}.ll").read_text()
    return re.sub(r"inttoptr \(i64 \d+", "inttoptr (i64 ADDRESS", text)


@pytest.mark.parametrize("name", ["matmul", "conv2d", "fft"])
def test_jit_ir_keeps_blas_and_addresses_unless_asked(name, tmp_path):
    module = workloads.WORKLOADS[name](64).build().hlo_module
    # The JIT's default calls xlapy's GEMM library by symbol; AOT code emits it inline.
    default = _ir(module, CpuOptions(), tmp_path, "default")
    explicit = _ir(module, CpuOptions(gemm="xlapy", aot=False), tmp_path, "explicit")
    assert default == explicit
    assert "@constant" not in default
    blas = _ir(module, CpuOptions(gemm="openblas"), tmp_path, "blas")
    assert "xlapy_gemm_" not in blas
    if name != "fft":  # the convolution's library kernels carry the GEMM in them
        library = "xlapy_gemm_" if name == "matmul" else "xlapy_conv_"
        assert library in default and "xlapy_blas_" in blas
        assert "xlapy_blas_" not in default


def test_object_constants_are_globals_not_addresses():
    result = aot.compile(load_module(str(CORPUS / "large_constant.hlo")), "lc")
    assert "inttoptr (i64" not in result.ir
    assert any(s.kind == "object" and s.section.startswith(".rodata") and s.size >= 64
               for s in result.elf.symbols if s.bound == "local")  # fmt: skip
    assert result.sizes["rodata"] >= 64
