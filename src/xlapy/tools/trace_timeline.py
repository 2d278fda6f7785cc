"""A profile trace drawn as a timeline page: ``xlapy profile FILE --html timeline.html``.

ui.perfetto.dev is the place to read a Chrome trace, but it needs the network;
this page needs nothing. It reads the trace-event dictionary that
``Profile.to_chrome_trace`` builds (or any Chrome trace of complete ``"X"``
events), and draws one lane per thread and nesting depth (a while loop's event
above the kernels of its body), one bar per event, a time axis, and, on hover,
the event's name, opcode, duration, own time, bytes and FLOPs. The page is one
self-contained HTML file: inline SVG, inline style, a few lines of script.
"""

from __future__ import annotations

import html
import json
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidArgumentError

WIDTH = 1200  # SVG user units: the drawing scales to the window
GUTTER = 190  # room for the lane labels on the left
LANE_HEIGHT = 24
AXIS_HEIGHT = 28
LABEL_MIN_WIDTH = 46  # a bar narrower than this carries no text (hover still names it)

# Kernels take colours by name (stable from run to run); the whole program and control
# flow stay grey, so the kernels stand out.
PALETTE = (
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#86bcb6",
)  # fmt: skip
CATEGORY_COLOURS = {"program": "#c9ccd1", "control": "#a0a7b1"}


@dataclass(frozen=True)
class Bar:
    """One complete event placed on a lane, times in microseconds from the trace's zero."""

    name: str
    category: str
    start_us: float
    duration_us: float
    lane: int
    args: dict[str, Any]


