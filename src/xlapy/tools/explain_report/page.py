"""The ``xlapy explain`` page: one HTML file with its style and script inline.

The page must open anywhere, offline, from a file: no fonts, scripts or images are
fetched. The script is small and optional: it fills a kernel's IR or assembly from
its ``<template>`` the first time the block is opened (so a page with many kernels
stays light), filters the fusion table, and shows a hovered buffer's details.
"""

from __future__ import annotations

import html

from .capture import CompileRecord
from .sections import SECTIONS

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fff; }
header { position: sticky; top: 0; background: #263238; color: #fff; padding: 6px 16px;
  z-index: 2; display: flex; gap: 18px; align-items: baseline; flex-wrap: wrap; }
header h1 { font-size: 16px; margin: 0; }
header a { color: #b3e5fc; text-decoration: none; }
main { padding: 0 16px 40px; }
section { margin-top: 18px; border-top: 2px solid #eceff1; scroll-margin-top: 44px; }
h2 { font-size: 18px; margin: 10px 0 6px; }
h3 { font-size: 14px; margin: 12px 0 4px; }
.note { color: #555; margin: 2px 0 8px; }
pre { font: 12px/1.35 ui-monospace, monospace; background: #f7f7f7; padding: 8px;
  overflow: auto; margin: 4px 0; }
.side-by-side { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.side-by-side pre { max-height: 70vh; }
.columns { display: grid; grid-template-columns: minmax(260px, 1fr) 3fr; gap: 12px; }
.diffs pre { max-height: 50vh; }
.diff .add { background: #e6ffec; display: block; }
.diff .del { background: #ffebe9; display: block; }
.diff .hunk { color: #6a737d; display: block; }
.diff .ctx { display: block; }
table { border-collapse: collapse; margin: 4px 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #eceff1; }
.passes { font-size: 12px; }
.changed, .fused { color: #1b5e20; font-weight: 600; }
.kept { color: #b71c1c; font-weight: 600; }
.quiet { color: #888; }
.name { font-family: ui-monospace, monospace; }
.op { color: #666; font-size: 12px; }
.filters button { margin: 4px 4px 4px 0; }
.filters button.active { font-weight: 700; }
tr.hidden { display: none; }
.chart-row { display: flex; gap: 12px; align-items: flex-start; overflow-x: auto; }
.buffer-info { font: 12px ui-monospace, monospace; min-width: 240px; white-space: pre-wrap; }
.buffer-chart .tick { font: 10px sans-serif; fill: #555; }
.buffer-chart rect.buffer:hover { stroke-width: 2; stroke: #000; }
.schedule { font: 11px ui-monospace, monospace; color: #555; }
.schedule span { margin-right: 8px; white-space: nowrap; }
details.kernel { border: 1px solid #ddd; margin: 4px 0; padding: 2px 8px; }
details.code { margin-left: 16px; }
details.code pre { max-height: 60vh; }
.graph { overflow: auto; border: 1px solid #eee; margin: 6px 0; }
.hlo-graph .edge { fill: none; stroke: #777; stroke-width: 1.2; }
.hlo-graph rect { stroke: #444; stroke-width: 1; }
.hlo-graph text { font: 12px ui-monospace, monospace; text-anchor: middle; }
.hlo-graph text.detail { font-size: 10px; fill: #444; }
.hlo-graph g.node:hover rect { stroke-width: 2.5; }
"""

SCRIPT = """
(function () {
  'use strict';
  document.querySelectorAll('details.code').forEach(function (block) {
    block.addEventListener('toggle', function () {
      var pre = block.querySelector('pre');
      if (!block.open || pre.dataset.loaded) { return; }
      var template = document.getElementById(block.dataset.template);
      pre.textContent = template ? template.content.textContent : '(missing)';
      pre.dataset.loaded = 'yes';
    });
  });
  document.querySelectorAll('.filters button').forEach(function (button) {
    button.addEventListener('click', function () {
      var want = button.dataset.filter;
      button.parentNode.querySelectorAll('button').forEach(function (b) {
        b.classList.toggle('active', b === button);
      });
      document.querySelectorAll('table.decisions tbody tr').forEach(function (row) {
        row.classList.toggle('hidden', want !== 'all' && row.dataset.verdict !== want);
      });
    });
  });
  document.querySelectorAll('.computation-buffers').forEach(function (block) {
    var info = block.querySelector('.buffer-info');
    block.querySelectorAll('rect.buffer').forEach(function (rect) {
      rect.addEventListener('mouseenter', function () {
        var d = rect.dataset;
        info.textContent = d.instruction + '\\n' + d.shape + '\\noffset ' + d.offset +
          ', ' + d.size + ' bytes\\nlive ' + d.start + '..' + d.end;
      });
    });
  });
}());
"""


# Nothing may be loaded from anywhere: the page works offline, and a browser enforces it.
POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def render_page(record: CompileRecord) -> str:
    """The whole report for ``record`` as one HTML document."""
    title = f"xlapy explain: {record.name}"
    links = " ".join(f'<a href="#{sid}">{html.escape(label)}</a>' for sid, label, _ in SECTIONS)
    body = "\n".join(make(record) for _, _, make in SECTIONS)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
        f"<body><header><h1>{html.escape(title)}</h1><nav>{links}</nav></header>\n"
        f"<main>\n{body}\n</main>\n<script>{SCRIPT}</script></body></html>\n"
    )


__all__ = ["SCRIPT", "STYLE", "render_page"]
