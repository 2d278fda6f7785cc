"""The conformance runner: finding cases, judging them, isolating them, reporting them.

Three layers, each tested on its own: the execution of one lowered program
(checks and interpreter ops as custom-calls, with HLO-text stand-ins for the
importer), the worker pool on small MLIR files (pass, fail, error,
unsupported, a hang, a crash, several sections), and the CLI's outputs. A
handful of the real conformance files run at the end, when ../shared has them.
"""

from __future__ import annotations

import json
import multiprocessing
import threading
import time
from pathlib import Path

import pytest

from xlapy.conformance import checks, report
from xlapy.conformance.__main__ import main
from xlapy.conformance.execute import entry_function, run_program
from xlapy.conformance.runner import CaseResult, find_cases, op_of, run_cases
from xlapy.errors import UnimplementedError
from xlapy.hlo import parse_module

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "conformance" / "stablehlo"


# -- one lowered program (HLO text standing in for the importer) ------------------------------


class StubProgram:
    """What the runner needs of ``xlapy.stablehlo.Program``, from HLO text per function."""

    def __init__(self, functions: dict[str, str], num_replicas: int = 1) -> None:
        self.functions_text = functions
        self.num_replicas = num_replicas
        self.num_partitions = 1

    def function_names(self) -> list[str]:
        return list(self.functions_text)

    def hlo_module(self, function: str = "main"):
        text = self.functions_text[function]
        if text == "unsupported":
            raise UnimplementedError("stablehlo.fancy_op is not supported yet")
        return parse_module(text)


def call(name: str, target: str, operands: str, config: dict, shape: str = "()") -> str:
    text = json.dumps(config).replace('"', '\\"')
    return (
        f'  {name} = {shape} custom-call({operands}), custom_call_target="{target}", '
        f'custom_call_has_side_effect=true, backend_config="{text}"'
    )


def module(name: str, body: list[str], root: str = "ROOT done = () tuple()") -> str:
    return "\n".join([f"HloModule {name}", f"ENTRY {name} {{", *body, f"  {root}", "}"])


CLOSE_01 = {"min_ulp_difference": 0, "max_ulp_difference": 1}


def run(functions: dict[str, str], op: str = "test", **kwargs):
    return run_program(StubProgram(functions, **kwargs), "interpreter", op)


def test_passing_checks():
    body = [
        "  a = s32[3] constant({1, 2, 3})",
        "  x = f32[2] constant({1, 2})",
        "  y = f32[2] constant({1, 2.00001})",
        call("c0", "check.expect_eq", "a, a", {}),
        call("c1", "check.expect_almost_eq", "x, y", {"tolerance": 1e-4}),
        call("c2", "check.expect_close", "x, x", CLOSE_01),
    ]
    outcome = run({"main": module("main", body)})
    assert outcome.status == "pass", outcome.detail
    assert outcome.checks == 3
    assert "[0, 1] ULP" in outcome.tolerance and "tolerance 0.0001" in outcome.tolerance


def test_failing_check_reports_the_first_differing_element():
    body = [
        "  a = s32[2,2] constant({{1, 2}, {3, 4}})",
        "  b = s32[2,2] constant({{1, 2}, {5, 6}})",
        call("c0", "check.expect_eq_const", "a, b", {}),
    ]
    outcome = run({"main": module("main", body)})
    assert outcome.status == "fail"
    assert "index [1, 0]" in outcome.detail
    assert "actual 3" in outcome.detail and "expected 5" in outcome.detail


def test_ulp_distance_in_failure_detail():
    body = [
        "  x = f32[1] constant({1})",
        "  y = f32[1] constant({1.0000003})",
        call("c0", "check.expect_close", "x, y", CLOSE_01),
    ]
    outcome = run({"main": module("main", body)})
    assert outcome.status == "fail"
    assert "ULP apart" in outcome.detail and "[0, 1] ULP" in outcome.detail


def test_errors_and_unsupported_constructs():
    body = ["  x = f32[1] constant({1})", call("c0", "no.such_target", "x", {})]
    outcome = run({"main": module("main", body)})
    assert outcome.status == "error" and "NotFoundError" in outcome.detail
    outcome = run({"main": "unsupported"})
    assert outcome.status == "unsupported" and "fancy_op" in outcome.detail


