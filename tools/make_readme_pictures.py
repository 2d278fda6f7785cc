"""Regenerate the README's pictures of ``xlapy explain`` and ``xlapy profile --html``.

    .venv/bin/python tools/make_readme_pictures.py [--out docs]

Both come from the benchmarks' softmax and MLP workloads (``benchmarks/workloads.py``),
written as HLO text and run through the same commands a user types:

- ``docs/readme_explain.png``: the graph section of the ``xlapy explain`` report of
  the softmax (the optimized module: its fusions and what each computes);
- ``docs/readme_trace.png``: ``xlapy profile --html`` of the MLP (two iterations), the
  timeline page with one bar hovered.

Screenshots are taken by Debian's headless Chromium through Python Playwright (no
browser download, no network), and kept small (a modest viewport, PNG).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # ``benchmarks`` is a folder of the checkout, not installed

from benchmarks.workloads import WORKLOADS  # noqa: E402

from xlapy import cli  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
EXPLAIN_SCALE = 64  # the report's graph does not depend on the size; a small one compiles fast
PROFILE_SCALE = 8  # the MLP at 1/8 size: dots big enough to dominate, quick to run


def write_workload(name: str, scale: int, folder: Path) -> Path:
    """The workload's computation as an ``.hlo`` file."""
    path = folder / f"{name}.hlo"
    path.write_text(WORKLOADS[name](scale).build().as_hlo_text())
    return path


def render_pages(folder: Path) -> tuple[Path, Path]:
    """The explain report and the timeline page, through ``xlapy``'s command line."""
    softmax = write_workload("softmax", EXPLAIN_SCALE, folder)
    mlp = write_workload("mlp", PROFILE_SCALE, folder)
    report, timeline = folder / "softmax_report.html", folder / "mlp_timeline.html"
    for argv in (
        ["explain", str(softmax), "-o", str(report)],
        ["profile", str(mlp), "--iterations", "2", "--html", str(timeline)],
    ):
        code = cli.main(argv)
        if code:
            raise SystemExit(f"xlapy {' '.join(argv)} exited with {code}")
    return report, timeline


def screenshot(report: Path, timeline: Path, out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 640})
            page.goto(report.as_uri())
            page.wait_for_load_state("load")
            page.locator("svg.hlo-graph g.node").first.wait_for(state="visible")
            target = out / "readme_explain.png"
            page.locator("section#graph").screenshot(path=str(target))
            written.append(target)

            page = browser.new_page(viewport={"width": 1100, "height": 420})
            page.goto(timeline.as_uri())
            page.wait_for_load_state("load")
            bars = page.locator("#timeline rect.bar")
            widths = [float(bars.nth(k).get_attribute("width") or 0) for k in range(bars.count())]
            names = [bars.nth(k).get_attribute("data-name") for k in range(bars.count())]
            # The widest kernel (not the whole program's bar) shows what hovering tells.
            kernels = [k for k in range(len(widths)) if names[k] != names[0]] or [0]
            bars.nth(max(kernels, key=widths.__getitem__)).hover()
            target = out / "readme_trace.png"
            page.screenshot(path=str(target), full_page=True)
            written.append(target)
        finally:
            browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for the PNGs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        report, timeline = render_pages(Path(folder))
        for path in screenshot(report, timeline, args.out):
            print(f"wrote {path} ({path.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
