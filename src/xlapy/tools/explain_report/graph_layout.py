"""A computation drawn as SVG without Graphviz: a layered layout of xlapy's own.

Graphviz's ``dot`` draws better (``xlapy.hlo.graph``), but is often not installed;
the report must still show the graph. The layout is the classic layered one, kept
small: every instruction goes to the layer of its longest path from an input
(parameters and constants on top, the root at the bottom, data flowing down), the
nodes of a layer are ordered by the mean position of their neighbours (a few
sweeps down and up, which removes most crossings in HLO graphs, which are mostly
chains and diamonds), then each layer is centred. Edges are cubic curves from an
operand's bottom to its user's top.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode

Op = HloOpcode

CHAR_WIDTH = 7.0  # px per character of the 12px monospace label font
NODE_HEIGHT = 40
LAYER_GAP = 46
NODE_GAP = 18
MARGIN = 12
SWEEPS = 4

# Fill colour by what an instruction is, so the eye finds the kernels at once.
_FILL = {
    "parameter": "#e0e0e0",
    "constant": "#f5f5dc",
    "fusion": "#ffe0b3",
    "library": "#ffc2c2",
    "control": "#e6ccff",
    "view": "#eef6ee",
    "other": "#cfe8ff",
}
_CATEGORY = {
    Op.PARAMETER: "parameter",
    Op.CONSTANT: "constant",
    Op.IOTA: "constant",
    Op.FUSION: "fusion",
    Op.DOT: "library",
    Op.CONVOLUTION: "library",
    Op.FFT: "library",
    Op.CUSTOM_CALL: "library",
    Op.SORT: "library",
    Op.WHILE: "control",
    Op.CONDITIONAL: "control",
    Op.CALL: "control",
    Op.TUPLE: "view",
    Op.GET_TUPLE_ELEMENT: "view",
    Op.BITCAST: "view",
    Op.RESHAPE: "view",
}


@dataclass
class _Node:
    instruction: HloInstruction
    label: str
    detail: str
    layer: int = 0
    x: float = 0.0
    width: float = 0.0
    order: float = 0.0
    operands: list[_Node] = field(default_factory=list)
    users: list[_Node] = field(default_factory=list)


def describe(instruction: HloInstruction) -> str:
    """The second line of a node: the opcode (a fusion's kind and what it fuses) and shape."""
    op = instruction.opcode
    if op is Op.FUSION:
        fused = [
            i.opcode.value
            for i in instruction.fused_computation.instructions
            if i.opcode not in (Op.PARAMETER, Op.TUPLE, Op.CONSTANT)
        ]
        names = ", ".join(dict.fromkeys(fused))
        if len(names) > 40:
            names = names[:37] + "..."
        return f"{instruction.fusion_kind}: {names}"
    return f"{op.value} {instruction.shape}"


def _layers(nodes: list[_Node]) -> list[list[_Node]]:
    """Longest-path layering (``nodes`` in post order: operands first)."""
    for node in nodes:
        node.layer = 1 + max((o.layer for o in node.operands), default=-1)
    layers: list[list[_Node]] = [[] for _ in range(1 + max((n.layer for n in nodes), default=0))]
    for node in nodes:
        node.order = len(layers[node.layer])
        layers[node.layer].append(node)
    return layers


def _order(layers: list[list[_Node]]) -> None:
    """Barycentre sweeps: sort each layer by the mean order of its neighbours."""

    def sweep(sequence: list[list[_Node]], neighbours: str) -> None:
        for layer in sequence:
            for node in layer:
                linked = getattr(node, neighbours)
                if linked:
                    node.order = sum(n.order for n in linked) / len(linked)
            layer.sort(key=lambda n: n.order)
            for k, node in enumerate(layer):
                node.order = k

    for _ in range(SWEEPS):
        sweep(layers[1:], "operands")
        sweep(list(reversed(layers[:-1])), "users")


def _place(layers: list[list[_Node]]) -> float:
    """x of every node (layers centred on the widest); returns the drawing's width."""
    widths = [sum(n.width for n in layer) + NODE_GAP * (len(layer) - 1) for layer in layers]
    total = max(widths, default=0.0)
    for layer, width in zip(layers, widths, strict=True):
        x = MARGIN + (total - width) / 2
        for node in layer:
            node.x = x
            x += node.width + NODE_GAP
    return total + 2 * MARGIN


def _y(layer: int) -> float:
    return MARGIN + layer * (NODE_HEIGHT + LAYER_GAP)


def layout_svg(computation: HloComputation, graph_id: str) -> str:
    """``computation`` as an inline ``<svg>`` (class ``hlo-graph``; one ``g.node`` per
    instruction with ``data-name``, hover text the instruction's HLO line)."""
    nodes: dict[int, _Node] = {}
    ordered: list[_Node] = []
    for instruction in computation.post_order():
        label = instruction.name + (" (ROOT)" if instruction is computation.root else "")
        node = _Node(instruction, label, describe(instruction))
        node.width = CHAR_WIDTH * max(len(node.label), len(node.detail)) + 16
        node.operands = [nodes[id(o)] for o in dict.fromkeys(instruction.operands)]
        for operand in node.operands:
            operand.users.append(node)
        nodes[id(instruction)] = node
        ordered.append(node)
    layers = _layers(ordered)
    _order(layers)
    width = _place(layers)
    height = _y(len(layers)) - LAYER_GAP + MARGIN
    parts = [
        f'<svg class="hlo-graph" id="{graph_id}" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        f'aria-label="graph of {html.escape(computation.name)}">',
        f'<defs><marker id="{graph_id}-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
    ]
    for node in ordered:
        for operand in node.operands:
            x1, y1 = operand.x + operand.width / 2, _y(operand.layer) + NODE_HEIGHT
            x2, y2 = node.x + node.width / 2, _y(node.layer)
            bend = (y2 - y1) / 2
            parts.append(
                f'<path class="edge" d="M{x1:.1f},{y1:.1f} C{x1:.1f},{y1 + bend:.1f} '
                f'{x2:.1f},{y2 - bend:.1f} {x2:.1f},{y2:.1f}" '
                f'marker-end="url(#{graph_id}-arrow)"/>'
            )
    for node in ordered:
        instruction = node.instruction
        fill = _FILL[_CATEGORY.get(instruction.opcode, "other")]
        y = _y(node.layer)
        parts.append(
            f'<g class="node" data-name="{html.escape(instruction.name)}" '
            f'data-opcode="{instruction.opcode.value}">'
            f"<title>{html.escape(instruction.to_text())}</title>"
            f'<rect x="{node.x:.1f}" y="{y:.1f}" width="{node.width:.1f}" '
            f'height="{NODE_HEIGHT}" rx="5" fill="{fill}"/>'
            f'<text x="{node.x + node.width / 2:.1f}" y="{y + 16:.1f}" class="label">'
            f"{html.escape(node.label)}</text>"
            f'<text x="{node.x + node.width / 2:.1f}" y="{y + 31:.1f}" class="detail">'
            f"{html.escape(node.detail)}</text></g>"
        )
    parts.append("</svg>")
    return "\n".join(parts)


__all__ = ["describe", "layout_svg"]