def test_entry_function_is_main_or_the_only_one():
    assert entry_function(StubProgram({"f": "", "main": ""})) == "main"
    assert entry_function(StubProgram({"only": ""})) == "only"
    with pytest.raises(ValueError, match="no @main"):
        entry_function(StubProgram({"f": "", "g": ""}))


def test_run_parallel_two_replicas():
    all_gather = "\n".join(
        [
            "HloModule all_gather",
            "ENTRY all_gather {",
            "  p = s64[2] parameter(0)",
            "  ROOT r = s64[4] all-gather(p), replica_groups={{0,1}}, dimensions={0}",
            "}",
        ]
    )
    config = {"programs": [["all_gather"], ["all_gather"]], "infeed": []}
    body = [
        "  a = s64[2] constant({1, 2})",
        "  b = s64[2] constant({3, 4})",
        call("rp", "interpreter.run_parallel", "a, b", config, "(s64[4], s64[4])"),
        "  r0 = s64[4] get-tuple-element(rp), index=0",
        "  r1 = s64[4] get-tuple-element(rp), index=1",
        "  e = s64[4] constant({1, 2, 3, 4})",
        call("c0", "check.expect_eq_const", "r0, e", {}),
        call("c1", "check.expect_eq_const", "r1, e", {}),
    ]
    outcome = run({"all_gather": all_gather, "main": module("main", body)})
    assert outcome.status == "pass", outcome.detail
    assert outcome.checks == 2


def test_run_parallel_results_come_in_process_order():
    replica_id = "\n".join(
        [
            "HloModule rid",
            "ENTRY rid {",
            "  ROOT r = u32[] replica-id()",
            "}",
        ]
    )
    config = {"programs": [["rid"], ["rid"], ["rid"]], "infeed": []}
    body = [
        call("rp", "interpreter.run_parallel", "", config, "(u32[], u32[], u32[])"),
        "  r2 = u32[] get-tuple-element(rp), index=2",
        "  e = u32[] constant(2)",
        call("c0", "check.expect_eq", "r2, e", {}),
    ]
    outcome = run({"rid": replica_id, "main": module("main", body)})
    assert outcome.status == "pass", outcome.detail


def test_run_parallel_with_different_programs_is_unsupported():
    config = {"programs": [["send"], ["recv"]], "infeed": []}
    body = [call("rp", "interpreter.run_parallel", "", config)]
    outcome = run({"main": module("main", body), "send": "", "recv": ""})
    assert outcome.status == "unsupported" and "MPMD" in outcome.detail


def test_probe_then_expect_serialized_eq():
    body = [
        "  a = s64[2] constant({1, 2})",
        call("p", "interpreter.probe", "a", {"probe_id": "probe0"}, "s64[2]"),
        "  b = s64[2] reverse(p), dimensions={0}",
        call("p2", "interpreter.probe", "b", {"probe_id": "probe0"}, "s64[2]"),
        "  e0 = s64[2] constant({1, 2})",
        "  e1 = s64[2] constant({2, 1})",
        call("c0", "check.expect_serialized_eq", "e0", {"probe_id": "probe0", "iteration": 0}),
        call("c1", "check.expect_serialized_eq", "e1", {"probe_id": "probe0", "iteration": 1}),
    ]
    outcome = run({"main": module("main", body)})
    assert outcome.status == "pass", outcome.detail
    body[-1] = call(
        "c1", "check.expect_serialized_eq", "e0", {"probe_id": "probe0", "iteration": 1}
    )
    assert run({"main": module("main", body)}).status == "fail"


def test_print_collects_the_value():
    body = [
        "  a = s32[2] constant({0, 1})",
        call("p", "interpreter.print", "a", {"name": "%0", "type": "tensor<2xi32>"}),
    ]
    outcome = run({"main": module("main", body)})
    assert outcome.status == "pass"
    assert outcome.printed == ["%0 = tensor<2xi32> {[0, 1]}"]


def two_ulp_apart(config: dict) -> str:
    body = [
        "  x = f32[1] constant({1})",
        "  y = f32[1] constant({1.0000002})",  # 2 ULP above 1.0
        call("c0", "check.expect_close", "x, y", config),
    ]
    return module("main", body)


def test_custom_call_form_uses_the_reference_bounds():
    # The check op's own bounds ([0, 1]) reject 2 ULP; JAX's custom-call form gets [0, 3].
    program = StubProgram({"main": two_ulp_apart(CLOSE_01)})
    assert run_program(program, "interpreter", "t").status == "fail"
    relaxed = StubProgram({"main": two_ulp_apart({**CLOSE_01, "form": "custom_call"})})
    outcome = run_program(relaxed, "interpreter", "t")
    assert outcome.status == "pass" and outcome.tolerance == "[0, 3] ULP"


