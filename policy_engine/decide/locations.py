"""Location resolution: which ``locations`` entry holds a path (the longest one wins)."""

from __future__ import annotations

from ..paths import inside, normalize

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..config.compiled import LocationEntry

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
    directories: Callable[[int, LocationEntry], tuple[str, ...]],
) -> LocationEntry | None:
    """The entry whose directory holds ``target`` with the longest spelling, or None.

    ``directories(index, entry)`` gives the spellings (literal and symlink-resolved) of an entry's
    directory, so that a location reached through a symlink still holds the paths below its real
    directory; the caller memoizes them.
    """
    best: LocationEntry | None = None
    best_length = -1
    for index, entry in enumerate(locations):
        for directory in directories(index, entry):
            if len(directory) > best_length and inside(target, directory):
                best, best_length = entry, len(directory)
    return best
