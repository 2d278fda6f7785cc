"""Progress for long jobs (conformance, fuzz, bench, ``xlapy run --iterations``).

One wrapper so that every long job reports the same way: how many items are
done (of how many), how fast, and a tally of outcomes (``pass=.. fail=..``).
Progress goes to stderr only, never to stdout or to the files a job writes, so
the job's report reads the same with or without it.

Two modes, chosen once per job:

- ``bar``: a tqdm bar, redrawn in place, when stderr is a terminal;
- ``plain``: no bar (a CI log or pytest's capture would fill with redraws), one
  summary line every ``interval`` seconds and one at the end. Chosen when stderr
  is not a terminal, or when ``XLAPY_PROGRESS=0``. ``XLAPY_PROGRESS=1`` asks for
  the bar even without a terminal.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

from tqdm import tqdm

ENV_VARIABLE = "XLAPY_PROGRESS"
DEFAULT_INTERVAL = 10.0  # seconds between plain lines: a line a case would flood a CI log

T = TypeVar("T")


def choose_mode(stream: TextIO) -> str:
    """``"bar"`` or ``"plain"``: the environment variable decides, then the terminal."""
    setting = os.environ.get(ENV_VARIABLE, "").strip().lower()
    if setting in ("0", "off", "plain", "false", "no"):
        return "plain"
    if setting in ("1", "on", "bar", "true", "yes"):
        return "bar"
    isatty = getattr(stream, "isatty", None)
    try:
        return "bar" if isatty is not None and isatty() else "plain"
    except (OSError, ValueError):  # a closed or odd stream: no terminal to draw on
        return "plain"


def _rate(done: float, seconds: float, unit: str) -> str:
    if seconds <= 0 or done <= 0:
        return f"- {unit}/s"
    per_second = done / seconds
    if per_second >= 1:
        return f"{per_second:.1f} {unit}/s"
    return f"{seconds / done:.1f} s each"


class Progress:
    """Counts, rate and a tally of outcomes for one long job, shown on stderr.

    ``update(status="pass")`` marks one item done and tallies its outcome;
    ``tally(...)`` tallies without advancing (a fuzz round's mutations);
    ``note(text)`` prints a line without breaking the bar; ``close()`` (or the
    ``with`` block's end) prints the final line in plain mode.
    ``statuses`` names the outcomes shown even at zero, in that order.
    """

    def __init__(
        self,
        desc: str,
        total: int | None = None,
        unit: str = "it",
        statuses: Iterable[str] = (),
        interval: float = DEFAULT_INTERVAL,
        stream: TextIO | None = None,
        mode: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.desc = desc
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.mode = mode or choose_mode(self.stream)
        if self.mode not in ("bar", "plain"):
            raise ValueError(f"Progress: mode must be 'bar' or 'plain', got {self.mode!r}")
        self.interval = interval
        self.clock = clock
        self.counts: dict[str, int] = dict.fromkeys(statuses, 0)
        self.done = 0
        self.started = clock()
        self._last_line = self.started
        self._closed = False
        self._bar: Any = None
        if self.mode == "bar":
            self._bar = tqdm(
                total=total,
                desc=desc,
                unit=f" {unit}",
                file=self.stream,
                dynamic_ncols=True,
                mininterval=0.2,
                leave=True,
            )

    # -- recording ------------------------------------------------------------------------
    def update(self, n: int = 1, status: str | None = None, **tallies: int) -> None:
        """``n`` more items done; ``status`` tallies one outcome, ``tallies`` add counts."""
        self.done += n
        if status is not None:
            self.counts[status] = self.counts.get(status, 0) + 1
        for key, value in tallies.items():
            self.counts[key] = self.counts.get(key, 0) + value
        self._show(advance=n)

    def tally(self, **tallies: int) -> None:
        """Add to the outcome counts without marking items done."""
        self.update(0, **tallies)

    def note(self, text: str) -> None:
        """A line of its own on stderr, above the bar when there is one."""
        if self._bar is not None:
            self._bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    # -- reading --------------------------------------------------------------------------
    def postfix(self) -> str:
        """The outcome tally as the bar and the plain lines show it: ``pass=3 fail=1``."""
        return " ".join(f"{key}={value}" for key, value in self.counts.items())

    def line(self, final: bool = False) -> str:
        """One plain summary line: counts, share, rate, tally, time."""
        elapsed = self.clock() - self.started
        if self.total is not None:
            share = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
            count = f"{self.done}/{self.total} {self.unit}{share}"
        else:
            count = f"{self.done} {self.unit}"
        parts = [f"{self.desc}: {'done, ' if final else ''}{count}"]
        parts.append(_rate(self.done, elapsed, self.unit))
        if self.counts:
            parts.append(self.postfix())
        parts.append(f"{elapsed:.1f} s")
        return ", ".join(parts)

    # -- showing --------------------------------------------------------------------------
    def _show(self, advance: int) -> None:
        if self._closed:
            return
        if self._bar is not None:
            if self.counts:
                self._bar.set_postfix_str(self.postfix(), refresh=False)
            self._bar.update(advance)
            return
        now = self.clock()
        if self.interval >= 0 and now - self._last_line >= self.interval:
            self._last_line = now
            print(self.line(), file=self.stream, flush=True)

    def close(self) -> None:
        """Finish: the bar's last state, or the final plain line. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            if self.counts:
                self._bar.set_postfix_str(self.postfix(), refresh=False)
            self._bar.close()
        else:
            print(self.line(final=True), file=self.stream, flush=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def track(items: Iterable[T], desc: str, total: int | None = None, **options: Any) -> Iterator[T]:
    """Yield ``items`` and count each one done (``Progress``'s options pass through)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with Progress(desc, total=total, **options) as progress:
        for item in items:
            yield item
            progress.update()


__all__ = ["DEFAULT_INTERVAL", "ENV_VARIABLE", "Progress", "choose_mode", "track"]
