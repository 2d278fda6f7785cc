"""``xlapy explain``: the report's sections hold real content, and a real browser shows them.

Four modules cover the sections: an elementwise chain that fuses into one loop, a
softmax (reduce kernels, a side output), a while loop (computations of their own)
and a dot (a library call between fusions). The browser test loads a report in
Debian's headless chromium through Playwright.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from xlapy import cli
from xlapy.backends.cpu.buffers import base_of, leaves
from xlapy.backends.cpu.pipeline import cpu_pipeline
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.hlo import parse_module
from xlapy.opcode import HloOpcode
from xlapy.tools.explain import explain, explain_record, write_report
from xlapy.tools.explain_report.capture import attach_decision_log
from xlapy.tools.explain_report.kernels import asm_functions, ir_functions, split_kernels
from xlapy.tools.explain_report.live_ranges import buffer_ranges, overlapping
from xlapy.tools.explain_report.page import render_page
from xlapy.tools.explain_report.sections import SECTIONS, final_fusions

DATA = Path(__file__).resolve().parents[1] / "data"

CHAIN = """
HloModule chain

ENTRY main {
  x = f32[64,32] parameter(0)
  y = f32[64,32] parameter(1)
  two = f32[] constant(2)
  b = f32[64,32] broadcast(two), dimensions={}
  m = f32[64,32] multiply(x, b)
  a = f32[64,32] add(m, y)
  e = f32[64,32] exponential(a)
  n = f32[64,32] negate(e)
  s = f32[64,32] subtract(e, y)
  ROOT t = (f32[64,32], f32[64,32]) tuple(n, s)
}
"""

SOFTMAX = """
HloModule softmax

max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8,128] parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[8] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mxb = f32[8,128] broadcast(mx), dimensions={0}
  d = f32[8,128] subtract(x, mxb)
  e = f32[8,128] exponential(d)
  zero = f32[] constant(0)
  s = f32[8] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[8,128] broadcast(s), dimensions={0}
  ROOT r = f32[8,128] divide(e, sb)
}
"""

DOT = """
HloModule dot