def test_lowering_marks_the_custom_call_form():
    from xlapy.stablehlo import parse_module

    text = """func.func @main() {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  stablehlo.custom_call @check.expect_close(%0, %0) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
  check.expect_close %0, %0, max_ulp_difference = 3 : tensor<f32>, tensor<f32>
  func.return
}"""
    configs = [
        i.attributes.get("backend_config")
        for i in parse_module(text).entry.instructions
        if i.opcode.value == "custom-call"
    ]
    assert len(configs) == 2
    assert '"form": "custom_call"' in str(configs[0]) and "form" not in str(configs[1])


def test_per_op_tolerance_is_reported(monkeypatch):
    override = checks.ToleranceOverride("test reason", max_ulp=2)
    monkeypatch.setitem(checks.OP_TOLERANCES, "fakeop", override)
    outcome = run({"main": two_ulp_apart(CLOSE_01)}, op="fakeop")
    assert outcome.status == "pass"
    assert "per-op tolerance max_ulp_difference=2: test reason" in outcome.detail
    assert "per-op tolerance" in outcome.tolerance
    # Without the entry the same case fails against the file's bound.
    assert run({"main": two_ulp_apart(CLOSE_01)}, op="otherop").status == "fail"


# -- naming and finding cases ----------------------------------------------------------------


def test_op_names():
    assert op_of("x/testdata/abs_complex64_20_20.mlir") == "abs"
    assert op_of("x/testdata/reduce_window_min_float16_4_6.mlir") == "reduce_window_min"
    assert op_of("x/testdata/random_gamma_float32_chlo.mlir") == "random_gamma"
    assert op_of("x/testdata/iota_2x32_shape.mlir") == "iota"
    assert op_of("x/testdata/iota_.mlir") == "iota"
    assert op_of("x/interpret/add.mlir") == "add"
    assert op_of("tmp/anything_float32.mlir") == "anything_float32"


PASS = """
func.func @main() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0, dense<[1, 2]> : tensor<2xi32>
  func.return
}
"""

FAIL = """
func.func @main() {
  %0 = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %1 = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.5]]> : tensor<2x2xf32>
  check.expect_close %0, %1, max_ulp_difference = 1 : tensor<2x2xf32>, tensor<2x2xf32>
  func.return
}
"""

ERROR = """
func.func @main() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.custom_call @no_such_target(%0) : (tensor<2xi32>) -> tensor<2xi32>
  func.return
}
"""

UNSUPPORTED = """
func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.uniform_quantize %0 : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.1:-30>>
  func.return
}
"""

HANG = """
func.func @main() {
  %0 = stablehlo.constant dense<0> : tensor<i64>
  %1 = stablehlo.while(%arg0 = %0) : tensor<i64>
  cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    stablehlo.return %arg0 : tensor<i64>
  }
  func.return
}
"""

SECTIONS = """// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @first() {
  %0 = stablehlo.constant dense<1.0> : tensor<f64>
  check.expect_almost_eq_const %0, dense<1.00001> : tensor<f64>
  func.return
}

// -----

func.func @second() {
  %0 = stablehlo.constant dense<1.0> : tensor<f64>
  check.expect_almost_eq_const %0, dense<1.1> : tensor<f64>
  func.return
}

// -----

func.func @third() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %1 = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %2 = stablehlo.add %0, %1 : tensor<2xi64>
  %3 = interpreter.probe %2, probe_id = "sum" : tensor<2xi64>
  check.expect_serialized_eq %3, probe_id = "sum" : tensor<2xi64>
  func.return
}
"""

RUN_PARALLEL = """
module @cross_replica {
  func.func @all_gather(%operand : tensor<2xi64>) -> tensor<4xi64> {
    %result = "stablehlo.all_gather"(%operand) {
      all_gather_dim = 0 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
    } : (tensor<2xi64>) -> tensor<4xi64>
    return %result : tensor<4xi64>
  }
  func.func @main() {
    %inputs0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %inputs1 = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %results:2 = "interpreter.run_parallel"(%inputs0, %inputs1) {
      programs=[[@all_gather], [@all_gather]]
    } : (tensor<2xi64>, tensor<2xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %results#0, dense<[1, 2, 3, 4]> : tensor<4xi64>
    check.expect_eq_const %results#1, dense<[1, 2, 3, 4]> : tensor<4xi64>
    func.return
  }
}
"""