def complete_events(trace: dict[str, Any] | Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``"X"`` events of a trace (the dictionary form or a bare list of events)."""
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else list(trace)
    return [e for e in events if e.get("ph") == "X"]


def thread_names(trace: dict[str, Any] | Sequence[dict[str, Any]]) -> dict[tuple[Any, Any], str]:
    """``(pid, tid) -> name`` from the trace's ``thread_name`` metadata events."""
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else list(trace)
    return {
        (e.get("pid"), e.get("tid")): str(e.get("args", {}).get("name", ""))
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name"
    }


def place_bars(events: Sequence[dict[str, Any]]) -> tuple[list[Bar], list[tuple[Any, Any, int]]]:
    """Every event on a lane: per thread, an event inside another goes one lane lower.

    Returns the bars and the lanes as ``(pid, tid, depth)``, in drawing order.
    """
    by_thread: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
    for event in events:
        by_thread.setdefault((event.get("pid"), event.get("tid")), []).append(event)
    placed: list[tuple[tuple[Any, Any], int, dict[str, Any]]] = []
    for thread, group in sorted(by_thread.items(), key=lambda item: str(item[0])):
        # Outer events first on equal starts, so that they open the nesting.
        group.sort(key=lambda e: (float(e["ts"]), -float(e.get("dur", 0.0))))
        open_ends: list[float] = []
        for event in group:
            start = float(event["ts"])
            while open_ends and open_ends[-1] <= start:
                open_ends.pop()
            placed.append((thread, len(open_ends), event))
            open_ends.append(start + float(event.get("dur", 0.0)))
    lanes = sorted(
        {(thread[0], thread[1], depth) for thread, depth, _ in placed},
        key=lambda lane: (str(lane[0]), str(lane[1]), lane[2]),
    )
    lane_index = {lane: k for k, lane in enumerate(lanes)}
    origin = min((float(e["ts"]) for e in events), default=0.0)
    bars = [
        Bar(
            name=str(event.get("name", "?")),
            category=str(event.get("cat", "")),
            start_us=float(event["ts"]) - origin,
            duration_us=float(event.get("dur", 0.0)),
            lane=lane_index[(thread[0], thread[1], depth)],
            args=dict(event.get("args") or {}),
        )
        for thread, depth, event in placed
    ]
    return bars, lanes


def colour_of(bar: Bar) -> str:
    if bar.category in CATEGORY_COLOURS:
        return CATEGORY_COLOURS[bar.category]
    return PALETTE[zlib.crc32(bar.name.encode()) % len(PALETTE)]


def nice_step(span: float, ticks: int = 8) -> float:
    """A round tick step (1, 2 or 5 times a power of ten) giving about ``ticks`` ticks."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _time_text(us: float) -> str:
    if us >= 1000:
        return f"{us / 1000:.3g} ms"
    return f"{us:.3g} us"


def _tooltip(bar: Bar) -> str:
    parts = [bar.name, f"{_time_text(bar.duration_us)} at {_time_text(bar.start_us)}"]
    args = bar.args
    if "opcode" in args:
        parts.append(f"opcode {args['opcode']}")
    if "self_us" in args:
        parts.append(f"own time {_time_text(float(args['self_us']))}")
    if args.get("bytes"):
        parts.append(f"{args['bytes']} bytes")
    if args.get("flops"):
        parts.append(f"{args['flops']} FLOPs")
    return "\n".join(parts)


def render_svg(bars: Sequence[Bar], lane_labels: Sequence[str]) -> str:
    """The timeline: axis on top, one lane per label, one ``rect.bar`` per bar."""
    span = max((b.start_us + b.duration_us for b in bars), default=0.0) or 1.0
    plot = WIDTH - GUTTER - 10
    scale = plot / span
    height = AXIS_HEIGHT + LANE_HEIGHT * max(1, len(lane_labels)) + 8
    out = [
        f'<svg id="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="100%" role="img" aria-label="timeline of {len(bars)} events">'
    ]
    for k, label in enumerate(lane_labels):
        y = AXIS_HEIGHT + k * LANE_HEIGHT
        shade = "lane even" if k % 2 == 0 else "lane"
        out.append(
            f'<rect class="{shade}" x="0" y="{y}" width="{WIDTH}" height="{LANE_HEIGHT}"/>'
            f'<text class="lane-label" x="8" y="{y + LANE_HEIGHT * 0.68:.1f}">'
            f"{html.escape(label)}</text>"
        )
    step = nice_step(span)
    tick = 0.0
    while tick <= span * 1.0001:
        x = GUTTER + tick * scale
        out.append(
            f'<line class="tick" x1="{x:.1f}" y1="{AXIS_HEIGHT - 6}" x2="{x:.1f}" '
            f'y2="{height - 4}"/><text class="axis" x="{x:.1f}" y="{AXIS_HEIGHT - 10}" '
            f'text-anchor="middle">{html.escape(_time_text(tick))}</text>'
        )
        tick += step
    for index, bar in enumerate(bars):
        x = GUTTER + bar.start_us * scale
        w = max(bar.duration_us * scale, 0.8)  # a bar too short to see still shows
        y = AXIS_HEIGHT + bar.lane * LANE_HEIGHT + 3
        h = LANE_HEIGHT - 6
        tip = html.escape(_tooltip(bar))
        out.append(
            f'<g class="event" data-index="{index}"><rect class="bar" x="{x:.2f}" y="{y}" '
            f'width="{w:.2f}" height="{h}" rx="2" fill="{colour_of(bar)}" '
            f'data-name="{html.escape(bar.name)}" data-dur="{bar.duration_us:.3f}">'
            f"<title>{tip}</title></rect>"
        )
        if w >= LABEL_MIN_WIDTH:
            chars = max(1, int((w - 6) / 6.5))
            text = bar.name if len(bar.name) <= chars else bar.name[: max(1, chars - 1)] + "…"
            out.append(
                f'<text class="bar-label" x="{x + 3:.2f}" y="{y + h * 0.72:.1f}">'
                f"{html.escape(text)}</text>"
            )
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


_STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 20px; color: #222; }
h1 { font-size: 18px; margin: 0 0 4px; }
p.meta { margin: 0 0 10px; color: #555; }
#detail { font: 13px ui-monospace, monospace; white-space: nowrap; overflow: hidden;
          text-overflow: ellipsis; height: 1.4em; background: #f6f7f9;
          border: 1px solid #dde; padding: 6px 10px; margin: 8px 0; }
svg text { font: 11px ui-monospace, monospace; }
.axis { fill: #555; } .tick { stroke: #e3e5e8; }
.lane { fill: #ffffff; } .lane.even { fill: #f7f8fa; }
.lane-label { fill: #333; }
.bar { stroke: rgba(0,0,0,.25); stroke-width: .5; cursor: pointer; }
.bar:hover, .bar.active { stroke: #000; stroke-width: 1.5; }
.bar-label { fill: #111; pointer-events: none; }
table { border-collapse: collapse; margin-top: 12px; font-size: 13px; }
td, th { padding: 2px 10px; text-align: right; border-bottom: 1px solid #eee; }
td:first-child, th:first-child { text-align: left; }
"""

_SCRIPT = """
const detail = document.getElementById('detail');
const first = detail.textContent;
for (const rect of document.querySelectorAll('#timeline rect.bar')) {
  rect.addEventListener('mouseenter', () => {
    rect.classList.add('active');
    // One line of fixed height: the drawing must not move under the pointer.
    detail.textContent = rect.querySelector('title').textContent.split('\\n').join('  ·  ');
  });
  rect.addEventListener('mouseleave', () => {
    rect.classList.remove('active');
    detail.textContent = first;
  });
}
"""


def _top_table(bars: Sequence[Bar], limit: int = 12) -> str:
    """The names that take the most time (summed durations), beside the picture."""
    totals: dict[str, list[float]] = {}
    for bar in bars:
        if bar.category == "program":
            continue
        entry = totals.setdefault(bar.name, [0.0, 0.0])
        entry[0] += float(bar.args.get("self_us", bar.duration_us))
        entry[1] += 1
    ranked = sorted(totals.items(), key=lambda item: -item[1][0])[:limit]
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td><td>{int(count)}</td><td>{own:.1f}</td></tr>"
        for name, (own, count) in ranked
    )
    return (
        "<table><thead><tr><th>event</th><th>calls</th><th>own time us</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def render_timeline(trace: dict[str, Any] | Sequence[dict[str, Any]], title: str = "") -> str:
    """The self-contained HTML page for a Chrome trace (dictionary or list of events)."""
    events = complete_events(trace)
    if not events:
        raise InvalidArgumentError(
            "trace timeline: the trace has no complete ('X') events to draw; "
            "profile with at least one iteration"
        )
    bars, lanes = place_bars(events)
    names = thread_names(trace)
    labels = []
    for pid, tid, depth in lanes:
        thread = names.get((pid, tid)) or f"thread {tid}"
        thread = thread.split(" (")[0]
        labels.append(thread if depth == 0 else f"{thread} · depth {depth}")
    other = trace.get("otherData", {}) if isinstance(trace, dict) else {}
    heading = title or f"xlapy profile: {other.get('module', 'trace')}"
    span = max(b.start_us + b.duration_us for b in bars)
    meta = f"{len(bars)} events over {_time_text(span)}"
    if other.get("iterations"):
        meta += f", {other['iterations']} iteration(s)"
    if other.get("machine"):
        meta += f"; {other['machine']}"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(heading)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(heading)}</h1><p class=\"meta\">{html.escape(meta)}</p>"
        f"<div id=\"detail\">Hover over a bar for its name, duration, own time, "
        f"bytes and FLOPs.</div>{render_svg(bars, labels)}{_top_table(bars)}"
        f"<script type=\"application/json\" id=\"trace-summary\">"
        f"{json.dumps({'events': len(bars), 'lanes': len(lanes)})}</script>"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )


def write_timeline(
    trace: dict[str, Any] | Sequence[dict[str, Any]], path: str | Path, title: str = ""
) -> None:
    """Write :func:`render_timeline`'s page to ``path``."""
    Path(path).write_text(render_timeline(trace, title), encoding="utf-8")


__all__ = [
    "Bar",
    "complete_events",
    "nice_step",
    "place_bars",
    "render_svg",
    "render_timeline",
    "thread_names",
    "write_timeline",
]
