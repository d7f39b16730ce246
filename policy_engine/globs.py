"""Glob matching for rules: tool names and command patterns, in time linear in the text.

A glob has two wildcards: ``*`` (any characters, spaces and newlines included) and ``?`` (one
character); it must match the whole text. Tool globs may also hold one level of ``{a,b}``
alternatives, expanded when a policy is compiled. Used by config (validation, compilation), the
analysis (command patterns read by a command's knowledge) and decide (matching rules).
"""

from __future__ import annotations

from functools import lru_cache

_EXACT, _PREFIX, _WALK = 0, 1, 2


@lru_cache(maxsize=8192)
def _shape(glob: str) -> tuple[int, str]:
    """How to match ``glob`` cheaply: exactly, as ``literal*``, or by the segment walk
    (``_walk``); and its literal prefix."""
    cut = min((i for i in (glob.find("*"), glob.find("?")) if i >= 0), default=-1)
    if cut < 0:
        return _EXACT, glob
    prefix = glob[:cut]
    if cut == len(glob) - 1 and glob[cut] == "*":
        return _PREFIX, prefix
    return _WALK, prefix


# A segment: the text between two stars, as its length and its literal pieces (offset, text) once
# its ``?`` are taken out, and the longest piece (offset, text), which ``_find`` looks for first.
_Segment = tuple[int, tuple[tuple[int, str], ...], tuple[int, str]]


def _segment(text: str) -> _Segment:
    pieces: list[tuple[int, str]] = []
    offset = 0
    for piece in text.split("?"):
        if piece:
            pieces.append((offset, piece))
        offset += len(piece) + 1
    return len(text), tuple(pieces), max(pieces, key=lambda p: len(p[1]), default=(0, ""))


@lru_cache(maxsize=4096)
def _segments(glob: str) -> tuple[_Segment, ...]:
    """The segments of ``glob`` between its stars: the first and the last are anchored at the ends
    of the text (empty when the glob starts or ends with ``*``), the middle ones float (runs of
    stars leave no empty segment among them). A glob without a star is one segment."""
    parts = glob.split("*")
    if len(parts) == 1:  # no star: one segment, the whole text
        return (_segment(glob),)
    middle = [part for part in parts[1:-1] if part]
    return tuple(_segment(part) for part in (parts[0], *middle, parts[-1]))


def _fits(segment: _Segment, text: str, at: int) -> bool:
    """Whether ``segment`` matches ``text`` at ``at`` (the caller knows it fits in the text)."""
    return all(text.startswith(piece, at + offset) for offset, piece in segment[1])


def _find(segment: _Segment, text: str, start: int, end: int, steps: list[int] | None) -> int:
    """The first position from ``start`` where ``segment`` matches within ``text[:end]``, or -1.

    The segment's longest literal piece is found by ``str.find``; a candidate where the rest does
    not match moves the search on by one character, so every position is tried at most once.
    ``steps`` (tests only) counts the positions passed over and tried."""
    length, _, (offset, anchor) = segment
    if not anchor:  # only `?`: any place with room
        return start if end - start >= length else -1
    last = end - length + offset  # the last place the anchor may start at
    while True:
        if last < start + offset:  # no room left (and str.find would read a negative end from the end)
            return -1
        found = text.find(anchor, start + offset, last + len(anchor))
        if steps is not None:
            steps[0] += max((found if found >= 0 else last) - (start + offset) + 1, 1)
        if found < 0:
            return -1
        at = found - offset
        if _fits(segment, text, at):
            return at
        start = at + 1


def _walk(glob: str, text: str, steps: list[int] | None = None) -> bool:
    """``glob`` matched against ``text`` in full, in time linear in the text (times a segment's
    length at worst, for segments with ``?``), never backtracking.

    A glob is its segments between stars: the first must match where the text starts, the last
    where it ends, and each middle one is placed at the first position it matches after the one
    before. The first place is always as good as any later one: what is left after it is a
    superset of what is left after a later place. So no choice is ever revisited.
    """
    segments = _segments(glob)
    if len(segments) == 1:  # no star: `?` and literals, one character each
        return len(text) == len(glob) and _fits(segments[0], text, 0)
    head, *middle, tail = segments
    end = len(text) - tail[0]
    if end < head[0] or not _fits(head, text, 0) or not _fits(tail, text, end):
        return False
    at = head[0]
    for segment in middle:
        found = _find(segment, text, at, end, steps)
        if found < 0:
            return False
        at = found + segment[0]
    return True


def glob_steps(glob: str, text: str) -> tuple[bool, int]:
    """Whether ``text`` matches ``glob`` (by the segment walk), and the steps the walk took:
    the text positions it passed over or tried, plus one. For tests: the work is linear."""
    steps = [1]
    return _walk(glob, text, steps), steps[0]


def glob_matches(glob: str, text: str) -> bool:
    """Whether ``text`` matches ``glob`` in full."""
    kind, prefix = _shape(glob)
    if kind == _EXACT:
        return text == glob
    if not text.startswith(prefix):
        return False
    return kind == _PREFIX or _walk(glob, text)


def literal_prefix(glob: str) -> str:
    """The characters of ``glob`` before its first wildcard."""
    return _shape(glob)[1]


def expand_braces(glob: str) -> tuple[str, ...]:
    """``{read,write}`` alternatives of a tool glob, expanded: ``("read", "write")``.

    One level of braces, as pi-control's tool globs allowed; ValueError for anything else.
    """
    if "[" in glob or "]" in glob:
        raise ValueError("[...] is not a wildcard in tool names; only *, ? and {a,b} are")
    start = glob.find("{")
    if start < 0:
        if "}" in glob:
            raise ValueError("unbalanced } in tool name")
        return (glob,)
    end = glob.find("}", start)
    if end < 0 or "{" in glob[start + 1 : end]:
        raise ValueError("unbalanced or nested { in tool name")
    head, tail = glob[:start], glob[end + 1 :]
    return tuple(
        variant
        for choice in glob[start + 1 : end].split(",")
        for variant in expand_braces(head + choice + tail)
    )
