"""The sections of the ``xlapy explain`` page, each an HTML fragment from a CompileRecord.

Every section is a ``<section id=...>`` the page's navigation links to; all text is
escaped here, once, at the point where it becomes HTML.
"""

from __future__ import annotations

import difflib
import html
import shutil
import subprocess
from collections.abc import Callable

from ...hlo.computation import HloComputation
from ...hlo.graph import module_to_dot
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ...passes.fuse.instruction_fusion import fusible_computations
from .buffer_chart import buffer_chart_svg
from .capture import CompileRecord, PassRun
from .graph_layout import describe, layout_svg
from .kernels import instruction_of
from .live_ranges import buffer_ranges

Op = HloOpcode
MAX_DIFF_LINES = 3000  # a diff longer than this is cut (the full texts are in "modules")

e = html.escape


def _section(section_id: str, title: str, body: str, note: str = "") -> str:
    lead = f'<p class="note">{note}</p>' if note else ""
    return f'<section id="{section_id}"><h2>{e(title)}</h2>{lead}\n{body}\n</section>'


def _table(header: list[str], rows: list[list[str]], css: str = "", row_attrs=None) -> str:
    """A table of already-escaped cells; ``row_attrs(k)`` gives each row's attributes."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = []
    for k, row in enumerate(rows):
        attrs = f" {row_attrs(k)}" if row_attrs else ""
        body.append(f"<tr{attrs}>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    return (
        f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    )


# -- summary ------------------------------------------------------------------------------


def summary(record: CompileRecord) -> str:
    changed = [p for p in record.passes if p.changed_text]
    fusions = [i for c in _code_computations(record.optimized) for i in c.instructions
               if i.opcode is Op.FUSION]  # fmt: skip
    timings = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in record.timings.items())
    rows = [
        ["module", e(record.name)],
        ["target", e(record.target)],
        ["instructions", f"{_count(record.original)} before, {_count(record.optimized)} after"],
        ["passes", f"{len(record.passes)} runs, {len(changed)} changed the module"],
        ["fusions", f"{len(fusions)} ({len(record.decisions)} fusion decisions logged)"],
        ["kernels", str(len(record.kernels))],
        ["arena", f"{record.arena_size} bytes"],
        ["native ops", e(", ".join(record.native_ops)) or "none"],
        ["fallback ops", e(", ".join(record.fallback_ops)) or "none"],
        ["compile time", e(timings)],
    ]
    return _section("summary", "Summary", _table(["", ""], rows, "facts"))


def _count(module: HloModule) -> int:
    return sum(len(c.instructions) for c in _code_computations(module))


def _code_computations(module: HloModule) -> list[HloComputation]:
    """The computations that run as code (not fused bodies, reducers, comparators)."""
    return fusible_computations(module)


# -- before and after ---------------------------------------------------------------------


def modules(record: CompileRecord) -> str:
    body = (
        '<div class="side-by-side">'
        f'<div><h3>before optimization</h3><pre class="hlo before">{e(record.before_text)}</pre></div>'
        f'<div><h3>after optimization</h3><pre class="hlo after">{e(record.after_text)}</pre></div>'
        "</div>"
    )
    return _section("modules", "The module before and after optimization", body)


# -- passes -------------------------------------------------------------------------------


def _status(run: PassRun) -> str:
    if run.changed_text:
        return '<span class="changed">changed</span>'
    if run.reported_change:
        return "reported a change; the text is the same"
    return '<span class="quiet">no change</span>'


def diff_lines(before: str, after: str) -> list[str]:
    """The unified diff of two module texts (without the file header lines)."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=2))
    return lines[2:]


def _diff_html(lines: list[str]) -> str:
    cut = len(lines) > MAX_DIFF_LINES
    shown = lines[:MAX_DIFF_LINES]
    out = []
    for line in shown:
        css = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "ctx")
        out.append(f'<span class="{css}">{e(line)}</span>')
    if cut:
        out.append(f'<span class="hunk">... {len(lines) - MAX_DIFF_LINES} more lines</span>')
    return "".join(out)  # each line a block of its own


