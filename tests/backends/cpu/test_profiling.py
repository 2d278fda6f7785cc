"""CpuOptions.profile: timestamps taken by the native code around every thunk.

Off, the emitted IR is what it always was; on, every run of every thunk records one
event (a while body's kernels once per trip), the events nest inside the program's,
and the results are bit for bit those of the code without timestamps.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from xlapy.backends.cpu import CpuBackend, CpuOptions
from xlapy.backends.cpu.codegen import ModuleEmitter
from xlapy.backends.cpu.pipeline import cpu_pipeline
from xlapy.backends.cpu.profiling import EventBuffer
from xlapy.backends.cpu.runtime import native_runtime
from xlapy.custom_call import register_custom_call, unregister_custom_call
from xlapy.errors import FailedPreconditionError
from xlapy.hlo import parse_module
from xlapy.literal import Literal
from xlapy.testing.hlo_programs import row_softmax

TRIPS = 5

WHILE_TEXT = f"""HloModule looped
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
body {{
  p = (s32[], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[64,64] get-tuple-element(p), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  e = f32[64,64] exponential(x)
  d = f32[64,64] dot(e, x), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  t = f32[64,64] tanh(d)
  ROOT r = (s32[], f32[64,64]) tuple(next, t)
}}
cond {{
  p = (s32[], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant({TRIPS})
  ROOT lt = pred[] compare(i, n), direction=LT
}}
ENTRY main {{
  x = f32[64,64] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[64,64]) tuple(zero, x)
  w = (s32[], f32[64,64]) while(init), condition=cond, body=body
  y = f32[64,64] get-tuple-element(w), index=1
  z = f32[] constant(0)
  ROOT s = f32[64] reduce(y, z), dimensions={{1}}, to_apply=add
}}"""


@pytest.fixture(scope="module")
def module():
    return parse_module(WHILE_TEXT)


@pytest.fixture(scope="module")
def argument():
    rng = np.random.default_rng(7)
    return Literal.from_value((rng.standard_normal((64, 64)) * 0.05).astype(np.float32))


def _emitted_ir(module, options: CpuOptions) -> str:
    native_runtime.ensure_runtime()
    optimized = module.clone()
    cpu_pipeline(options).run(optimized)
    emitter = ModuleEmitter(optimized, options)
    emitter.emit_entry()
    return str(emitter.ir)


def _normalized(ir_text: str) -> list[str]:
    """IR lines with what differs between two compiles of one module taken out: the
    addresses of constants (baked into the code) and the numbers of unnamed values."""
    text = re.sub(r"inttoptr \(i64 \d+", "inttoptr (i64 ADDRESS", ir_text)
    text = re.sub(r'%"\.\d+"', '%".N"', text)
    return [line for line in text.splitlines() if line.strip()]


def test_profiling_off_emits_the_same_ir_as_the_default(module):
    default = _emitted_ir(module, CpuOptions())
    off = _emitted_ir(module, CpuOptions(profile=False))
    assert _normalized(default) == _normalized(off)
    assert "xlapy_profile" not in default


def test_profiling_on_only_adds_the_timestamp_calls(module):
    default = _emitted_ir(module, CpuOptions())
    on = _emitted_ir(module, CpuOptions(profile=True))
    assert "xlapy_profile_record" in on
    kept = [line for line in _normalized(on) if "xlapy_profile" not in line]
    assert kept == _normalized(default)


def test_profile_is_in_the_compile_cache_key(module):
    plain = CpuBackend().compile(module, CpuOptions())
    profiled = CpuBackend().compile(module, CpuOptions(profile=True))
    assert plain.program is not profiled.program
    assert plain.program.profile_sites == []
    assert profiled.program.profile_sites
    assert CpuBackend().compile(module, CpuOptions(profile=True)).program is profiled.program


def test_one_event_per_thunk_run_and_each_while_trip(module, argument):
    executable = CpuBackend().compile(module, CpuOptions(profile=True))
    report = executable.profile([argument], iterations=2)
    sites = report.sites
    names = [sites[e.site].name for e in report.events if e.iteration == 0]
    for kernel in ("e", "d", "t"):
        assert names.count(kernel) == TRIPS, (kernel, names)
    assert names.count("w") == 1
    assert names.count(module.name) == 1  # the program, whole
    assert len(report.events) == 2 * len(names)
    assert report.dropped == 0
    rows = {row.name: row for row in report.kernels}
    assert rows["d"].calls == TRIPS
    assert rows["d"].flops == TRIPS * 2 * 64 * 64 * 64
    assert rows["e"].transcendentals == TRIPS * 64 * 64


def test_events_nest_inside_the_program_and_are_monotonic(module, argument):
    executable = CpuBackend().compile(module, CpuOptions(profile=True))
    report = executable.profile([argument], iterations=3)
    for iteration in range(3):
        events = [e for e in report.events if e.iteration == iteration]
        program = [e for e in events if report.sites[e.site].kind == "program"]
        assert len(program) == 1
        outer = program[0]
        starts = [e.start_ns for e in events]
        assert starts == sorted(starts)
        for e in events:
            assert 0 <= e.duration_ns and 0 <= e.self_ns <= e.duration_ns
            assert outer.start_ns <= e.start_ns <= e.stop_ns <= outer.stop_ns
        # Any two events are disjoint or one holds the other (one thread, one clock).
        for a in events:
            for b in events:
                disjoint = a.stop_ns <= b.start_ns or b.stop_ns <= a.start_ns
                nested = (a.start_ns <= b.start_ns and b.stop_ns <= a.stop_ns) or (
                    b.start_ns <= a.start_ns and a.stop_ns <= b.stop_ns
                )
                assert disjoint or nested
        # The body's kernels run inside the while loop's event.
        loop = next(e for e in events if report.sites[e.site].name == "w")
        for e in events:
            if report.sites[e.site].computation == "body":
                assert loop.start_ns <= e.start_ns and e.stop_ns <= loop.stop_ns
    assert report.coverage > 0.5


def test_results_equal_the_unprofiled_run_bit_for_bit(module, argument):
    plain = CpuBackend().compile(module, CpuOptions()).execute([argument]).to_numpy()
    executable = CpuBackend().compile(module, CpuOptions(profile=True))
    report = executable.profile([argument])
    assert np.array_equal(plain.view(np.uint32), report.result.to_numpy().view(np.uint32))
    # Called normally, code compiled for profiling records nothing and gives the same.
    again = executable.execute([argument]).to_numpy()
    assert np.array_equal(plain.view(np.uint32), again.view(np.uint32))


def test_a_full_buffer_counts_the_rest_and_writes_nothing_past_it(module, argument):
    executable = CpuBackend().compile(module, CpuOptions(profile=True))
    report = executable.profile([argument], capacity=4)
    assert len(report.events) == 4
    assert report.dropped > 0
    total = len(executable.profile([argument]).events)
    assert report.dropped == total - 4


def test_event_buffer_reports_only_what_was_written():
    buffer = EventBuffer(3)
    assert buffer.events().shape == (0, 3)
    buffer.words[1] = 99  # a count past the capacity is clipped, never read past
    assert buffer.events().shape == (3, 3)
    buffer.reset()
    assert buffer.dropped == 0 and buffer.events().shape == (0, 3)


def test_profiling_code_compiled_without_profile_is_refused(module, argument):
    executable = CpuBackend().compile(module, CpuOptions())
    with pytest.raises(FailedPreconditionError, match="profile=True"):
        executable.profile([argument])


def test_row_groups_and_parallel_kernels_are_one_event_each():
    text = row_softmax(256, 512)
    module = parse_module(text)
    executable = CpuBackend().compile(module, CpuOptions(profile=True))
    x = np.random.default_rng(1).standard_normal((256, 512)).astype(np.float32)
    report = executable.profile([Literal.from_value(x)])
    kernels = [e for e in report.events if report.sites[e.site].kind == "kernel"]
    # Each thunk, however many kernels it splits into or threads it runs on, is one event.
    assert len(kernels) == len({e.site for e in kernels})
    assert executable.row_groups >= 1
    groups = [s for s in report.sites if "+" in s.name]
    assert groups and all(len(s.instructions) >= 2 for s in groups)
    assert all(executable.program.module.entry.instruction(n) for n in groups[0].name.split("+"))
    plain = CpuBackend().compile(module, CpuOptions()).execute([Literal.from_value(x)])
    assert np.array_equal(plain.to_numpy(), report.result.to_numpy())


def test_calls_into_python_are_marked_as_such():
    text = """HloModule cb
ENTRY e {
  x = f32[8] parameter(0)
  y = f32[8] exponential(x)
  c = f32[8] custom-call(y), custom_call_target="xlapy.test/profiled_cb"
  ROOT out = f32[8] add(c, y)
}"""
    register_custom_call("xlapy.test/profiled_cb", lambda y: y * 2)
    try:
        executable = CpuBackend().compile(parse_module(text), CpuOptions(profile=True))
        report = executable.profile([Literal.from_value(np.ones(8, np.float32))])
    finally:
        unregister_custom_call("xlapy.test/profiled_cb")
    rows = {row.name: row for row in report.kernels}
    assert rows["c"].python and rows["c"].bound == "python"
    assert not any(row.python for name, row in rows.items() if name != "c")
