"""Progress on long bulk work: `batch.rows`/`batch.table`'s `progress=`, and the meter of
`errconv convert --lines` on a terminal.

`progress=` takes a callback, `progress(done, total)` (total None when the input's length
is unknown), called every `EVERY` rows and once at the end; or True, for a tqdm bar
(tqdm: the `progress` extra). tqdm, not rich: it has no dependencies, is what data work
already has installed (pandas, Dask, Hugging Face use it), and picks a notebook widget
or a terminal bar by itself (`tqdm.auto`); rich would pull in a terminal toolkit for one bar.

The command's meter needs no library: one line on stderr, redrawn at most five times a
second, only when stderr is a terminal, and only once a run has lasted half a second.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TextIO

from ._extras import require

__all__ = ["EVERY", "Callback", "Meter", "callback", "rate"]

Callback = Callable[[int, "int | None"], object]

EVERY = 1024
"""Rows between two calls of a progress callback (a call per row would cost more than some rows)."""


class _Bar:
    """A tqdm bar fed as a callback is: `(done, total)`."""

    def __init__(self, unit: str) -> None:
        # Checked when asked for; the bar itself is drawn when the first rows are done.
        self.tqdm = require("tqdm.auto", package="tqdm", extra="progress", what="errconv.batch's progress=True").tqdm
        self.unit = unit
        self.bar: Any = None

    def __call__(self, done: int, total: int | None) -> None:
        if self.bar is None:
            self.bar = self.tqdm(total=total, unit=self.unit, unit_scale=True, desc="errconv")
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def callback(progress: Callback | bool | None, unit: str = "row") -> tuple[Callback | None, Callable[[], None]]:
    """What `progress=` asks for, as (a callback or None, what to run when the work ends)."""
    if progress is None or progress is False:
        return None, _nothing
    if progress is True:
        bar = _Bar(unit)
        return bar, bar.close
    if callable(progress):
        return progress, _nothing
    raise TypeError(f"progress is a callable (done, total), True or None, not {type(progress).__name__}")


def _nothing() -> None:
    pass


def rate(count: float) -> str:
    """A count as a person reads it at a glance: 950, 12.3k, 4.56M."""
    if count < 1000:
        return f"{count:.0f}"
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.2f}M"


class Meter:
    """`errconv: 1,234,567 lines, 45.6k lines/s` on `stream` (a terminal), redrawn in place.

    `update(done)` redraws at most every `interval` seconds and not before `delay` has
    passed (a short run shows nothing); `clear()` wipes the line before another message is
    written; `close()` leaves the total and the rate on a line of their own, if anything
    was shown.
    """

    def __init__(
        self,
        stream: TextIO,
        unit: str = "lines",
        *,
        delay: float = 0.5,
        interval: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.unit = unit
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.start = clock()
        self.drawn_at: float | None = None
        self.done = 0

    def update(self, done: int) -> None:
        """`done` units so far."""
        self.done = done
        now = self.clock()
        if now - self.start < self.delay or (self.drawn_at is not None and now - self.drawn_at < self.interval):
            return
        self.drawn_at = now
        self._write(f"\r\x1b[Kerrconv: {done:,} {self.unit}, {rate(done / (now - self.start))} {self.unit}/s")

    def clear(self) -> None:
        """Wipe the meter's line (another message follows)."""
        if self.drawn_at is not None:
            self._write("\r\x1b[K")
            self.drawn_at = 0.0  # redrawn at the next update past the interval

    def before(self, say: Callable[[str], object]) -> Callable[[str], None]:
        """`say`, wiping the meter's line first, so a message never lands inside it."""

        def said(message: str) -> None:
            self.clear()
            say(message)

        return said

    def close(self) -> None:
        """The final count and rate, when the meter was shown at all."""
        if self.drawn_at is None:
            return
        elapsed = max(self.clock() - self.start, 1e-9)
        self._write(f"\r\x1b[Kerrconv: {self.done:,} {self.unit} in {elapsed:.1f} s, {rate(self.done / elapsed)} {self.unit}/s\n")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()