ENTRY main {
  a = f32[32,64] parameter(0)
  b = f32[64,16] parameter(1)
  c = f32[32,16] parameter(2)
  sa = f32[32,64] tanh(a)
  d = f32[32,16] dot(sa, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[32,16] add(d, c)
  ROOT r = f32[32,16] maximum(s, c)
}
"""

MODULES = {
    "chain": CHAIN,
    "softmax": SOFTMAX,
    "while": (DATA / "hlo" / "fusion_while_reduce.hlo").read_text(),
    "dot": DOT,
}

_CACHE: dict[str, tuple] = {}


def _report(name: str):
    """(record, html) for one of MODULES, made once per test session."""
    if name not in _CACHE:
        record = explain_record(parse_module(MODULES[name]))
        _CACHE[name] = (record, render_page(record))
    return _CACHE[name]


def _section(page: str, section_id: str) -> str:
    match = re.search(rf'<section id="{section_id}">(.*?)</section>', page, re.S)
    assert match, f"no section {section_id}"
    return match.group(1)


def _code_instructions(record):
    out = []
    for assignment in record.buffers:
        out.extend(i for i in assignment.computation.instructions)
    return out


@pytest.mark.parametrize("name", list(MODULES))
def test_every_section_is_there_with_content(name: str) -> None:
    record, page = _report(name)
    for section_id, _, _ in SECTIONS:
        body = _section(page, section_id)
        assert len(re.sub(r"<[^>]+>", "", body).strip()) > 20, section_id
    modules = _section(page, "modules")
    assert "ENTRY" in modules and modules.count("<pre") == 2
    assert "src=" not in page and 'href="http' not in page  # nothing is fetched


@pytest.mark.parametrize("name", list(MODULES))
def test_every_pass_listed_as_changed_has_a_diff(name: str) -> None:
    record, page = _report(name)
    changed = [run for run in record.passes if run.changed_text]
    assert any(run.name == "fusion" for run in changed)
    blocks = re.findall(r'<details class="pass-diff" data-pass="([^"]+)"[^>]*>(.*?)</details>',
                        _section(page, "passes"), re.S)  # fmt: skip
    assert [p for p, _ in blocks] == [run.name for run in changed]
    for pass_name, block in blocks:
        assert 'class="add"' in block or 'class="del"' in block, pass_name


@pytest.mark.parametrize("name", list(MODULES))
def test_fusion_names_are_in_the_table_and_the_graph(name: str) -> None:
    record, page = _report(name)
    fusions = [i.name for i in _code_instructions(record) if i.opcode is HloOpcode.FUSION]
    assert fusions, "every test module fuses something"
    table, graph = _section(page, "fusion"), _section(page, "graph")
    final = final_fusions(record)
    for fusion in fusions:
        assert f'<span class="name fusion-name">{fusion}</span>' in table
        assert f'<span class="kernel">{fusion}</span>' in table  # a decision built it
        assert f'data-name="{fusion}"' in graph
        assert fusion in final.values()


@pytest.mark.parametrize("name", list(MODULES))
def test_buffer_chart_has_one_rect_per_arena_buffer(name: str) -> None:
    record, page = _report(name)
    section = _section(page, "buffers")
    blocks = re.findall(r'<div class="computation-buffers" data-computation="([^"]+)">(.*?)</details></div>',
                        section, re.S)  # fmt: skip
    assert [c for c, _ in blocks] == [b.computation.name for b in record.buffers]
    for assignment, (_, block) in zip(record.buffers, blocks, strict=True):
        # Counted straight from the assignment: each arena slot an instruction owns.
        owned = {
            id(slot)
            for instruction in assignment.schedule
            for slot in leaves(assignment.values[id(instruction)])
            if slot.kind == "arena" and slot.owner is instruction and base_of(slot) is slot
        }
        assert block.count('<rect class="buffer"') == len(owned)
        ranges = buffer_ranges(assignment)
        assert overlapping(ranges) == []
        for r in ranges:
            assert 0 <= r.start <= r.end <= len(assignment.schedule)
            if r.kind == "arena":
                assert r.offset + r.size <= max(assignment.region_size, 64)
    assert sum(b.region_size for b in record.buffers) > 0


@pytest.mark.parametrize("name", list(MODULES))
def test_kernels_carry_ir_and_the_entry_its_assembly(name: str) -> None:
    record, page = _report(name)
    section = _section(page, "kernels")
    assert section.count('<details class="kernel"') == len(record.kernels)
    assert all(k.emitted_ir.startswith("define") for k in record.kernels)
    entry = next(k for k in record.kernels if k.name == record.entry_function)
    assert entry.optimized_ir and ".type" in entry.assembly and "ret" in entry.assembly
    assert section.count('class="code asm"') == sum(1 for k in record.kernels if k.assembly)


@pytest.mark.parametrize("name", list(MODULES))
def test_graph_draws_every_instruction(name: str) -> None:
    record, page = _report(name)
    graph = _section(page, "graph")
    if shutil.which("dot") is None:
        assert graph.count('<g class="node"') == len(_code_instructions(record))
        edges = sum(len(set(map(id, i.operands))) for i in _code_instructions(record))
        assert graph.count('class="edge"') == edges


def test_the_decisions_say_why() -> None:
    record, _ = _report("chain")
    by_producer = {d.producer: d for d in record.decisions if d.pass_name == "fusion"}
    # exp(a) is read by two kernels: expensive, so computed once, not fused into both.
    assert not by_producer["e"].fused and "several users" in by_producer["e"].reason
    assert by_producer["m"].fused and by_producer["b"].fused and by_producer["a"].fused
    assert "parameter" in by_producer["x"].reason and not by_producer["x"].fused
    record, _ = _report("dot")
    dot = [d for d in record.decisions if d.consumer_opcode == "dot"]
    assert dot and all(not d.fused and "can_emit" in d.reason for d in dot)


@pytest.mark.parametrize("name", list(MODULES))
def test_the_decision_log_changes_no_decision(name: str) -> None:
    def optimized(with_log: bool) -> str:
        module = parse_module(MODULES[name])
        pipeline = cpu_pipeline(CpuOptions())
        log: list = []
        if with_log:
            assert attach_decision_log(pipeline, log) == 3
        pipeline.run(module)
        assert bool(log) == with_log
        return module.to_text()

    assert optimized(True) == optimized(False)


def test_split_kernels_groups_a_kernel_and_its_body() -> None:
    emitted = (
        'define i32 @"main"(i8* %".1") {\nentry:\n  ret i32 0\n}\n\n'
        'define internal void @"fusion_f.1"(i8** %".1") {\n  ret void\n}\n'
        'define internal void @"fusion_f.1.body"(i8* %".1") alwaysinline {\n  ret void\n}\n'
    )
    optimized = "define i32 @main(ptr %0) {\n  ret i32 0\n}\n"
    assembly = (
        "\t.globl\tmain\n\t.type\tmain,@function\nmain:\n\txorl\t%eax, %eax\n\tretq\n"
        ".Lfunc_end0:\n\t.size\tmain, .Lfunc_end0-main\n"
    )
    assert list(ir_functions(emitted)) == ["main", "fusion_f.1", "fusion_f.1.body"]
    assert list(asm_functions(assembly)) == ["main"]
    kernels = split_kernels(emitted, optimized, assembly)
    assert [k.name for k in kernels] == ["main", "fusion_f.1"]
    assert kernels[1].functions == ["fusion_f.1", "fusion_f.1.body"] and kernels[1].inlined
    assert "retq" in kernels[0].assembly and not kernels[0].inlined


def test_cli_writes_a_report_from_hlo_and_stablehlo(tmp_path: Path) -> None:
    hlo = tmp_path / "chain.hlo"
    hlo.write_text(CHAIN)
    out = tmp_path / "chain.html"
    assert cli.main(["explain", str(hlo), "-o", str(out)]) == 0
    assert '<section id="fusion">' in out.read_text()
    mlir = tmp_path / "m.mlir"
    mlir.write_text(
        "func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = stablehlo.exponential %arg0 : tensor<4xf32>\n"
        "  %1 = stablehlo.add %0, %arg0 : tensor<4xf32>\n"
        "  return %1 : tensor<4xf32>\n}\n"
    )
    assert cli.main(["explain", str(mlir), "-o", str(tmp_path / "m.html")]) == 0
    assert "exponential" in (tmp_path / "m.html").read_text()
    assert cli.main(["explain", str(tmp_path / "missing.hlo"), "-o", str(out)]) == 1


def test_the_callers_module_is_left_alone(tmp_path: Path) -> None:
    module = parse_module(CHAIN)
    before = module.to_text()
    page = explain(module)
    assert module.to_text() == before and page.startswith("<!DOCTYPE html>")
    assert write_report(module, str(tmp_path / "r.html")) == str(tmp_path / "r.html")


# -- the real browser -----------------------------------------------------------------------


def test_the_report_in_a_real_browser(tmp_path: Path, browser) -> None:
    record, page_html = _report("softmax")
    path = tmp_path / "softmax.html"
    path.write_text(page_html)
    page = browser.open(path, 1400, 900)
    for section_id, _, _ in SECTIONS:
        section = page.locator(f"section#{section_id}")
        assert section.count() == 1 and section.is_visible(), section_id

    # A kernel's assembly opens on click and shows the machine code.
    kernel = page.locator("details.kernel", has=page.locator("details.asm")).first
    kernel.locator("summary").first.click()
    asm = kernel.locator("details.asm")
    asm.locator("summary").click()
    assert asm.evaluate("d => d.open")
    code = asm.locator("pre")
    code.wait_for(state="visible")
    assert "ret" in code.inner_text() and ".type" in code.inner_text()

    # The graph has a node per instruction, the fusions among them.
    nodes = page.locator("svg.hlo-graph g.node")
    assert nodes.count() == len(_code_instructions(record))
    assert nodes.first.is_visible()
    fusion = next(i.name for i in _code_instructions(record)
                  if i.opcode is HloOpcode.FUSION)  # fmt: skip
    assert page.locator(f'svg.hlo-graph g.node[data-name="{fusion}"]').is_visible()

    # Hovering a buffer names its instruction; the fusion filter hides rows.
    rect = page.locator("svg.buffer-chart rect.buffer").first
    rect.hover()
    info = page.locator(".buffer-info").first
    assert rect.get_attribute("data-instruction") in info.inner_text()
    page.locator('.filters button[data-filter="kept"]').click()
    fused_rows = page.locator('table.decisions tr[data-verdict="fused"]')
    assert fused_rows.count() > 0 and not fused_rows.first.is_visible()
    kept_rows = page.locator('table.decisions tr[data-verdict="kept"]')
    assert kept_rows.first.is_visible()
    browser.assert_clean()


CORPUS = ("mlp_grad", "reductions", "raw_batch_norm", "nested_control")


def _canonical(text: str) -> list[str]:
    """Module text without the numbers expanders append to names (they come from
    process-wide counters, so two compiles of one module number differently)."""
    return sorted(re.sub(r"\.\d+\b", "", text).splitlines())


@pytest.mark.parametrize("name", CORPUS)
def test_corpus_modules_fuse_alike_with_the_log_and_explain(name: str) -> None:
    text = (DATA / "hlo_corpus" / f"{name}.hlo").read_text()
    optimized = []
    for log in (None, []):
        module = parse_module(text)
        pipeline = cpu_pipeline(CpuOptions())
        if log is not None:
            attach_decision_log(pipeline, log)
        pipeline.run(module)
        optimized.append(_canonical(module.to_text()))
    assert optimized[0] == optimized[1]
    record = explain_record(parse_module(text))
    assert record.decisions and record.kernels
    for assignment in record.buffers:
        assert overlapping(buffer_ranges(assignment)) == []
    page = render_page(record)
    for fusion in (i.name for i in _code_instructions(record) if i.opcode is HloOpcode.FUSION):
        assert f'data-name="{fusion}"' in _section(page, "graph")
