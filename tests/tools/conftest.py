"""The real browser the tools' pages are tested in: Debian's headless chromium, driven by
Python Playwright (never a downloaded browser)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip


def _sync_playwright_or_fail() -> Any:
    """Playwright's sync API, or a failure that says how to get a browser (a skip only
    when XLAPY_SKIP_BROWSER_TESTS=1)."""
    problem = None
    if not os.path.exists(CHROMIUM):
        problem = f"{CHROMIUM} is missing: install it with `apt-get install chromium`"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        problem = "Python Playwright is missing: pip install playwright (no browser download)"
        sync_playwright = None
    if problem:
        if os.environ.get("XLAPY_SKIP_BROWSER_TESTS") == "1":
            pytest.skip(f"XLAPY_SKIP_BROWSER_TESTS=1: {problem}")
        pytest.fail(f"the browser test needs a browser: {problem} "
                    "(or set XLAPY_SKIP_BROWSER_TESTS=1 to skip it)")  # fmt: skip
    return sync_playwright


class Browser:
    """Opens local pages and records what would make them broken: script errors,
    console errors or warnings, and requests that leave the file system."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser
        self.problems: list[str] = []
        self.requests: list[str] = []

    def open(self, path: Path, width: int = 1200, height: int = 800) -> Any:
        page = self._browser.new_page(viewport={"width": width, "height": height})
        page.on("pageerror", lambda error: self.problems.append(f"pageerror: {error}"))
        page.on("console", lambda m: self.problems.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning") else None)  # fmt: skip
        page.on("request", lambda r: self.requests.append(r.url))
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        return page

    def assert_clean(self) -> None:
        assert self.problems == []
        assert [u for u in self.requests if not u.startswith("file://")] == []


@pytest.fixture
def browser() -> Iterator[Browser]:
    sync_playwright = _sync_playwright_or_fail()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield Browser(launched)
        finally:
            launched.close()
