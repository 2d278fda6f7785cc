"""The machine's roofs (``backends/cpu/roofline``): one measurement for the profiler and the
benchmarks, with the peak taken per vector ISA.

The figures themselves depend on the machine and its load, so they are checked for
sanity only; what is checked exactly is the code the peak loop becomes: as wide as the
ISA, one FMA per accumulator, and no accumulator spilled to the stack (a spilling loop
measures loads and stores, which is how the old 16-lane loop read low on AVX2).
"""

from __future__ import annotations

import os
import re

import pytest

from xlapy.backends.cpu import roofline
from xlapy.backends.cpu.runtime import jit

NAMED_ISAS = [("x86-64-v2", "SSE", 4), ("x86-64-v3", "AVX2", 8), ("x86-64-v4", "AVX-512", 16)]


@pytest.mark.parametrize(("cpu", "name", "lanes"), NAMED_ISAS)
def test_vector_isa_follows_the_target(cpu, name, lanes):
    isa = roofline.vector_isa(jit.resolve_target(cpu))
    assert (isa.name, isa.lanes) == (name, lanes)
    # Accumulators and the loop's two constants fit the register file.
    assert isa.chains + 2 <= isa.registers


def _peak_loop_assembly(cpu: str) -> str:
    target = jit.resolve_target(cpu)
    isa = roofline.vector_isa(target)
    module = roofline.kernel_module(isa)
    text = roofline.module_text(module, isa)
    code = jit.compile_module(module, target=target, text=text, keep_asm=True)
    assembly = code.assembly
    return assembly[assembly.index("peak:") : assembly.index("read:")]


@pytest.mark.parametrize(("cpu", "register"), [("x86-64-v3", "ymm"), ("x86-64-v4", "zmm")])
def test_peak_loop_is_full_width_fmas_without_spills(cpu, register):
    # Compiled only (never run), so this holds on any x86-64 host.
    if jit.host_triple().split("-")[0] != "x86_64":
        pytest.skip("the AVX2 and AVX-512 peak loops are x86-64 code; this host is not x86-64")
    loop = _peak_loop_assembly(cpu)
    isa = roofline.vector_isa(jit.resolve_target(cpu))
    fmas = re.findall(rf"vfmadd\w+\s+[^\n]*%{register}", loop)
    assert len(fmas) == isa.chains, loop
    assert "(%rsp)" not in loop, f"the peak loop spills to the stack:\n{loop}"


def test_measure_gives_both_roofs_for_the_target():
    quick = roofline.measure(quick=True)
    assert quick.bandwidth > 1e8 and quick.read_bandwidth > 1e8
    assert quick.bandwidth == max(quick.copy_bandwidth, quick.triad_bandwidth)
    assert quick.peak_flops_f32 > 1e8 and quick.isa == roofline.vector_isa().name
    figures = quick.as_dict()
    assert figures["peak_gflops"] == quick.peak_flops_f32 / 1e9
    assert quick.isa in quick.describe()


def test_avx2_peak_is_measured_with_avx2_code():
    target = jit.resolve_target("x86-64-v3")
    if target.missing_features():
        pytest.skip("this host cannot run AVX2 code")
    found = roofline.kernels(target)
    assert found["isa"].lanes == 8
    assert roofline.measure_peak(target, seconds=0.0005, repeats=3) > 1e8


def test_streams_are_larger_than_the_caches():
    size = roofline.stream_bytes()
    cache = roofline.largest_cache_bytes()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert roofline.MIN_STREAM_BYTES // 4 <= size <= roofline.MAX_STREAM_BYTES
    if 2 * cache <= min(roofline.MAX_STREAM_BYTES, memory // 16):
        assert size >= 2 * cache  # every array twice the last-level cache
