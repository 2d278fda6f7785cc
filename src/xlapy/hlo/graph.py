"""Graphviz export of HLO modules (``module.to_dot()``, ``xlapy hlo render``).

The drawing answers the questions people ask of a module: what feeds what,
what was fused (fusions are clusters holding their fused computation), and
what a while loop, conditional or reduce calls (called computations are
clusters of their own, linked from the caller by a dashed edge).
"""

from __future__ import annotations

import html
import shutil
import subprocess
from typing import TYPE_CHECKING

from ..errors import FailedPreconditionError, InvalidArgumentError
from ..opcode import HloOpcode

if TYPE_CHECKING:
    from .computation import HloComputation
    from .instruction import HloInstruction
    from .module import HloModule

# Fill colours by kind of instruction, so the eye finds structure at once.
_COLOURS = {
    "parameter": "#e0e0e0",
    "constant": "#f5f5dc",
    "elementwise": "#cfe8ff",
    "data": "#d9f2d9",
    "reduce": "#ffe0b3",
    "dot": "#ffc2c2",
    "control": "#e6ccff",
    "collective": "#ffb3d9",
    "other": "#ffffff",
}
_KIND_BY_OPCODE = {
    HloOpcode.PARAMETER: "parameter",
    HloOpcode.CONSTANT: "constant",
    HloOpcode.IOTA: "constant",
    HloOpcode.DOT: "dot",
    HloOpcode.CONVOLUTION: "dot",
    HloOpcode.FFT: "dot",
    HloOpcode.CUSTOM_CALL: "dot",
    HloOpcode.REDUCE: "reduce",
    HloOpcode.REDUCE_WINDOW: "reduce",
    HloOpcode.SELECT_AND_SCATTER: "reduce",
    HloOpcode.SCATTER: "reduce",
    HloOpcode.SORT: "reduce",
    HloOpcode.WHILE: "control",
    HloOpcode.CONDITIONAL: "control",
    HloOpcode.CALL: "control",
    HloOpcode.FUSION: "control",
    HloOpcode.MAP: "control",
}
_DATA_MOVEMENT = {
    HloOpcode.BROADCAST, HloOpcode.RESHAPE, HloOpcode.TRANSPOSE, HloOpcode.SLICE,
    HloOpcode.DYNAMIC_SLICE, HloOpcode.DYNAMIC_UPDATE_SLICE, HloOpcode.CONCATENATE,
    HloOpcode.PAD, HloOpcode.REVERSE, HloOpcode.GATHER, HloOpcode.BITCAST, HloOpcode.COPY,
    HloOpcode.TUPLE, HloOpcode.GET_TUPLE_ELEMENT,
}  # fmt: skip


def _kind(instruction: HloInstruction) -> str:
    opcode = instruction.opcode
    if opcode in _KIND_BY_OPCODE:
        return _KIND_BY_OPCODE[opcode]
    if opcode.is_collective:
        return "collective"
    if opcode in _DATA_MOVEMENT:
        return "data"
    if opcode.is_elementwise:
        return "elementwise"
    return "other"


