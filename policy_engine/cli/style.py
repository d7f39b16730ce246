"""How a verdict is shown to a person: the action word coloured, a long reason wrapped to the
terminal's width.

Only what people read on a terminal is styled. A program reads ``--json`` and a hook's answer, and
a pipe's reader (``grep``, ``awk``) reads one verdict per line: those are never coloured nor
wrapped, and no command that writes them asks this module anything. Colour follows the common
conventions: on when stdout is a terminal (not a ``dumb`` one); off whenever ``NO_COLOR`` is set
to anything but the empty string (no-color.org) or the command line says ``--no-color``; forced
by a non-empty ``FORCE_COLOR`` (other than ``0``), even into a pipe, as CI logs that render colour
want. Wrapping depends on the terminal alone: its width is ``COLUMNS`` when set, else the
terminal's own.

Imported only by the commands that print a verdict for people, when they print one.
"""

from __future__ import annotations

import os
import sys

from ..record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import TextIO

# SGR parameters (ECMA-48) per action: the more restrictive, the more it stands out.
_COLOURS = {"allow": "32", "nudge": "36", "log": "34", "ask": "33", "deny": "1;31"}
_RESET = "\x1b[0m"

# Narrower than this, wrapping would leave a word or two per line: the terminal's own wrap is kinder.
_NARROWEST = 30


class Style(Record):
    """How to write verdicts on one stream: ``colour`` or not, wrapped to ``width`` columns or not
    (None)."""

    colour: bool
    width: int | None

    def verdict(self, action: object, reason: str, *, before: str = "") -> str:
        """``action: reason``, as ``policy check`` prints it (after ``before``: ``now``), with the
        action coloured and the reason's lines wrapped, each continuation indented under the
        reason's start."""
        word = str(action)
        text = self._wrapped(f"{before}{word}: ", reason)
        if self.colour and word in _COLOURS:
            start = len(before)
            return f"{before}\x1b[{_COLOURS[word]}m{word}{_RESET}{text[start + len(word) :]}"
        return text

    def labelled(self, label: str, text: str) -> str:
        """``label: text`` (a nudge's message, a sandbox's command), wrapped as a reason is."""
        return self._wrapped(f"{label}: ", text)

    def _wrapped(self, lead: str, text: str) -> str:
        if self.width is None or self.width < _NARROWEST or len(lead) + len(text) <= self.width:
            return lead + text
        import textwrap  # only here: a terminal that needs it, not a pipe

        indent = " " * len(lead)
        paragraphs = text.split("\n")  # a line break of the text is kept; only long lines are broken
        lines = [
            textwrap.fill(
                paragraph,
                self.width,
                initial_indent=lead if number == 0 else indent,
                subsequent_indent=indent,
                # A path or a URL stays whole, so that it can be copied: a line may then be longer.
                break_long_words=False,
                break_on_hyphens=False,
            )
            or (lead if number == 0 else "")
            for number, paragraph in enumerate(paragraphs)
        ]
        return "\n".join(lines)


def colour_wanted(stream: TextIO, env: Mapping[str, str], *, refused: bool = False) -> bool:
    """Whether to colour what is written on ``stream``; ``refused``: the command line said
    ``--no-color``."""
    if refused or env.get("NO_COLOR", ""):
        return False
    if env.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    return _is_terminal(stream) and env.get("TERM") != "dumb"


def terminal_width(stream: TextIO, env: Mapping[str, str]) -> int | None:
    """The width to wrap at when ``stream`` is a terminal (``COLUMNS``, else the terminal's); None
    when it is not one, or its width is unknown (a terminal that says 0 columns)."""
    if not _is_terminal(stream):
        return None
    try:
        columns = int(env.get("COLUMNS", ""))
    except ValueError:
        try:
            columns = os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError):
            return None
    return columns if columns > 0 else None


def for_stdout(*, refused: bool = False, env: Mapping[str, str] | None = None) -> Style:
    """The style of verdicts written on stdout; ``refused``: ``--no-color`` was given."""
    env = os.environ if env is None else env
    return Style(colour_wanted(sys.stdout, env, refused=refused), terminal_width(sys.stdout, env))


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False
