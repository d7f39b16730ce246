"""A progress bar for long work (``policy diff``, ``policy lint`` over many files, log views over a
large log): drawn on stderr when stderr is a terminal, nothing at all otherwise.

stderr, not stdout: what a command prints is its answer, and must be the same bytes whether or not
someone watched it being made (``policy diff > report.txt`` still shows how far it got). Redrawn at
most ten times a second, so a million small steps cost a million additions and a few hundred
writes. Standard library alone, imported only by the commands that show progress: never on the
hook's path.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from types import TracebackType
    from typing import TextIO

_INTERVAL = 0.1  # seconds between redraws
_BAR = 24  # characters of the bar itself


class Progress:
    """How far a piece of work has got; ``advance`` as it goes, close (or leave the ``with``) when
    done. With ``total`` None the count is shown without a bar."""

    def __init__(self, label: str, total: int | None, stream: TextIO | None, unit: str) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.done = 0
        self._stream = stream  # None: not a terminal, nothing is drawn
        self._drawn_at = 0.0
        self._width = 0  # characters of the last line drawn, to clear it

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self._stream is None:
            return
        now = time.monotonic()
        if now - self._drawn_at >= _INTERVAL:
            self._drawn_at = now
            self._draw()

    def close(self) -> None:
        """Erase the bar: what the command prints next starts on a clean line."""
        if self._stream is not None and self._width:
            self._stream.write("\r" + " " * self._width + "\r")
            self._stream.flush()
        self._stream = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _draw(self) -> None:
        assert self._stream is not None
        unit = f" {self.unit}" if self.unit else ""
        if self.total:
            share = min(self.done / self.total, 1.0)
            filled = int(share * _BAR)
            line = (
                f"{self.label} [{'#' * filled}{'.' * (_BAR - filled)}] "
                f"{self.done:,}/{self.total:,}{unit} {share:4.0%}"
            )
        else:
            line = f"{self.label} {self.done:,}{unit}"
        try:
            columns = os.get_terminal_size(self._stream.fileno()).columns or 80  # 0: size unset
        except (OSError, ValueError):
            columns = 80
        line = line[: max(columns - 1, 0)]  # never wrap: \r returns to the start of one line only
        self._stream.write("\r" + line + " " * max(self._width - len(line), 0))
        self._stream.flush()
        self._width = len(line)


def progress(label: str, total: int | None, *, unit: str = "") -> Progress:
    """A progress bar on stderr if it is a terminal; otherwise one that draws nothing."""
    stream = sys.stderr
    try:
        shown = stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # replaced or closed
        shown = False
    return Progress(label, total, stream if shown else None, unit)
