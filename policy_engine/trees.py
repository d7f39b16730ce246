"""Searches of directory trees known to give up, remembered for a short while.

A search of a tree stops after a budget of entries, and its answer is then a doubt (the tree may
hold what was looked for): `grep -r x /` or `find / -name '*.conf' | xargs` spend that whole budget
on every call. A long-lived engine (the daemon, a benchmark) remembers for :data:`FRESH_SECONDS`
that the same search of the same tree gave up, and gives up at once. Only giving up is
remembered: what a search found, or that it found nothing, is looked for afresh on every call
(files change). Giving up is the cautious answer (a doubt, which asks; a listing not followed), so
a stale memory can only make a call more cautious than a fresh search might have, for at most that
many seconds after the tree was too large.
"""

from __future__ import annotations

import time
from collections.abc import Hashable

FRESH_SECONDS = 30.0
_KEPT = 512  # searches remembered at most (forgotten all at once beyond it)

_gave_up: dict[Hashable, tuple[float, int]] = {}  # search -> (when it is forgotten, entries it saw)


def gave_up(search: Hashable) -> int | None:
    """How many entries ``search`` (a key naming the tree and everything that shapes the walk)
    saw before it gave up within the last :data:`FRESH_SECONDS` (what a walk now would cost the
    call's budget), or None when it did not."""
    found = _gave_up.get(search)
    if found is None:
        return None
    if found[0] < time.monotonic():
        del _gave_up[search]
        return None
    return found[1]


def give_up(search: Hashable, seen: int) -> None:
    """Remember that ``search`` ran out of its budget now, after ``seen`` entries."""
    if len(_gave_up) >= _KEPT:
        _gave_up.clear()
    _gave_up[search] = (time.monotonic() + FRESH_SECONDS, seen)


def forget() -> None:
    """Forget every search (tests that grow and shrink one tree)."""
    _gave_up.clear()
