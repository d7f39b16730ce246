"""pathProtection: gitignore-style patterns matched against the paths a tool call touches.

Patterns are compiled to regexes when the configuration is compiled (with pathspec, off the hot
path); here they are only matched. A path is tried both as a file and as a directory (with a
trailing slash), so protecting ``~/.ssh/`` also covers listing ``~/.ssh`` itself.

A directory that is walked whole (``grep -r KEY ~``, ``rm -r``, ``cp -r``) touches everything
under it: a pattern hits it when the place it names lies inside (``~/.ssh/`` under ``~``), and,
for a walk that reads, a pattern that can match at any depth (``.env*``, ``secrets/**/*.key``)
hits it when the tree holds a matching entry now, found by a bounded search (a tree too large to
search is a doubt).
"""

from __future__ import annotations

import fnmatch
import os
import re
from functools import lru_cache

from .paths import inside
from .record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from .policy import Protection

# Entries a walk looks at before it gives up: the tree may hold a protected path (a doubt).
WALK_LIMIT = 20000

# A walk that reads is searched for files a floating pattern (``.env*``) names: reading them leaks
# them. A walk that writes or deletes is not: such patterns name kinds of secrets, and deleting
# `node_modules` must not hinge on a `.env.example` somewhere inside it; the policy's own rules
# judge the delete, and protected places inside it (``~/.ssh/`` under ``~``) still count.
_SEARCHED = frozenset(("read", "exec", "unknown"))

# How a protection reaches a path: the path itself, something under it that a walk found, or
# possibly something under it (the tree was too large to search).
PATH, UNDER, UNSEARCHED = "path", "under", "unsearched"


@lru_cache(maxsize=1024)
def _regex(source: str) -> re.Pattern[str]:
    return re.compile(source)


class Guard(Record):
    """A protection placed on this machine: the directory its pattern is written against and, for a
    pattern with a leading literal path, that path (``/home/me/.ssh`` for ``~/.ssh/*``)."""

    entry: Protection
    base: str
    place: str


def guards(protection: tuple[Protection, ...], home: str, project_root: str) -> tuple[Guard, ...]:
    """The protections placed for a home directory and project root (built once per root)."""
    placed = []
    for entry in protection:
        base = home if entry.anchor == "home" else project_root if entry.anchor == "project" else "/"
        placed.append(Guard(entry, base, _place(base, entry.fixed)))
    return tuple(placed)


def _place(directory: str, relative: str) -> str:
    """``relative`` under ``directory`` (os.path.join, without its cost on the hot path)."""
    if not relative:
        return directory
    return directory + relative if directory.endswith("/") else f"{directory}/{relative}"


def _matches(guard: Guard, path: str) -> bool:
    entry = guard.entry
    if entry.anchor == "anywhere":
        if entry.fixed and f"/{entry.fixed}" not in path:  # cheap: the name must be in the path
            return False
    elif entry.exact:  # one place and everything under it: no regex needed
        return inside(path, guard.place)
    base = guard.base
    if path == base:
        relative = ""
    elif inside(path, base):
        relative = path[len(base.rstrip("/")) + 1 :]
    else:
        return False
    regex = _regex(entry.regex)
    return regex.match(relative) is not None or regex.match(relative + "/") is not None


def protections_hit(
    placed: tuple[Guard, ...], path: str, sense: str, tree: str | None
) -> list[tuple[Protection, str]]:
    """The patterns that protect ``path`` (one spelling of it) against an access of ``sense``, each
    with how: ``PATH`` itself, or ``UNDER``/``UNSEARCHED`` for a directory that ``tree`` walks
    (``all``, ``visible``, or ``all:GLOB``: only the entries whose name matches GLOB, find's -name)."""
    if tree is not None and not os.path.isdir(path):
        tree = None  # nothing is under a file, or under a directory that is not there
    hidden = names = None
    if tree is not None:
        kind, _, glob = tree.partition(":")
        hidden, names = kind == "all", glob or None
    hits = []
    for guard in placed:
        if sense not in guard.entry.senses:
            continue
        if _matches(guard, path):
            hits.append((guard.entry, PATH))
        elif hidden is not None:
            held = _tree_holds(guard, path, hidden, sense in _SEARCHED, names)
            if held is not False:
                hits.append((guard.entry, UNDER if held else UNSEARCHED))
    return hits


def _tree_holds(guard: Guard, directory: str, hidden: bool, search: bool, names: str | None) -> bool | None:
    """Whether walking ``directory`` touches a path ``guard`` protects (None: too large to tell);
    without ``search``, only a protected place that lies inside it counts; with ``names``, only
    entries whose name matches that glob are touched."""
    entry, place = guard.entry, guard.place
    if entry.anchor == "anywhere" and entry.fixed:  # a name that may sit in any directory (.claude)
        found = _place(directory, entry.fixed)
        return os.path.lexists(found) and (names is None or _holds_name(found, names, hidden))
    if place != directory and inside(place, directory):  # the protected place lies inside the tree
        reachable = hidden or not _hidden_below(place, directory)
        return reachable and os.path.lexists(place) and (names is None or _holds_name(place, names, hidden))
    if not search or entry.exact or not inside(directory, place):
        return False  # the tree is beside the protected place, or the pattern names one path only
    if not hidden and entry.pattern.rsplit("/", 1)[-1].startswith("."):
        return False  # only hidden names match, and the walk skips them
    return _walk_finds(guard, directory, hidden, names)


def _holds_name(place: str, names: str, hidden: bool) -> bool | None:
    """Whether ``place``, or an entry under it, has a name matching ``names`` (None: too many to tell)."""
    if fnmatch.fnmatchcase(os.path.basename(place), names):
        return True
    if not os.path.isdir(place):
        return False
    seen = 0
    for _, directories, files in os.walk(place):
        seen += len(directories) + len(files)
        if seen > WALK_LIMIT:
            return None
        if any(fnmatch.fnmatchcase(name, names) for name in (*directories, *files)):
            return True
    return False


def _hidden_below(path: str, directory: str) -> bool:
    """Whether reaching ``path`` from ``directory`` goes through a hidden name."""
    return any(part.startswith(".") for part in path[len(directory.rstrip("/")) + 1 :].split("/"))


@lru_cache(maxsize=256)
def _walk_finds(guard: Guard, directory: str, hidden: bool, names: str | None = None) -> bool | None:
    """Whether some entry under ``directory`` (named like ``names``, if given) matches; None when
    the walk hits its limit first."""
    seen = 0
    pending = [directory]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as listing:
                for item in listing:
                    seen += 1
                    if seen > WALK_LIMIT:
                        return None
                    if not hidden and item.name.startswith("."):
                        continue
                    named = names is None or fnmatch.fnmatchcase(item.name, names)
                    if named and _matches(guard, item.path):
                        return True
                    if item.is_dir(follow_symlinks=False):
                        pending.append(item.path)
        except OSError:
            continue  # unreadable: the command cannot read it either
    return False
