"""``xlapy profile`` and ``Executable.profile``: the table, the Chrome trace, the costs."""

from __future__ import annotations

import json

import numpy as np
import pytest

import xlapy
from xlapy import cli
from xlapy.backends.cpu.roofline import Machine, machine
from xlapy.errors import UnimplementedError
from xlapy.hlo import parse_module
from xlapy.passes.cost_analysis import TRANSCENDENTAL, Cost, instruction_cost
from xlapy.tools.profile import profile_file

# Enough work per kernel (milliseconds) that the gaps between thunks are small.
TEXT = """HloModule mlp
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[256,384] parameter(0)
  w = f32[384,256] parameter(1)
  d = f32[256,256] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[256,256] tanh(d)
  e = f32[256,256] exponential(t)
  z = f32[] constant(0)
  ROOT r = f32[256] reduce(e, z), dimensions={1}, to_apply=add
}"""


@pytest.fixture(scope="module")
def module():
    return parse_module(TEXT)


@pytest.fixture(scope="module")
def arguments():
    rng = np.random.default_rng(3)
    return [
        (rng.standard_normal((256, 384)) * 0.1).astype(np.float32),
        (rng.standard_normal((384, 256)) * 0.1).astype(np.float32),
    ]


@pytest.fixture(scope="module")
def executable(module):
    return xlapy.local_client("cpu").compile(module)


@pytest.fixture(scope="module")
def report(executable, arguments):
    return executable.profile(*arguments, iterations=3)


def test_profile_result_equals_a_plain_call(executable, arguments, report):
    plain = executable(*arguments)
    assert np.array_equal(plain.view(np.uint32), report.result.view(np.uint32))


def test_kernel_names_are_the_optimized_modules_thunks(executable, report):
    optimized = executable.hlo_module_after_optimizations
    names = {i.name for c in optimized.computations for i in c.instructions}
    kernels = [row for row in report.kernels if row.kind == "kernel"]
    assert kernels
    for row in kernels:
        assert set(row.name.split("+")) <= names, row.name
    fusions = {i.name for i in optimized.entry.instructions if i.opcode.value == "fusion"}
    assert fusions <= {part for row in kernels for part in row.name.split("+")}


def test_events_cover_the_call(report):
    # The thunks' events cover the program's native span, and the native span nearly
    # all of the call as Python timed it (conversions of arguments included).
    assert report.coverage >= 0.95
    assert report.program_ns <= report.wall_ns
    assert report.program_ns * report.coverage >= 0.5 * report.wall_ns


def test_shares_add_up_and_rows_carry_costs(report):
    assert sum(row.share for row in report.kernels) == pytest.approx(1.0, abs=1e-6)
    rows = {row.opcode: row for row in report.kernels}
    dot = rows["dot"]
    assert dot.flops == 2 * 256 * 256 * 384
    assert dot.bytes == 4 * (256 * 384 + 384 * 256 + 256 * 256)
    assert dot.bound in ("memory", "compute")
    assert dot.calls == 1 and dot.time_ns > 0
    assert 0 <= dot.bandwidth_fraction and 0 <= dot.peak_fraction


def test_chrome_trace_loads_and_has_the_fields(report, tmp_path):
    path = tmp_path / "trace.json"
    report.write_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(events) == len(report.events)
    for event in events:
        assert {"name", "ph", "ts", "dur", "pid", "tid", "args"} <= event.keys()
        assert event["dur"] >= 0 and event["ts"] >= 0
        assert {"opcode", "bytes", "flops"} <= event["args"].keys()
    assert {e["args"]["iteration"] for e in events} == {0, 1, 2}
    names = {e["name"] for e in trace["traceEvents"] if e["ph"] == "M"}
    assert names == {"process_name", "thread_name"}


def test_table_lists_every_kernel(report):
    table = report.table()
    for column in ("kernel", "time us", "bytes", "FLOPs", "%BW", "%peak", "bound", "share"):
        assert column in table
    for row in report.kernels:
        assert row.name in table
    assert len(report.table(limit=1).splitlines()) == 4  # summary, header, rule, row


def test_profile_is_cpu_only(module, arguments):
    interpreted = xlapy.local_client("interpreter").compile(module)
    with pytest.raises(UnimplementedError, match="cpu platform only"):
        interpreted.profile(*arguments)


def test_cost_model():
    module = parse_module(
        """HloModule c
ENTRY main {
  x = f32[8,16] parameter(0)
  k = f32[3,3,16,4] parameter(1)
  img = f32[2,10,10,16] parameter(2)
  e = f32[8,16] exponential(x)
  a = f32[8,16] add(x, e)
  conv = f32[2,8,8,4] convolution(img, k), window={size=3x3}, dim_labels=b01f_01io->b01f
  ROOT t = (f32[8,16], f32[2,8,8,4]) tuple(a, conv)
}"""
    )
    entry = {i.name: i for i in module.entry.instructions}
    assert instruction_cost(entry["e"]) == Cost(0, 128, 2 * 128 * 4)
    assert instruction_cost(entry["a"]) == Cost(128, 0, 3 * 128 * 4)
    assert instruction_cost(entry["conv"]).flops == 2 * (2 * 8 * 8 * 4) * 9 * 16
    assert instruction_cost(entry["t"]) == Cost()
    assert xlapy.opcode.HloOpcode.EXP in TRANSCENDENTAL


def test_roofline_is_measured_once():
    first = machine()
    assert machine() is first
    assert first.bandwidth > 1e8 and first.peak_flops_f32 > 1e8
    assert first.peak_flops(64) == first.peak_flops_f32 / 2
    assert "GB/s" in Machine(1e9, 1e9, 1, 4).describe()


def test_cli_writes_the_trace_and_prints_the_table(tmp_path, capsys):
    source = tmp_path / "mlp.hlo"
    source.write_text(TEXT)
    trace = tmp_path / "out.json"
    status = cli.main(["profile", str(source), "--iterations", "2", "-o", str(trace)])
    assert status == 0
    out = capsys.readouterr().out
    assert "share" in out and "dot" in out and f"wrote {trace}" in out
    loaded = json.loads(trace.read_text())
    assert any(e["ph"] == "X" and e["args"]["opcode"] == "dot" for e in loaded["traceEvents"])


def test_cli_reads_npz_inputs(tmp_path, module, arguments, executable):
    source = tmp_path / "mlp.hlo"
    source.write_text(TEXT)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, *arguments)
    report = profile_file(str(source), inputs=str(inputs))
    assert np.array_equal(report.result, executable(*arguments))
    bad = tmp_path / "bad.npz"
    np.savez(bad, arguments[0])
    assert cli.main(["profile", str(source), "--inputs", str(bad)]) == 1


def test_cli_profiles_stablehlo_text(tmp_path, capsys):
    source = tmp_path / "exp.mlir"
    source.write_text(
        """func.func @main(%arg0: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = stablehlo.exponential %arg0 : tensor<1024xf32>
  %1 = stablehlo.add %0, %arg0 : tensor<1024xf32>
  return %1 : tensor<1024xf32>
}
"""
    )
    assert cli.main(["profile", str(source), "--random", "5"]) == 0
    out = capsys.readouterr().out
    assert "fusion" in out and "100.0%" in out
