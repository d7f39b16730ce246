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

import os
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from .paths import inside

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


def _base(anchor: str, home: str, project_root: str) -> str:
    """The directory a pattern with ``anchor`` is written against."""
    return home if anchor == "home" else project_root if anchor == "project" else "/"


def _relative(anchor: str, path: str, home: str, project_root: str) -> str | None:
    """``path`` relative to the directory a pattern with ``anchor`` is written against, if inside it."""
    base = _base(anchor, home, project_root)
    if path == base:
        return ""
    if not inside(path, base):
        return None
    return path[len(base.rstrip("/")) + 1 :]


def _matches(entry: Protection, path: str, home: str, project_root: str) -> bool:
    relative = _relative(entry.anchor, path, home, project_root)
    if relative is None:
        return False
    regex = _regex(entry.regex)
    return regex.match(relative) is not None or regex.match(relative + "/") is not None


def protections_hit(
    protection: tuple[Protection, ...],
    path: str,
    sense: str,
    tree: str | None,
    home: str,
    project_root: str,
) -> list[tuple[Protection, str]]:
    """The patterns that protect ``path`` (one spelling of it) against an access of ``sense``, each
    with how: ``PATH`` itself, or ``UNDER``/``UNSEARCHED`` for a directory that ``tree`` walks."""
    hits = []
    for entry in protection:
        if sense not in entry.senses:
            continue
        if _matches(entry, path, home, project_root):
            hits.append((entry, PATH))
        elif tree is not None:
            held = _tree_holds(entry, path, tree == "all", sense in _SEARCHED, home, project_root)
            if held is not False:
                hits.append((entry, UNDER if held else UNSEARCHED))
    return hits


def _tree_holds(
    entry: Protection, directory: str, hidden: bool, search: bool, home: str, project_root: str
) -> bool | None:
    """Whether walking ``directory`` touches a path ``entry`` protects (None: too large to tell);
    without ``search``, only a protected place that lies inside it counts."""
    if entry.anchor == "anywhere" and entry.fixed:  # a name that may sit in any directory (.claude)
        return os.path.lexists(os.path.join(directory, entry.fixed))
    base = _base(entry.anchor, home, project_root)
    fixed = os.path.join(base, entry.fixed) if entry.fixed else base
    if fixed != directory and inside(fixed, directory):  # the protected place lies inside the tree
        return (hidden or not _hidden_below(fixed, directory)) and os.path.lexists(fixed)
    if not search or entry.exact or not inside(directory, fixed) or not os.path.isdir(directory):
        return False  # the tree is beside the protected place, or the pattern names one path only
    if not hidden and entry.pattern.rsplit("/", 1)[-1].startswith("."):
        return False  # only hidden names match, and the walk skips them
    return _walk_finds(entry, directory, hidden, home, project_root)


def _hidden_below(path: str, directory: str) -> bool:
    """Whether reaching ``path`` from ``directory`` goes through a hidden name."""
    return any(part.startswith(".") for part in path[len(directory.rstrip("/")) + 1 :].split("/"))


@lru_cache(maxsize=256)
def _walk_finds(entry: Protection, directory: str, hidden: bool, home: str, project_root: str) -> bool | None:
    """Whether some entry under ``directory`` matches; None when the walk hits its limit first."""
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
                    if _matches(entry, item.path, home, project_root):
                        return True
                    if item.is_dir(follow_symlinks=False):
                        pending.append(item.path)
        except OSError:
            continue  # unreadable: the command cannot read it either
    return False
