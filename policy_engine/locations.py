"""Location resolution: which ``locations`` entry holds a path (the longest one wins)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .paths import inside, normalize

if TYPE_CHECKING:
    from collections.abc import Callable

    from .policy import LocationEntry

CWD = "$cwd"


def location_directory(entry: LocationEntry, cwd: str, home: str) -> str:
    """The absolute directory a location key names: ``$cwd``, ``$cwd/sub``, ``~/x``, ``/x`` or relative."""
    key = entry.key
    if key == CWD:
        return normalize(cwd, "/", home)
    if key.startswith(CWD + "/"):
        return normalize(key[len(CWD) + 1 :], cwd, home)
    return normalize(key, entry.base or cwd, home)


def resolve_location(
    locations: tuple[LocationEntry, ...],
    target: str,
    cwd: str,
    home: str,
    spell: Callable[[str], tuple[str, ...]],
) -> LocationEntry | None:
    """The entry whose directory holds ``target`` with the longest spelling, or None.

    ``spell`` gives a directory's spellings (literal and symlink-resolved), so that a location
    reached through a symlink still holds the paths below its real directory.
    """
    best: LocationEntry | None = None
    best_length = -1
    for entry in locations:
        for directory in spell(location_directory(entry, cwd, home)):
            if len(directory) > best_length and inside(target, directory):
                best, best_length = entry, len(directory)
    return best