def write_cases(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_sections_lines_and_names(tmp_path):
    folder = write_cases(tmp_path / "interpret", {"multi.mlir": SECTIONS, "one.mlir": PASS})
    cases = find_cases([folder])
    markers = [n for n, line in enumerate(SECTIONS.splitlines(), 1) if line == "// -----"]
    # A section after the first is named by its first line, the one after its marker.
    assert [c.name for c in cases] == [
        "interpret/multi.mlir:1",
        f"interpret/multi.mlir:{markers[0] + 1}",
        f"interpret/multi.mlir:{markers[1] + 1}",
        "interpret/one.mlir",
    ]
    assert [c.section for c in cases[:3]] == [0, 1, 2]
    assert all(c.op == "multi" for c in cases[:3])
    # The section text keeps its file line numbers (for the importer's messages).
    second = SECTIONS.splitlines().index("func.func @second() {")
    assert cases[1].text.splitlines()[second] == "func.func @second() {"
    assert find_cases([folder], filter="one") == cases[3:]


def test_pool_reports_every_outcome_and_survives_a_hang(tmp_path):
    folder = write_cases(
        tmp_path / "cases",
        {
            "a_pass.mlir": PASS,
            "b_fail.mlir": FAIL,
            "c_error.mlir": ERROR,
            "d_unsupported.mlir": UNSUPPORTED,
            "e_hang.mlir": HANG,
            "f_sections.mlir": SECTIONS,
            "g_run_parallel.mlir": RUN_PARALLEL,
        },
    )
    started = time.monotonic()
    results = run_cases(find_cases([folder]), jobs=2, timeout=3)
    assert time.monotonic() - started < 25
    by_name = {r.case.name: r for r in results}
    assert by_name["cases/a_pass.mlir"].status == "pass"
    failed = by_name["cases/b_fail.mlir"]
    assert failed.status == "fail"
    assert "index [1, 1]" in failed.detail and "ULP apart" in failed.detail
    assert "actual 4.0" in failed.detail and "expected 4.5" in failed.detail
    assert by_name["cases/c_error.mlir"].status == "error"
    assert "no_such_target" in by_name["cases/c_error.mlir"].detail
    assert by_name["cases/d_unsupported.mlir"].status == "unsupported"
    hang = by_name["cases/e_hang.mlir"]
    assert hang.status == "error" and "timed out after 3 s" in hang.detail
    sections = [r for r in results if r.case.file == "cases/f_sections.mlir"]
    assert [r.status for r in sections] == ["pass", "fail", "pass"], [r.detail for r in sections]
    assert "tolerance 0.0001" in sections[1].detail
    parallel = by_name["cases/g_run_parallel.mlir"]
    assert parallel.status == "pass" and parallel.checks == 2, parallel.detail


def test_a_crashed_worker_fails_its_case_alone(tmp_path):
    folder = write_cases(tmp_path / "cases", {"a_hang.mlir": HANG, "b_pass.mlir": PASS})
    results: list[CaseResult] = []
    runner = threading.Thread(
        target=lambda: results.extend(run_cases(find_cases([folder]), jobs=1, timeout=60))
    )
    runner.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        workers = [p for p in multiprocessing.active_children() if p.name == "xlapy-conformance"]
        if workers:
            time.sleep(1.0)  # let it take the hanging case
            workers[0].kill()
            break
        time.sleep(0.05)
    runner.join(60)
    assert [r.status for r in results] == ["error", "pass"]
    assert "worker process died" in results[0].detail


# -- reports ---------------------------------------------------------------------------------


def fake_results(tmp_path) -> list[CaseResult]:
    folder = write_cases(tmp_path / "interpret", {"add.mlir": SECTIONS})
    (first, second, third) = find_cases([folder])
    other = find_cases([write_cases(tmp_path / "testdata", {"abs_float32_2.mlir": PASS})])[0]
    return [
        CaseResult(first, "pass", tolerance="tolerance 0.0001", seconds=0.1, checks=1),
        CaseResult(second, "fail", "check.expect_almost_eq: index [0]", "tolerance 0.0001"),
        CaseResult(third, "unsupported", "UnimplementedError: stablehlo.fancy"),
        CaseResult(other, "error", "ValueError: broken"),
    ]


def test_text_report_ends_with_the_counts(tmp_path):
    text = report.text_report(fake_results(tmp_path))
    lines = text.splitlines()
    assert lines[-2:] == ["1 unsupported", "1 passed, 2 failed"]
    second, third = (r.case.name for r in fake_results(tmp_path)[1:3])
    assert lines[0] == f"FAIL {second} [add]: check.expect_almost_eq: index [0]"
    assert f"UNSUPPORTED {third} [add]: UnimplementedError: stablehlo.fancy" in lines
    table = [line.split() for line in lines if line.startswith(("interpret", "testdata"))]
    assert ["interpret", "add", "1", "1", "0", "1", "3"] in table
    assert ["testdata", "abs", "0", "0", "1", "0", "1"] in table


def test_markdown_keeps_the_prose_around_the_markers(tmp_path):
    results = fake_results(tmp_path)
    path = tmp_path / "conformance.md"
    path.write_text(
        f"# Conformance\n\nWhy things fail.\n\n{report.BEGIN_MARKER}\nstale table\n{report.END_MARKER}\n"
        "\nMore prose.\n"
    )
    report.write_markdown(path, results)
    text = path.read_text()
    assert text.startswith("# Conformance\n\nWhy things fail.\n\n<!-- results:begin -->")
    assert text.endswith("<!-- results:end -->\n\nMore prose.\n")
    assert "stale table" not in text
    assert "| interpret | add | 1 | 1 | 0 | 1 | 3 |" in text
    assert "| **total** |  | 1 | 1 | 1 | 1 | 4 |" in text
    fresh = tmp_path / "new.md"
    report.write_markdown(fresh, results)
    assert report.BEGIN_MARKER in fresh.read_text()


def test_cli_outputs(tmp_path, capsys):
    folder = write_cases(tmp_path / "cases", {"a_pass.mlir": PASS, "b_fail.mlir": FAIL})
    json_path, md_path = tmp_path / "out.json", tmp_path / "out.md"
    code = main([str(folder), "--jobs", "2", "--json", str(json_path), "--markdown", str(md_path)])
    assert code == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2:] == ["0 unsupported", "1 passed, 1 failed"]
    assert lines[0].startswith("FAIL cases/b_fail.mlir [b_fail]: check.expect_close:")
    document = json.loads(json_path.read_text())
    assert document["summary"] == {
        "passed": 1,
        "failed": 1,
        "error": 0,
        "unsupported": 0,
        "total": 2,
    }
    case = document["cases"][1]
    assert {"file", "section", "op", "status", "detail", "tolerance", "seconds"} <= set(case)
    assert case["file"] == "cases/b_fail.mlir" and case["status"] == "fail"
    assert case["tolerance"] == "[0, 1] ULP"
    assert "| cases | b_fail | 0 | 1 | 0 | 0 | 1 |" in md_path.read_text()


