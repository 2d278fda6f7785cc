"""``xlapy profile --html``: the trace as a timeline page, one bar per event.

The lanes follow nesting (a while loop's event above its body's kernels); the page
is checked as text (one ``rect.bar`` per complete event, the hover text) and in
Debian's headless chromium through Playwright (it loads without script errors or
requests, and hovering a bar names its event).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from xlapy import cli
from xlapy.errors import InvalidArgumentError
from xlapy.tools.trace_timeline import nice_step, place_bars, render_timeline

WHILE_LOOP = """
HloModule loop

cond {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[64] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  e = f32[64] exponential(x)
  ROOT t = (s32[], f32[64]) tuple(j, e)
}

ENTRY main {
  x = f32[64] parameter(0)
  zero = s32[] constant(0)
  t = (s32[], f32[64]) tuple(zero, x)
  w = (s32[], f32[64]) while(t), condition=cond, body=body
  ROOT r = f32[64] get-tuple-element(w), index=1
}
"""


def _event(name: str, ts: float, dur: float, **args: object) -> dict:
    return {"name": name, "cat": "kernel", "ph": "X", "ts": ts, "dur": dur, "pid": 1,
            "tid": 1, "args": args}  # fmt: skip


def test_nesting_puts_inner_events_one_lane_lower() -> None:
    events = [
        _event("main", 0, 100),
        _event("while", 10, 80),
        _event("body_kernel", 20, 10),
        _event("body_kernel", 40, 10),
        _event("after", 95, 4),
    ]
    bars, lanes = place_bars(events)
    assert lanes == [(1, 1, 0), (1, 1, 1), (1, 1, 2)]
    assert {b.name: b.lane for b in bars} == {"main": 0, "while": 1, "body_kernel": 2, "after": 1}
    assert nice_step(100) == 20 and nice_step(7) == 1 and nice_step(0.3) == 0.05


def test_page_has_one_bar_per_event_with_hover_text() -> None:
    trace = {
        "traceEvents": [
            {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "caller"}},
            _event("fusion.1", 5.0, 2.5, opcode="fusion", self_us=2.5, bytes=4096, flops=10),
            _event("dot.2", 8.0, 30.0, opcode="dot", self_us=30.0, bytes=8192, flops=1 << 20),
        ],
        "otherData": {"module": "tiny", "iterations": 1},
    }
    page = render_timeline(trace)
    assert page.count('class="bar"') == 2
    assert "xlapy profile: tiny" in page and "caller" in page
    assert "opcode dot" in page and "1048576 FLOPs" in page and "4096 bytes" in page
    summary = re.search(r'id="trace-summary">(.*?)</script>', page)
    assert summary and json.loads(summary.group(1)) == {"events": 2, "lanes": 1}
    with pytest.raises(InvalidArgumentError, match="no complete"):
        render_timeline({"traceEvents": []})


def test_profile_html_option_draws_every_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = tmp_path / "loop.hlo"
    module.write_text(WHILE_LOOP)
    trace_path, page_path = tmp_path / "trace.json", tmp_path / "timeline.html"
    code = cli.main(["profile", str(module), "--iterations", "2", "-o", str(trace_path),
                     "--html", str(page_path)])  # fmt: skip
    assert code == 0
    assert f"wrote {page_path}" in capsys.readouterr().out
    trace = json.loads(trace_path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    page = page_path.read_text()
    assert page.count('class="bar"') == len(complete) > 0
    names = set(re.findall(r'data-name="([^"]+)"', page))
    assert names == {e["name"] for e in complete}
    summary = json.loads(re.search(r'id="trace-summary">(.*?)</script>', page).group(1))
    assert summary["lanes"] >= 2  # the while loop's body runs one lane below it


def test_the_timeline_in_a_real_browser(tmp_path: Path, browser) -> None:
    module = tmp_path / "loop.hlo"
    module.write_text(WHILE_LOOP)
    page_path = tmp_path / "timeline.html"
    assert cli.main(["profile", str(module), "--html", str(page_path)]) == 0
    page = browser.open(page_path, 1200, 600)
    bars = page.locator("#timeline rect.bar")
    assert bars.count() == page_path.read_text().count('class="bar"')
    assert bars.first.is_visible()
    last = bars.nth(bars.count() - 1)
    last.hover()
    detail = page.locator("#detail").inner_text()
    assert last.get_attribute("data-name") in detail and " at " in detail
    browser.assert_clean()