class _DotWriter:
    def __init__(self, module: HloModule) -> None:
        self.module = module
        self.lines: list[str] = []
        self.ids: dict[int, str] = {}
        self.drawn: set[int] = set()  # computations already drawn (or queued) as clusters
        self.pending_links: list[str] = []
        # Called computations wait here so that each becomes a top-level cluster.
        self.queue: list[tuple[HloComputation, str]] = []

    def node_id(self, instruction: HloInstruction) -> str:
        key = id(instruction)
        if key not in self.ids:
            self.ids[key] = f"n{len(self.ids)}"
        return self.ids[key]

    def label(self, instruction: HloInstruction) -> str:
        name = html.escape(instruction.name)
        opcode = html.escape(instruction.opcode.value)
        shape = html.escape(instruction.shape.to_string(print_layout=False))
        if len(shape) > 60:
            shape = shape[:57] + "..."
        extra = ""
        if instruction.opcode is HloOpcode.PARAMETER:
            extra = f" {instruction.parameter_number}"
        return (
            f"<<b>{opcode}{extra}</b><br/><font point-size='9'>{name}</font>"
            f"<br/><font point-size='9'>{shape}</font>>"
        )

    def computation(self, computation: HloComputation, indent: str, title: str) -> None:
        self.drawn.add(id(computation))
        self.lines.append(
            f"{indent}subgraph cluster_{len(self.drawn)}_{_safe(computation.name)} {{"
        )
        self.lines.append(f'{indent}  label="{_escape(title)}"; style="rounded"; color="#777777";')
        for instruction in computation.instructions:
            self.instruction(instruction, indent + "  ")
        self.lines.append(f"{indent}}}")

    def instruction(self, instruction: HloInstruction, indent: str) -> None:
        fused = instruction.fused_computation
        if fused is not None:
            self.fusion(instruction, fused, indent)
            return
        nid = self.node_id(instruction)
        colour = _COLOURS[_kind(instruction)]
        style = "filled,bold" if instruction.is_root else "filled"
        self.lines.append(
            f'{indent}{nid} [label={self.label(instruction)}, shape=box, style="{style}", '
            f'fillcolor="{colour}"];'
        )
        for i, operand in enumerate(instruction.operands):
            self.edge(operand, nid, i if instruction.operand_count > 1 else None, indent)
        for name, value in instruction.attributes.items():
            callees = value if isinstance(value, (list, tuple)) else [value]
            for callee in callees:
                if hasattr(callee, "instructions") and hasattr(callee, "root"):
                    self.callee(instruction, name, callee)

    def fusion(self, instruction: HloInstruction, fused: HloComputation, indent: str) -> None:
        """A fusion is a cluster: its operands feed its fused parameters directly."""
        self.drawn.add(id(fused))
        kind = instruction.attributes.get("kind")
        kind = getattr(kind, "name", None) or str(kind or "")
        self.lines.append(f"{indent}subgraph cluster_fusion_{self.node_id(instruction)} {{")
        self.lines.append(
            f'{indent}  label="{_escape(instruction.name)} ({_escape(kind)})"; style="filled"; '
            'fillcolor="#fff4e0"; color="#e69500";'
        )
        for inner in fused.instructions:
            if inner.opcode is HloOpcode.PARAMETER:
                self.ids[id(inner)] = self.node_id(inner)
            self.instruction(inner, indent + "  ")
        self.lines.append(f"{indent}}}")
        # Operands of the fusion flow into the fused parameters.
        for param in fused.parameters:
            if param.parameter_number < instruction.operand_count:
                operand = instruction.operand(param.parameter_number)
                self.edge(operand, self.node_id(param), None, indent)
        # Users of the fusion read its fused root.
        self.ids[id(instruction)] = self.node_id(fused.root)

    def edge(self, operand: HloInstruction, target: str, index: int | None, indent: str) -> None:
        source = self.node_id(operand)
        label = f' [label="{index}", fontsize=9]' if index is not None else ""
        self.pending_links.append(f"{indent}{source} -> {target}{label};")

    def callee(self, caller: HloInstruction, attribute: str, callee: HloComputation) -> None:
        if caller.opcode is HloOpcode.FUSION:
            return
        if id(callee) not in self.drawn:
            self.drawn.add(id(callee))
            self.queue.append((callee, f"{callee.name} ({attribute})"))
        self.pending_links.append(
            f"  {self.node_id(caller)} -> {self.node_id(callee.root)} [style=dashed, "
            f'color="#7a4fbf", label="{_escape(attribute)}", fontsize=9, constraint=false];'
        )

    def render(self) -> str:
        self.lines = [
            f'digraph "{_escape(self.module.name)}" {{',
            '  rankdir=BT; compound=true; node [fontname=Helvetica]; edge [color="#555555"];',
        ]
        entry = self.module.entry
        self.computation(entry, "  ", f"ENTRY {entry.name}")
        while self.queue:
            callee, title = self.queue.pop(0)
            self.computation(callee, "  ", title)
        for computation in self.module.computations:
            if id(computation) not in self.drawn and not _is_called(self.module, computation):
                self.computation(computation, "  ", computation.name)
        self.lines.extend(self.pending_links)
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"


def _is_called(module: HloModule, computation: HloComputation) -> bool:
    return any(
        computation in instruction.called_computations()
        for other in module.computations
        for instruction in other.instructions
    )


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def module_to_dot(module: HloModule) -> str:
    """The module as Graphviz ``dot`` source."""
    return _DotWriter(module).render()


def render(module: HloModule, output: str, fmt: str | None = None) -> None:
    """Draw ``module`` into ``output`` (svg, png, pdf or dot, from the suffix)."""
    fmt = fmt or (output.rsplit(".", 1)[-1] if "." in output else "svg")
    source = module_to_dot(module)
    if fmt == "dot":
        with open(output, "w") as f:
            f.write(source)
        return
    if fmt not in ("svg", "png", "pdf"):
        raise InvalidArgumentError(f"cannot render to {fmt!r}; use .svg, .png, .pdf or .dot")
    dot = shutil.which("dot")
    if dot is None:
        raise FailedPreconditionError(
            "drawing needs Graphviz's `dot` program, which is not installed: install it "
            "(Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz) "
            "or write the source with -o FILE.dot"
        )
    result = subprocess.run(
        [dot, f"-T{fmt}", "-o", output], input=source.encode(), capture_output=True, check=False
    )
    if result.returncode != 0:
        raise FailedPreconditionError(f"dot failed: {result.stderr.decode(errors='replace')}")


__all__ = ["module_to_dot", "render"]
