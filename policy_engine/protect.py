"""pathProtection: gitignore-style patterns matched against the paths a tool call touches.

Patterns are compiled to regexes when the configuration is compiled (with pathspec, off the hot
path); here they are only matched. A path is tried both as a file and as a directory (with a
trailing slash), so protecting ``~/.ssh/`` also covers listing ``~/.ssh`` itself.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from .paths import inside

if TYPE_CHECKING:
    from .policy import Protection


@lru_cache(maxsize=1024)
def _regex(source: str) -> re.Pattern[str]:
    return re.compile(source)


def _relative(anchor: str, path: str, home: str, project_root: str) -> str | None:
    """``path`` relative to the directory a pattern with ``anchor`` is written against, if inside it."""
    if anchor in ("absolute", "anywhere"):
        return path.lstrip("/")
    base = home if anchor == "home" else project_root
    if path == base:
        return ""
    if not inside(path, base):
        return None
    return path[len(base.rstrip("/")) + 1 :]


def protections_hit(
    protection: tuple[Protection, ...], path: str, home: str, project_root: str
) -> list[Protection]:
    """The patterns that match ``path`` (one spelling of it)."""
    hits = []
    for entry in protection:
        relative = _relative(entry.anchor, path, home, project_root)
        if relative is None:
            continue
        regex = _regex(entry.regex)
        if regex.match(relative) or regex.match(relative + "/"):
            hits.append(entry)
    return hits
