"""Location resolution: which ``locations`` entry holds a path (the longest one wins)."""

from __future__ import annotations

from .. import paths
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

    __slots__ = ("_above", "_empty", "_index", "_loose")

    def __init__(
        self,
        locations: tuple[LocationEntry, ...],
        directories: Callable[[int, LocationEntry], tuple[str, ...]],
    ) -> None:
        # Each spelling with its place in the locations' order, which settles ties.
        self._index = DirectoryIndex()
        # Per directory (as spelt, and the case folding): whether one answer holds for all the
        # paths in it, and the best of the entries above them (see _above_in). The index does not
        # change once filled, so this is exact.
        self._above: dict[tuple[str, bool], tuple[bool, Spelled | None]] = {}
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
        self._empty = not self._index and not self._loose  # a layer without locations

    def resolve(self, target: str) -> LocationEntry | None:
        """The entry whose directory holds ``target`` with the longest spelling, or None."""
        if self._empty:  # a layer without locations: its every target
            return None
        if self._loose or not target.startswith("/"):
            return _entry(_longest(target, [*self._loose, *self._index.everything()]))
        directory, _, name = target.rpartition("/")
        # The many paths of one directory (`rm *.o`, a walk's entries) share what lies above them;
        # `.`, `..` or a trailing slash is not a name in the directory, and is looked up whole.
        if name not in ("", ".", ".."):
            key = (directory, paths.CASE_INSENSITIVE)
            found = self._above.get(key)
            if found is None:
                if len(self._above) >= 4096:
                    self._above.clear()
                found = self._above[key] = _above_in(directory, self._index.above(target))
            shared, above = found
            if shared:
                return _entry(_longest(target, self._index.at(target), above))
        return _entry(_longest(target, self._index.holding(target)))


Spelled = tuple[int, str, "LocationEntry"]  # a location's place in the order, its directory, itself


def _above_in(directory: str, above: list[Spelled]) -> tuple[bool, Spelled | None]:
    """(True, the best of ``above`` that holds every path ``directory/NAME``), or (False, None)
    when whether one holds such a path depends on NAME. ``above``: the entries filed above such a
    path.

    A path is in a location's directory when it starts with that directory and a slash (it is not
    the directory itself: the directory's components are above the path's). Every path of
    ``directory`` starts with ``directory/``: a location that prefix starts with holds them all;
    one that parts from it holds none; one that goes on past it (spelt with more slashes than the
    path, ``/a//``) holds those whose NAME continues it."""
    folded = paths.fold(directory) + "/"
    holding = []
    for spelled in above:
        place = paths.fold(spelled[1])
        prefix = place if place.endswith("/") else place + "/"
        if folded.startswith(prefix):
            holding.append(spelled)
        elif prefix.startswith(folded):
            return False, None
    return True, _longest(directory + "/", holding)


def _entry(spelled: Spelled | None) -> LocationEntry | None:
    return spelled[2] if spelled is not None else None


def _longest(target: str, candidates: list[Spelled], best: Spelled | None = None) -> Spelled | None:
    """The candidate whose directory holds ``target`` with the longest spelling, the first of
    equals (``best``: one already known to hold it)."""
    for spelled in candidates:
        if inside(target, spelled[1]) and (
            best is None or (len(spelled[1]), -spelled[0]) > (len(best[1]), -best[0])
        ):
            best = spelled
    return best
