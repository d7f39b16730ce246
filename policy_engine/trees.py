"""Searches of directory trees known to give up, remembered for a short while.

A search of a tree stops after a budget of entries, and its answer is then a doubt (the tree may
hold what was looked for): `grep -r x /` or `find / -name '*.conf' | xargs` spend that whole budget
on every call. A long-lived engine (the daemon, a benchmark) remembers for :data:`FRESH_SECONDS`
that a tree was too large, and gives up at once:

- that the same search of the same tree gave up (:func:`gave_up`);
- what the entries a walk of a too-large tree saw before it gave up hold (:func:`recall`): the
  few among them that some protection names, or their names. A later search of that tree for
  something else (`find / -name a`, then `find / -name b`) gives up at once when those entries do
  not hold all it looks for, as its own walk would have after the same entries.

Only cautious answers are remembered: giving up (a doubt, which asks), and a listing found not
clean (producers.py: not followed). What a search found, or that it found nothing, is looked for
afresh on every call (files change), and a remembered tree whose entries would hold everything a
search looks for is walked again. So a stale memory can only make a call more cautious than a
fresh search might have, for at most that many seconds.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Hashable
    from typing import Any

FRESH_SECONDS = 30.0
# What is remembered at most: searches, and entries of trees (the paths or names kept of each, about
# a hundred bytes apiece: some megabytes). What is no longer fresh is dropped as more comes; beyond
# either bound, everything is forgotten at once.
_KEPT = 512
_ENTRIES_KEPT = 100_000

# search -> (when it is forgotten, what it saw, how many of the tree's entries that keeps)
_remembered: dict[Hashable, tuple[float, Any, int]] = {}
_entries = 0  # the entries of trees remembered now


def recall(search: Hashable) -> Any:
    """What was remembered of ``search`` (a key naming the tree and everything that shapes the
    walk) within the last :data:`FRESH_SECONDS`, or None."""
    global _entries
    found = _remembered.get(search)
    if found is None:
        return None
    if found[0] < time.monotonic():
        del _remembered[search]
        _entries -= found[2]
        return None
    return found[1]


def remember(search: Hashable, what: Any, entries: int = 0) -> None:
    """Remember ``what`` a walk for ``search`` saw of a tree too large to search, from now
    (``entries``: how many of the tree's entries it keeps)."""
    global _entries
    now = time.monotonic()
    for stale in [key for key, (until, _, _) in _remembered.items() if until < now]:
        _entries -= _remembered.pop(stale)[2]
    previous = _remembered.pop(search, None)
    if previous is not None:
        _entries -= previous[2]
    if len(_remembered) >= _KEPT or _entries + entries > _ENTRIES_KEPT:
        forget()
    _remembered[search] = (now + FRESH_SECONDS, what, entries)
    _entries += entries


def gave_up(search: Hashable) -> int | None:
    """How many entries ``search`` saw before it gave up within the last :data:`FRESH_SECONDS`
    (what a walk now would cost the call's budget), or None when it did not."""
    seen = recall(("gave up", search))
    return seen if isinstance(seen, int) else None


def give_up(search: Hashable, seen: int) -> None:
    """Remember that ``search`` ran out of its budget now, after ``seen`` entries."""
    remember(("gave up", search), seen)


def forget() -> None:
    """Forget every search (tests that grow and shrink one tree)."""
    global _entries
    _remembered.clear()
    _entries = 0
