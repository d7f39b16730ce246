"""Location resolution: which ``locations`` entry holds a path (the longest one wins)."""

from __future__ import annotations

from ..paths import DirectoryIndex, inside, normalize

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


class LocationIndex:
    """Locations indexed by their directories, so that the one holding a path is found by walking
    the path's components up (a handful of lookups) instead of trying every location: a tree walk
    reaches every location below it, and each of those must be located in turn. The answer is the
    entry whose directory holds the path with the longest spelling, the first of equals, as trying
    every location in order gives (tests/properties checks it)."""

    __slots__ = ("_index", "_loose")

    def __init__(
        self,
        locations: tuple[LocationEntry, ...],
        directories: Callable[[int, LocationEntry], tuple[str, ...]],
    ) -> None:
        # Each spelling with its place in the locations' order, which settles ties.
        self._index = DirectoryIndex()
        self._loose: list[tuple[int, str, LocationEntry]] = []  # relative spellings: tried each time
        order = 0
        for index, entry in enumerate(locations):
            for directory in directories(index, entry):
                spelled = (order, directory, entry)
                order += 1
                if directory.startswith("/"):
                    self._index.add(directory, spelled)
                else:
                    self._loose.append(spelled)

    def resolve(self, target: str) -> LocationEntry | None:
        """The entry whose directory holds ``target`` with the longest spelling, or None."""
        if not self._index and not self._loose:  # a layer without locations: its every target
            return None
        candidates: list[tuple[int, str, LocationEntry]]
        if self._loose or not target.startswith("/"):
            candidates = [*self._loose, *self._index.everything()]
        else:
            candidates = self._index.holding(target)
        best: tuple[int, str, LocationEntry] | None = None
        for spelled in candidates:
            if inside(target, spelled[1]) and (
                best is None or (len(spelled[1]), -spelled[0]) > (len(best[1]), -best[0])
            ):
                best = spelled
        return best[2] if best is not None else None
