"""What searches of directory trees found, remembered for a short while.

A search of a tree stops after a budget of entries, and its answer is then a doubt (the tree may
hold what was looked for): `grep -r x /` or `find / -name '*.conf' | xargs` spend that whole budget
on every call. And a search that finishes (`grep -r TODO .` in a project of ten thousand files)
walks the whole tree on every call. A long-lived engine (the daemon, a benchmark) remembers, for
at most :data:`FRESH_SECONDS`:

- that the same search of the same tree gave up (:func:`gave_up`);
- what the entries a walk of a too-large tree saw before it gave up hold (:func:`recall`): the
  few among them that some protection names, or their names. A later search of that tree for
  something else (`find / -name a`, then `find / -name b`) gives up at once when those entries do
  not hold all it looks for, as its own walk would have after the same entries;
- a listing found not clean (producers.py: not followed);
- what a search that finished found (:func:`searched`: the protections a tree holds, protect.py;
  a listing proven clean, producers.py), with the :func:`stamp` of every directory it listed. It
  is used again only while every one of them is unchanged (an entry added, removed or renamed in
  a directory changes its times), and never when a directory it listed had changed just before
  (:data:`RACY_NS`): then a second change could keep the same times.

The first three are cautious answers: a stale one can only make a call more cautious than a fresh
search might have, for at most that many seconds. The last is checked against the disk before
every use, and bounded in time for file systems whose directory times cannot be trusted.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Hashable, Iterable
    from typing import Any, TypeAlias

    # A directory's device, inode, modification and change times (ns).
    Stamp: TypeAlias = tuple[int, int, int, int]

FRESH_SECONDS = 30.0
# A directory changed less than this long before it was looked at may change again within the same
# tick of a coarse clock (FAT's 2 s) and keep its times: what was seen in it is not kept.
RACY_NS = 2_000_000_000


class _Memory:
    """Answers remembered for :data:`FRESH_SECONDS`, each with its size (the entries or directories
    it keeps). What is no longer fresh is dropped as more comes; beyond ``kept`` answers or
    ``most`` entries in all, everything is forgotten at once."""

    __slots__ = ("answers", "entries", "kept", "most")

    def __init__(self, kept: int, most: int) -> None:
        self.answers: dict[Hashable, tuple[float, Any, int]] = {}  # key -> (forgotten when, what, size)
        self.entries = 0
        self.kept = kept
        self.most = most

    def recall(self, key: Hashable) -> Any:
        found = self.answers.get(key)
        if found is None:
            return None
        if found[0] < time.monotonic():
            del self.answers[key]
            self.entries -= found[2]
            return None
        return found[1]

    def remember(self, key: Hashable, what: Any, entries: int) -> None:
        now = time.monotonic()
        # Every answer is kept equally long, so the dict's order is their age: the stale ones lead.
        while self.answers:
            oldest = next(iter(self.answers))
            if self.answers[oldest][0] >= now:
                break
            self.entries -= self.answers.pop(oldest)[2]
        previous = self.answers.pop(key, None)
        if previous is not None:
            self.entries -= previous[2]
        if len(self.answers) >= self.kept or self.entries + entries > self.most:
            self.forget()
        self.answers[key] = (now + FRESH_SECONDS, what, entries)
        self.entries += entries

    def forget(self) -> None:
        self.answers.clear()
        self.entries = 0


# Kept apart, so that the many small searches of a session never push out a tree found too large.
# About 10 MB each at most: an entry of a too-large tree is a path (about a hundred bytes), a
# directory of a finished search a path and its stamp (about 350).
_cautious = _Memory(512, 100_000)
_searched = _Memory(512, 30_000)


def recall(search: Hashable) -> Any:
    """What was remembered of ``search`` (a key naming the tree and everything that shapes the
    walk) within the last :data:`FRESH_SECONDS`, or None."""
    return _cautious.recall(search)


def remember(search: Hashable, what: Any, entries: int = 0) -> None:
    """Remember ``what`` a walk for ``search`` saw of a tree too large to search, from now
    (``entries``: how many of the tree's entries it keeps)."""
    _cautious.remember(search, what, entries)


def gave_up(search: Hashable) -> int | None:
    """How many entries ``search`` saw before it gave up within the last :data:`FRESH_SECONDS`
    (what a walk now would cost the call's budget), or None when it did not."""
    seen = recall(("gave up", search))
    return seen if isinstance(seen, int) else None


def give_up(search: Hashable, seen: int) -> None:
    """Remember that ``search`` ran out of its budget now, after ``seen`` entries."""
    remember(("gave up", search), seen)


def searched(search: Hashable) -> Any:
    """What ``search`` found when it last finished, within :data:`FRESH_SECONDS`, while every
    directory it listed is unchanged; :data:`ONCE` when it was made but what it found cannot be
    used (it took no stamps then, or a directory changed since): the walk now takes them, as a
    :class:`Looked`; None when it was not made."""
    found = _searched.recall(search)
    if found is None or found is ONCE:
        return found
    stamps, what = found
    return what if unchanged(stamps) else ONCE


def finished(search: Hashable, what: Any, looked: Looked | None) -> None:
    """Remember that ``search`` finished now, having found ``what``: kept with the stamps ``looked``
    gathered as its walk went, when no directory it listed had changed just before; else only that
    it was made (the first search of a tree takes no stamps: a process that searches it once pays
    for none)."""
    if looked is not None and looked.settled:
        _searched.remember(search, (tuple(looked.stamps), what), len(looked.stamps))
    else:
        _searched.remember(search, ONCE, 0)


ONCE = "searched once"  # what :func:`searched` says of a search whose findings cannot be used


class Looked:
    """The stamps of the directories a walk lists, gathered as it goes (:meth:`directory`, before
    each is listed: a change after shows next time). ``settled`` turns false, and nothing more is
    gathered, when a directory could not be looked at or had changed just before (:data:`RACY_NS`):
    what the walk found is then not kept."""

    __slots__ = ("now", "settled", "stamps")

    def __init__(self) -> None:
        self.now = time.time_ns()
        self.stamps: list[tuple[str, Stamp]] = []
        self.settled = True

    def directory(self, path: str) -> None:
        if self.settled:
            found = stamp(path)
            if found is not None and settled(found, self.now):
                self.stamps.append((path, found))
            else:
                self.settled = False


def unchanged(stamps: Iterable[tuple[str, Stamp]]) -> bool:
    """Whether every directory is as its stamp says (looked at now)."""
    return all(stamp(path) == found for path, found in stamps)


def stamp(directory: str) -> Stamp | None:
    """What tells that ``directory`` still holds the entries it held: its device, inode,
    modification and change times (an entry added, removed or renamed in it changes the times, a
    directory put in its place the inode). None when it cannot be looked at."""
    try:
        info = os.stat(directory)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns


def settled(found: Stamp | None, now: int) -> bool:
    """Whether a directory of stamp ``found``, looked at ``now`` (``time.time_ns()``), had not
    changed just before (:data:`RACY_NS`): what was seen in it may be kept."""
    return found is not None and max(found[2], found[3]) < now - RACY_NS


def forget() -> None:
    """Forget every search (tests that grow and shrink one tree)."""
    _cautious.forget()
    _searched.forget()