def passes(record: CompileRecord) -> str:
    rows = [[str(r.number), e(r.name), _status(r)] for r in record.passes]
    table = _table(["#", "pass", "result"], rows, "passes")
    diffs = []
    for run in record.passes:
        if not run.changed_text:
            continue
        lines = diff_lines(run.before, run.after)
        added = sum(1 for line in lines if line.startswith("+"))
        removed = sum(1 for line in lines if line.startswith("-"))
        diffs.append(
            f'<details class="pass-diff" data-pass="{e(run.name)}" open>'
            f"<summary>#{run.number} {e(run.name)}: +{added} -{removed} lines</summary>"
            f'<pre class="diff">{_diff_html(lines)}</pre></details>'
        )
    body = (
        '<div class="columns"><div>' + table + '</div><div class="diffs">'
        + ("".join(diffs) or "<p>No pass changed the module.</p>") + "</div></div>"
    )  # fmt: skip
    note = (
        "Every run of every pass, in order; each run that changed the module's text with its diff."
    )
    return _section("passes", "Passes", body, note)


# -- fusion -------------------------------------------------------------------------------


def final_fusions(record: CompileRecord) -> dict[str, str]:
    """Fusion names as decisions recorded them -> the instruction of the optimized module
    that computes them now (a fusion merged into another by a later pass resolves to it)."""
    present = {i.name for c in _code_computations(record.optimized) for i in c.instructions}
    merged = {
        d.producer: d.consumer
        for d in record.decisions
        if d.fused and d.producer_opcode.startswith("fusion")
    }
    out = {}
    for name in {d.consumer for d in record.decisions} | set(merged):
        seen, current = set(), name
        while current not in present and current in merged and current not in seen:
            seen.add(current)
            current = merged[current]
        if current in present:
            out[name] = current
    return out


def fusion(record: CompileRecord) -> str:
    final = final_fusions(record)
    rows, verdicts = [], []
    for d in record.decisions:
        kernel = final.get(d.consumer, "")
        rows.append(
            [
                e(d.pass_name),
                e(d.computation),
                f'<span class="name">{e(d.consumer)}</span> <span class="op">{e(d.consumer_opcode)}</span>',
                f'<span class="name">{e(d.producer)}</span> <span class="op">{e(d.producer_opcode)}</span>',
                '<span class="fused">fused</span>' if d.fused else '<span class="kept">kept</span>',
                e(d.reason),
                f'<span class="kernel">{e(kernel)}</span>' if kernel else "",
            ]
        )
        verdicts.append("fused" if d.fused else "kept")
    filters = (
        '<div class="filters" role="group" aria-label="filter decisions">'
        '<button type="button" data-filter="all" class="active">all</button>'
        '<button type="button" data-filter="fused">fused</button>'
        '<button type="button" data-filter="kept">kept</button></div>'
    )
    table = _table(
        ["pass", "computation", "consumer", "producer", "decision", "reason", "now in"],
        rows,
        "decisions",
        lambda k: f'data-verdict="{verdicts[k]}"',
    )
    kernels = []
    for computation in _code_computations(record.optimized):
        for instruction in computation.instructions:
            if instruction.opcode is Op.FUSION:
                kernels.append(
                    [
                        f'<span class="name fusion-name">{e(instruction.name)}</span>',
                        e(computation.name),
                        e(describe(instruction)),
                        str(sum(1 for d in record.decisions
                                if d.fused and final.get(d.consumer) == instruction.name)),
                    ]
                )  # fmt: skip
    fusions = _table(
        ["fusion", "computation", "what it computes", "producers fused"], kernels, "fusions"
    )
    body = (
        "<h3>The fusions of the optimized module</h3>" + fusions
        + "<h3>Every decision</h3>" + filters + table
    )  # fmt: skip
    note = (
        "Each producer/consumer pair the fusion passes settled, with the policy's criterion "
        "(xlapy.passes.fuse.policy); a pair looked at several times appears once, as finally settled."
    )
    return _section("fusion", "Fusion decisions", body, note)


# -- buffers ------------------------------------------------------------------------------


def buffers(record: CompileRecord) -> str:
    parts = []
    for k, assignment in enumerate(record.buffers):
        ranges = buffer_ranges(assignment)
        steps = len(assignment.schedule)
        arena = [r for r in ranges if r.kind == "arena"]
        chart = (
            buffer_chart_svg(ranges, steps, assignment.region_size, f"buffers-{k}")
            if arena
            else '<p class="note">No arena buffers: every value here is a parameter, a '
            "result, a constant or a view of one.</p>"
        )
        rows = [
            [e(r.instruction), e(r.opcode), e(r.shape), e(r.kind),
             str(r.offset) if r.kind == "arena" else "", str(r.size), f"{r.start}..{r.end}",
             "yes" if r.in_place else ""]
            for r in ranges
        ]  # fmt: skip
        schedule = " ".join(
            f"<span>{n}:{e(i.name)}</span>" for n, i in enumerate(assignment.schedule)
        )
        parts.append(
            f'<div class="computation-buffers" data-computation="{e(assignment.computation.name)}">'
            f"<h3>{e(assignment.computation.name)}: region of {assignment.region_size} bytes, "
            f"{len(arena)} arena buffers</h3>"
            f'<div class="chart-row">{chart}<div class="buffer-info" aria-live="polite">'
            "hover a buffer</div></div>"
            f'<p class="schedule">schedule: {schedule}</p>'
            f"<details><summary>all {len(ranges)} buffers</summary>"
            + _table(
                ["instruction", "opcode", "shape", "where", "offset", "bytes", "live", "in place"],
                rows,
                "buffer-table",
            )  # fmt: skip
            + "</details></div>"
        )
    note = (
        "Per computation the native code runs: x is the schedule position, y the offset in "
        "the computation's arena region; each rectangle is a buffer from the instruction that "
        "writes it to its last reader. Parameters, results and constants live outside the arena."
    )
    return _section("buffers", "Buffer assignment", "".join(parts), note)