def test_cli_usage_errors(tmp_path, capsys):
    assert main([str(tmp_path / "missing")]) == 2
    assert "no such file" in capsys.readouterr().err


# -- real conformance files ------------------------------------------------------------------

REAL_FILES = [
    "interpret/check.mlir",  # every check op and its tolerances
    "interpret/probe.mlir",  # probes, an empty section, iterations in a while loop
    "interpret/all_reduce.mlir",  # run_parallel over replicas and partitions
    "interpret/compare.mlir",  # NaNs, signed zeros
    "interpret/while.mlir",
    "testdata/cos_float32_20_20.mlir",  # JAX's custom-call expect_close (3 ULP)
    "testdata/acos_float32_20_20.mlir",  # JAX's custom-call expect_almost_eq (1e-3)
    "testdata/sort_float32_5_7.mlir",  # expect_eq on floats
    "testdata/scatter_add_bfloat16_1_2_3_bfloat16_2_3.mlir",
]


@pytest.fixture(scope="module")
def real_results():
    if not SHARED.is_dir():
        pytest.skip(f"the conformance data is not here ({SHARED.resolve()})")
    cases = find_cases([SHARED / name for name in REAL_FILES])
    return run_cases(cases, jobs=2, timeout=60)


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_conformance_file(real_results, name):
    results = [r for r in real_results if r.case.file == name]
    assert results, name
    bad = [f"{r.case.name}: {r.status}: {r.detail}" for r in results if r.status != "pass"]
    assert not bad, "\n".join(bad)
