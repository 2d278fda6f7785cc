"""The arena of one computation drawn as SVG: a rectangle per buffer, offset by time.

x is the position in the computation's schedule, y the byte offset in its arena
region; a buffer is a rectangle from the step that writes it to its last reader,
as tall as its (aligned) size. Gaps show memory free at that time; stacked
rectangles show the best-fit heap reusing space. Hovering a rectangle names the
instruction (``<title>``, and the page's script shows the details beside the
chart from the ``data-*`` attributes).
"""

from __future__ import annotations

import html
import zlib

from .live_ranges import BufferRange

STEP_WIDTH = 26.0  # px per schedule position (narrower for long schedules)
MAX_WIDTH = 1100.0
CHART_HEIGHT = 320.0
MIN_RECT_HEIGHT = 3.0
AXIS = 56.0  # room for the offset labels on the left
FOOT = 28.0  # room for the position labels below
TOP = 10.0  # room for the first offset label above the plot

_PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69",
            "#fccde5", "#bc80bd", "#ccebc5", "#ffed6f")  # fmt: skip


def _colour(opcode: str) -> str:
    return _PALETTE[zlib.crc32(opcode.encode()) % len(_PALETTE)]


def _bytes(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def buffer_chart_svg(ranges: list[BufferRange], steps: int, region_size: int, chart_id: str) -> str:
    """The chart of the arena buffers in ``ranges`` (``steps``: schedule length)."""
    arena = [r for r in ranges if r.kind == "arena"]
    step = max(8.0, min(STEP_WIDTH, MAX_WIDTH / max(steps + 1, 1)))
    plot_width = step * (steps + 1)
    top = max(region_size, max((r.offset + r.size for r in arena), default=0), 1)
    scale = CHART_HEIGHT / top
    width, height = AXIS + plot_width + 8, TOP + CHART_HEIGHT + FOOT + 8
    parts = [
        f'<svg class="buffer-chart" id="{chart_id}" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="arena buffers">',
        f'<g transform="translate(0,{TOP})">',
        f'<rect class="plot" x="{AXIS}" y="0" width="{plot_width:.1f}" '
        f'height="{CHART_HEIGHT}" fill="#fafafa" stroke="#ccc"/>',
    ]
    for k in range(5):  # offset ticks
        value = top * k / 4
        y = value * scale
        parts.append(
            f'<text class="tick" x="{AXIS - 4}" y="{min(y + 4, CHART_HEIGHT):.1f}" '
            f'text-anchor="end">{html.escape(_bytes(int(value)))}</text>'
        )
    every = max(1, int(40 // step) + 1)
    for position in range(0, steps + 1, every):
        x = AXIS + position * step + step / 2
        parts.append(
            f'<text class="tick" x="{x:.1f}" y="{CHART_HEIGHT + 16}" '
            f'text-anchor="middle">{position}</text>'
        )
    for r in arena:
        x = AXIS + r.start * step + 1
        w = (r.end - r.start + 1) * step - 2
        y = r.offset * scale
        h = max(MIN_RECT_HEIGHT, r.size * scale - 1)
        title = (
            f"{r.instruction} ({r.opcode}) {r.shape}: offset {r.offset}, {_bytes(r.size)}, "
            f"live {r.start}..{r.end}" + (", in place" if r.in_place else "")
        )
        parts.append(
            f'<rect class="buffer" x="{x:.1f}" y="{y:.1f}" width="{max(w, 2):.1f}" '
            f'height="{h:.1f}" fill="{_colour(r.opcode)}" stroke="#333" stroke-width="0.6" '
            f'data-instruction="{html.escape(r.instruction)}" data-shape="{html.escape(r.shape)}" '
            f'data-offset="{r.offset}" data-size="{r.size}" data-start="{r.start}" '
            f'data-end="{r.end}"><title>{html.escape(title)}</title></rect>'
        )
    parts.append("</g></svg>")
    return "\n".join(parts)


__all__ = ["buffer_chart_svg"]