# -- kernels ------------------------------------------------------------------------------


def _code_block(css: str, title: str, text: str, template_id: str) -> str:
    """A collapsed block whose text the page's script loads from a template when opened."""
    return (
        f'<details class="code {css}" data-template="{template_id}"><summary>{title}</summary>'
        f'<pre></pre></details><template id="{template_id}">{e(text)}</template>'
    )


def kernels(record: CompileRecord) -> str:
    names = [i.name for c in _code_computations(record.optimized) for i in c.instructions]
    names += [c.name for c in _code_computations(record.optimized)]
    parts = []
    for k, kernel in enumerate(record.kernels):
        hlo = instruction_of(kernel.name, names)
        inlined = (
            "<p class=\"note\">LLVM's optimizer inlined this kernel into its caller: its "
            "optimized IR and assembly are part of the caller's.</p>"
            if kernel.inlined else ""
        )  # fmt: skip
        blocks = [_code_block("ir", "LLVM IR (as emitted)", kernel.emitted_ir, f"k{k}-ir")]
        if not kernel.inlined:
            blocks.append(
                _code_block("opt-ir", "LLVM IR (optimized)", kernel.optimized_ir, f"k{k}-opt")
            )
            if kernel.assembly:
                blocks.append(_code_block("asm", "assembly", kernel.assembly, f"k{k}-asm"))
        label = f' <span class="op">for {e(hlo)}</span>' if hlo and hlo != kernel.name else ""
        parts.append(
            f'<details class="kernel" data-kernel="{e(kernel.name)}"><summary>'
            f'<span class="name">{e(kernel.name)}</span>{label} '
            f'<span class="op">{len(kernel.functions)} function(s)</span></summary>'
            + inlined + "".join(blocks) + "</details>"
        )  # fmt: skip
    note = "One entry per kernel (a function and its .body); IR and assembly load when opened."
    return _section("kernels", "Kernels: LLVM IR and assembly", "".join(parts), note)


# -- graph --------------------------------------------------------------------------------


def graphviz_svg(module: HloModule) -> str | None:
    """The module drawn by Graphviz's ``dot`` (inline SVG), or None without it."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    result = subprocess.run(
        [dot, "-Tsvg"], input=module_to_dot(module).encode(), capture_output=True, check=False
    )
    if result.returncode != 0:
        return None
    text = result.stdout.decode(errors="replace")
    start = text.find("<svg")
    return text[start:] if start >= 0 else None


def graph(record: CompileRecord, draw_with_graphviz: bool = True) -> str:
    drawn = graphviz_svg(record.optimized) if draw_with_graphviz else None
    if drawn is not None:
        body, how = f'<div class="graph graphviz">{drawn}</div>', "drawn by Graphviz"
    else:
        blocks = []
        for k, computation in enumerate(_code_computations(record.optimized)):
            blocks.append(
                f'<div class="graph own-layout"><h3>{e(computation.name)}</h3>'
                f"{layout_svg(computation, f'graph-{k}')}</div>"
            )
        body, how = "".join(blocks), "laid out by xlapy (Graphviz's dot is not installed)"
    return _section(
        "graph", "The optimized module", body, f"Data flows down; {how}. Hover a node for its HLO."
    )


SECTIONS: tuple[tuple[str, str, Callable[[CompileRecord], str]], ...] = (
    ("summary", "Summary", summary),
    ("modules", "Before / after", modules),
    ("passes", "Passes", passes),
    ("fusion", "Fusion", fusion),
    ("buffers", "Buffers", buffers),
    ("kernels", "Kernels", kernels),
    ("graph", "Graph", graph),
)

__all__ = ["SECTIONS", "diff_lines", "final_fusions", "graphviz_svg"]
