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

from .. import paths, trees
from ..model import TreeKind
from ..paths import DirectoryIndex, fold, inside
from ..record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Final, Literal, TypeAlias

    # The names a walk skips: file globs and directory globs (Walk.skip_files, .skip_directories).
    Skips: TypeAlias = tuple[tuple[str, ...], tuple[str, ...]] | None

    from ..config.compiled import Protection
    from ..model import Walk

# Entries a search looks at before it gives up (the tree may hold a protected path: a doubt): in one
# tree, and in all the trees of one tool call together (a glob can name hundreds of them).
WALK_LIMIT = 20000
CALL_LIMIT = 50000

# A walk that reads is searched for files a floating pattern (``.env*``) names: reading them leaks
# them. A walk that writes or deletes is not: such patterns name kinds of secrets, and deleting
# `node_modules` must not hinge on a `.env.example` somewhere inside it; the policy's own rules
# judge the delete, and protected places inside it (``~/.ssh/`` under ``~``) still count.
_SEARCHED = frozenset(("read", "exec", "unknown"))

# How a protection reaches a path: the path itself, something under it that a walk found, the
# same among the names the walk is narrowed to (it seeks them: `rg -g '.env*'`), or possibly
# something under it (the tree was too large to search).
PATH, UNDER, SOUGHT, UNSEARCHED = "path", "under", "sought", "unsearched"


@lru_cache(maxsize=1024)
def _regex(source: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(source, re.IGNORECASE if ignore_case else 0)


class Guard(Record):
    """A protection placed on this machine: the directory its pattern is written against and, for a
    pattern with a leading literal path, that path (``/home/me/.ssh`` for ``~/.ssh/*``)."""

    entry: Protection
    base: str
    place: str


def guards(
    protection: tuple[Protection, ...], home: str, project_root: str, cwd: str | None = None
) -> tuple[Guard, ...]:
    """The protections placed for a home directory, project root and working directory (built once
    per triple). Each is placed as written and where symbolic links lead: a home directory reached
    through a link (/home -> /usr/home) is protected under its real path too, which `pwd -P` names.
    A pattern taken from the project root is placed at the working directory as well: a project file
    found higher up moves the root, and must not move a protection away from where it held."""
    placed: dict[tuple[Any, str, str], Guard] = {}
    reals: dict[str, str] = {}  # each base's real path: most patterns share the home or the project
    for entry in protection:
        if entry.anchor == "home":
            bases = [home]
        elif entry.anchor == "project":
            bases = [project_root] + ([cwd] if cwd and cwd != project_root else [])
        else:
            bases = ["/"]
        for base in bases:
            place = _place(base, entry.fixed)
            for spelled_base, spelled_place in {(base, place), _real(base, place, entry, reals)}:
                placed.setdefault(
                    (entry, spelled_base, spelled_place), Guard(entry, spelled_base, spelled_place)
                )
    return tuple(placed.values())


def _real(base: str, place: str, entry: Protection, reals: dict[str, str]) -> tuple[str, str]:
    """(base, place) with the symbolic links along them resolved (``reals``: the bases resolved)."""
    if entry.anchor == "absolute" or entry.anchor == "anywhere":
        return base, os.path.realpath(place) if entry.fixed else place
    real = reals.get(base)
    if real is None:
        real = reals[base] = os.path.realpath(base)
    return real, _place(real, entry.fixed)


def _place(directory: str, relative: str) -> str:
    """``relative`` under ``directory`` (os.path.join, without its cost on the hot path)."""
    if not relative:
        return directory
    return directory + relative if directory.endswith("/") else f"{directory}/{relative}"


class Shield:
    """The guards placed for one home, project root and working directory, indexed so that a path
    is checked against all of them at once rather than one by one: a guard that names one place is
    found by walking the path's components up a :class:`~policy_engine.paths.DirectoryIndex`, and
    the patterns written against each base directory are tried as one combined regex first, once
    the shield has named enough paths to repay compiling it (most paths match none). Whatever the
    index proposes is confirmed by :func:`matches`, so the answer is the same as asking every guard
    in turn (tests/properties checks it)."""

    __slots__ = (
        "_bases",
        "_by_sense",
        "_case",
        "_combined",
        "_folded_bases",
        "_gate",
        "_order",
        "_places",
        "_unindexed",
        "_uses",
        "floating",
        "guards",
    )

    def __init__(self, placed: tuple[Guard, ...]) -> None:
        self.guards = placed
        # What a search of a tree can look for (_tree_holds): patterns that may match at any depth.
        self.floating = tuple(
            g for g in placed if not g.entry.exact and not (g.entry.anchor == "anywhere" and g.entry.fixed)
        )
        self._case = paths.CASE_INSENSITIVE  # what the index was folded for (tests change it)
        self._order = {guard: index for index, guard in enumerate(placed)}
        self._by_sense: dict[str, tuple[Guard, ...]] = {}
        self._places = DirectoryIndex()  # the guards that name one place (and what is under it)
        self._unindexed: list[Guard] = []  # places that are not absolute: tried one by one
        patterned: dict[str, list[Guard]] = {}
        for guard in placed:
            if guard.entry.exact and guard.entry.anchor != "anywhere":
                if guard.place.startswith("/"):
                    self._places.add(guard.place, guard)
                else:
                    self._unindexed.append(guard)
            else:
                patterned.setdefault(guard.base, []).append(guard)
        # Per base directory: its folded spelling, the prefix of what lies below it (as inside()
        # tests it), where a path's part relative to it starts, the combined regex, the guards.
        self._bases = [
            (base, fold(base), _below(fold(base)), len(base.rstrip("/")) + 1, group)
            for base, group in patterned.items()
        ]
        self._folded_bases = frozenset(folded for _, folded, *_ in self._bases)
        self._combined: list[re.Pattern[str] | None] | None = None
        self._gate: re.Pattern[str] | None = None  # finds a text every patterned path holds
        self._uses = 0

    def _patterns(self) -> list[re.Pattern[str] | None] | None:
        """Each base's combined regex, once this shield has named enough paths to repay compiling
        them (a few milliseconds): a hook's one call names a few paths, and tries each guard."""
        if self._combined is None:
            self._uses += 1
            if self._uses < _COMBINE_AFTER:
                return None
            self._combined = [_combined(group) for *_, group in self._bases]
            self._gate = _gate([guard for *_, group in self._bases for guard in group])
        return self._combined

    def under(self, directory: str) -> Callable[[str], list[Guard]]:
        """:meth:`naming` for the entries below ``directory`` (a tree being walked): where every
        base holds the directory, each entry's path relative to a base is a slice at a known
        place, and only the combined regexes are tried before a guard is confirmed."""
        if self._case is not paths.CASE_INSENSITIVE:
            self.__init__(self.guards)  # type: ignore[misc]
        if self._places or self._unindexed or not all(inside(directory, base[0]) for base in self._bases):
            return self.naming
        cuts = [(cut, group) for _, _, _, cut, group in self._bases]

        def naming(path: str) -> list[Guard]:
            found: list[Guard] = []
            patterns = self._patterns()
            if self._gate is not None and self._gate.search(path) is None:
                return found  # holds none of the texts the patterns need (entries lie below bases)
            for index, (cut, group) in enumerate(cuts):
                combined = patterns[index] if patterns is not None else None
                if combined is not None:
                    relative = path[cut:]
                    if not (combined.match(relative) or combined.match(relative + "/")):
                        continue
                found += [guard for guard in group if _matches(guard, path)]
            if len(found) > 1:
                found.sort(key=self._order.__getitem__)
            return found

        return naming

    def for_sense(self, sense: str) -> tuple[Guard, ...]:
        """The guards that apply to an access of ``sense``, in the order they were placed."""
        found = self._by_sense.get(sense)
        if found is None:
            found = self._by_sense[sense] = tuple(g for g in self.guards if sense in g.entry.senses)
        return found

    def naming(self, path: str) -> list[Guard]:
        """The guards whose pattern names ``path`` itself, in the order they were placed."""
        if self._case is not paths.CASE_INSENSITIVE:
            self.__init__(self.guards)  # type: ignore[misc]
        found = [guard for guard in self._unindexed if _matches(guard, path)] if self._unindexed else []
        if self._places:
            held = self._places.holding(path) if path.startswith("/") else self._places.everything()
            if held:
                found += [guard for guard in held if _matches(guard, path)]
        folded = fold(path)
        patterns = self._combined if self._combined is not None else self._patterns()
        gate = self._gate
        # A path that holds none of the texts the patterns need is named by none of them.
        skip = gate is not None and gate.search(path) is None and folded not in self._folded_bases
        for index, (_, folded_base, below, cut, group) in enumerate(() if skip else self._bases):
            if folded == folded_base:
                relative = ""
            elif folded.startswith(below):  # inside(path, base), its spellings folded once
                relative = path[cut:]
            else:
                continue
            combined = patterns[index] if patterns is not None else None
            if combined is None or combined.match(relative) or combined.match(relative + "/"):
                found += [guard for guard in group if _matches(guard, path)]
        if len(found) > 1:
            found.sort(key=self._order.__getitem__)
        return found


def _below(directory: str) -> str:
    """The prefix of every path strictly below ``directory`` (as :func:`paths.inside` has it)."""
    return directory if directory.endswith("/") else directory + "/"


def _names_matcher(names: tuple[str, ...] | None) -> Callable[[str], object] | None:
    """:func:`named` for one walk: the globs as one regex (fnmatchcase is a match of each glob's
    translation); None when the walk is not narrowed to names."""
    if names is None:
        return None
    return _regex("|".join(f"(?:{fnmatch.translate(glob)})" for glob in names), False).match


def _combined(group: list[Guard]) -> re.Pattern[str] | None:
    """One regex that matches where any of ``group``'s patterns does (their named groups made
    plain: the names repeat), or None when they cannot be combined (then each is tried)."""
    plain = [re.sub(_GROUP_NAME, "(?:", guard.entry.regex) for guard in group]
    try:
        return _regex("|".join(f"(?:{source})" for source in dict.fromkeys(plain)), paths.CASE_INSENSITIVE)
    except re.error:
        return None


def _gate(patterned: list[Guard]) -> re.Pattern[str] | None:
    """A regex that finds, in any path one of ``patterned`` names, a piece of text its pattern
    needs (:func:`needed_text`): a path it does not find in is named by none of them (most paths),
    at the cost of one search. None when a pattern needs no text we can tell (``*``)."""
    needed = [needed_text(guard.entry.pattern) for guard in patterned]
    if not needed or None in needed:
        return None
    texts = set(filter(None, needed))
    least = sorted(text for text in texts if not any(other != text and other in text for other in texts))
    return _regex("|".join(map(re.escape, least)), paths.CASE_INSENSITIVE)


def needed_text(pattern: str) -> str | None:
    """The longest piece of literal text that every path ``pattern`` (gitignore-style) names holds,
    as the path's part relative to the pattern's base: ``.env`` for ``.env*``, ``.git/config`` for
    ``**/.git/config``, ``work/main`` for ``/work/main/*.pth``. Wildcards and classes match other
    text and ``**`` whole directories (or none), so only what lies between them is certain, its
    slashes at either end left out (``**/`` may match nothing). None when that cannot be told: an
    escape, blanks at an end (gitignore's own rules), or nothing literal (``*``)."""
    body = pattern[1:] if pattern.startswith("~") else pattern
    if "\\" in body or body != body.strip():
        return None
    pieces = _regex(_WILDCARDS, False).split(body)
    if any("[" in piece or "]" in piece for piece in pieces):
        return None  # a class not closed, or a bracket we would have to read as gitignore does
    longest = max((piece.strip("/") for piece in pieces), key=len)
    return longest or None


_WILDCARDS = r"\[[^\]]*\]|[*?]"  # a class, or a wildcard (compiled where used: off the hook's import)


_COMBINE_AFTER = 16  # paths a shield names before it compiles its combined regexes

_GROUP_NAME = r"\(\?P<\w+>"  # compiled where used (re keeps it): off the hook's import


def matches(guard: Guard, path: str) -> bool:
    """Whether ``guard``'s pattern names ``path`` itself (as a file or as a directory)."""
    return _matches(guard, path)


def _matches(guard: Guard, path: str) -> bool:
    entry = guard.entry
    if not _pattern_names(guard, path):
        return False
    # A name the pattern leaves alone (.env.example for .env*): looked at last, on the few paths
    # the pattern names, so that a process that meets none never compiles the exceptions.
    return not (entry.excepted and _regex(entry.excepted, paths.CASE_INSENSITIVE).match(_last(path)))


def _pattern_names(guard: Guard, path: str) -> bool:
    """Whether ``guard``'s pattern, its exceptions aside, names ``path``."""
    entry = guard.entry
    if entry.anchor == "anywhere":
        if entry.fixed and f"/{fold(entry.fixed)}" not in fold(path):  # cheap: the name must be there
            return False
    elif entry.exact:  # one place and everything under it: no regex needed
        return inside(path, guard.place)
    base = guard.base
    if fold(path) == fold(base):
        relative = ""
    elif inside(path, base):
        relative = path[len(base.rstrip("/")) + 1 :]
    else:
        return False
    # Every path the pattern names holds its needed text: most paths are told apart by it, without
    # compiling the pattern's regex (a hook's one call would compile one per guard for nothing).
    needed = _needed(entry.pattern)
    if needed is not None and not paths.CASE_INSENSITIVE and needed not in relative:
        return False
    regex = _regex(entry.regex, paths.CASE_INSENSITIVE)
    return regex.match(relative) is not None or regex.match(relative + "/") is not None


@lru_cache(maxsize=1024)
def _needed(pattern: str) -> str | None:
    return needed_text(pattern)


def _last(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


class Search:
    """The searches of one tool call's trees. Each tree is walked once for every pattern looked for
    in it, and all of them share :data:`CALL_LIMIT` entries. Beyond the call, a long-lived engine
    (the daemon) remembers for a short while that a tree was too large, and what a search that
    finished found, used again only while every directory it listed is unchanged
    (:mod:`~policy_engine.trees`)."""

    __slots__ = ("_found", "left")

    def __init__(self) -> None:
        self.left = CALL_LIMIT
        self._found: dict[tuple[Any, ...], dict[Guard, bool] | None] = {}

    def finds(
        self,
        wanted: tuple[Guard, ...],
        directory: str,
        hidden: bool,
        names: tuple[str, ...] | None,
        ignoring: bool = False,
        following: bool = False,
        skips: Skips = None,
        every: tuple[Guard, ...] = (),
    ) -> dict[Guard, bool] | None:
        """Which of ``wanted`` match some entry under ``directory`` (named like ``names``, if given;
        hidden entries only if ``hidden``; if ``ignoring``, not one git ignores; if ``following``,
        or what a symbolic link inside leads to; not the files and directories ``skips`` names);
        None when the search ran out of entries first. ``every`` (a superset of ``wanted``: the
        call's guards) is what a tree found too large is remembered against, so that a search of it
        for other guards or names gives up at once too."""
        key = (wanted, directory, hidden, names, ignoring, following, skips)
        if key not in self._found:
            self._found[key] = self._search(key, every)
        return self._found[key]

    def _search(self, key: tuple[Any, ...], every: tuple[Guard, ...]) -> dict[Guard, bool] | None:
        wanted, directory, hidden, names, ignoring, following, skips = key
        # git's ignoring makes what is walked depend on what is found: such walks are not replayed.
        tree = None if ignoring else ("tree", directory, hidden, following, skips)
        if self.left >= WALK_LIMIT:  # a whole tree's budget: the walk would give up as it did
            spent = trees.gave_up(key)
            held: _HeldTree | None = trees.recall(tree) if tree and spent is None else None
            if held is not None and held.gives_up(wanted, names):
                spent = held.spent
            if spent is not None:
                self.left -= spent  # as the walk would: the call's other searches get the rest
                return None
        # Where links lead is not in the directories' listings: such a search is not kept.
        finished = None if following else ("finished", key, paths.CASE_INSENSITIVE)
        kept = trees.searched(finished) if finished is not None else None
        if isinstance(kept, _Finished) and kept.spent <= min(WALK_LIMIT, self.left) and kept.agrees():
            self.left -= kept.spent  # as the walk would, on the same entries
            return dict(kept.found)
        budget = self.left
        visited: list[str] | None = [] if tree and budget >= WALK_LIMIT else None
        looked = _Looked() if kept is not None else None  # stamps from the second search on
        found = self._walk(wanted, directory, hidden, names, ignoring, following, skips, visited, looked)
        if found is None and budget >= WALK_LIMIT:  # the tree's own budget ran out
            trees.give_up(key, budget - self.left)
            if visited is not None and set(wanted).issubset(every):
                held = _HeldTree(visited, every, directory, budget - self.left)
                trees.remember(tree, held, len(visited))
        elif found is not None and finished is not None:
            ignored = tuple(looked.ignored) if looked is not None else ()
            trees.finished(finished, _Finished(tuple(found.items()), budget - self.left, ignored), looked)
        return found

    def _walk(
        self,
        wanted: tuple[Guard, ...],
        directory: str,
        hidden: bool,
        names: tuple[str, ...] | None,
        ignoring: bool,
        following: bool,
        skips: Skips,
        visited: list[str] | None = None,
        looked: _Looked | None = None,
    ) -> dict[Guard, bool] | None:
        """The walk itself; the paths of the entries it looks at are added to ``visited`` if given
        (a link it follows, as ``"\0"`` + its path), and what its answer rests on to ``looked``."""
        missing = list(wanted)
        naming = Shield(wanted).under(directory)  # only what is looked for: a tree's entries are many
        sought = _names_matcher(names)
        limit = min(WALK_LIMIT, self.left)
        seen = 0
        pending = [directory]
        try:
            while pending and missing:
                current = pending.pop()
                if looked is not None:
                    looked.directory(current)  # before it is listed: a change after shows next time
                try:
                    with os.scandir(current) as listing:
                        for item in listing:
                            seen += 1
                            if seen > limit:
                                return None
                            name = item.name
                            if not hidden and name.startswith("."):
                                continue
                            hits = []
                            link = following and item.is_symlink()
                            if link:
                                hits = [g for g in missing if _leads_to(g, item.path)]
                            descend = item.is_dir(follow_symlinks=False)
                            if skips is not None and _skipped(name, descend, skips):
                                continue  # the command skips it (grep --exclude, --exclude-dir)
                            if visited is not None:
                                visited.append("\0" + item.path if link else item.path)
                            if sought is None or sought(name):
                                matched = naming(item.path)
                                if matched:
                                    matched = [g for g in matched if g in missing]
                                if matched and ignoring and _ignored(item.path, looked):
                                    matched, descend = [], False  # ripgrep skips it and its contents
                                hits += matched
                            if hits:
                                missing = [g for g in missing if g not in hits]
                            if descend:
                                pending.append(item.path)
                except OSError:
                    continue  # unreadable: the command cannot read it either
        finally:
            self.left -= seen
        return {guard: guard not in missing for guard in wanted}

    def holds_name(self, place: str, names: tuple[str, ...]) -> bool | None:
        """Whether ``place``, or an entry under it, has a name matching ``names`` (None: too many to
        tell)."""
        if named(os.path.basename(place), names):
            return True
        if not os.path.isdir(place):
            return False
        key = ("holds", place, names)
        if self.left >= WALK_LIMIT:
            spent = trees.gave_up(key)
            held: _HeldNames | None = trees.recall(("names", place)) if spent is None else None
            if held is not None and not held.holds(names):
                spent = held.spent
            if spent is not None:
                self.left -= spent
                return None
        limit, seen = min(WALK_LIMIT, self.left), 0
        counted: set[str] = set()  # the names of the directories wholly counted within the limit
        try:
            for _, directories, files in os.walk(place):
                seen += len(directories) + len(files)
                if seen > limit:
                    if limit == WALK_LIMIT:  # the tree's own budget ran out, not the call's
                        trees.give_up(key, seen)
                        if len(counted) <= _NAMES_KEPT:
                            held = _HeldNames(frozenset(counted), seen)
                            trees.remember(("names", place), held, len(counted))
                    return None
                if any(named(name, names) for name in (*directories, *files)):
                    return True
                counted.update(directories, files)
            return False
        finally:
            self.left -= seen


_NAMES_KEPT = 8192  # distinct names of a too-large tree remembered at most (beyond: not remembered)


class _HeldTree:
    """What the entries a walk of a too-large tree looked at before it gave up hold: those that
    one of ``checked`` names or, through a symbolic link, leads to, in the walk's order with the
    guards each holds; and how many entries the walk spent. Worked out from the entries the first
    time it is asked (a hook's one process never is)."""

    __slots__ = ("_directory", "_hits", "_visited", "checked", "spent")

    def __init__(self, visited: list[str], checked: tuple[Guard, ...], directory: str, spent: int) -> None:
        self._visited: list[str] | None = visited
        self._directory = directory
        self._hits: list[tuple[str, frozenset[Guard], frozenset[Guard]]] = []  # name, named by, led to
        self.checked = checked
        self.spent = spent

    def _worked_out(self) -> list[tuple[str, frozenset[Guard], frozenset[Guard]]]:
        if self._visited is not None:
            naming = Shield(self.checked).under(self._directory)
            for entry in self._visited:
                link = entry.startswith("\0")  # no path holds a NUL: a link to follow is so marked
                path = entry[1:] if link else entry
                name = path.rpartition("/")[2]
                named_by = naming(path)
                led_to = [g for g in self.checked if _leads_to(g, path)] if link else None
                if named_by or led_to:
                    self._hits.append((name, frozenset(named_by), frozenset(led_to or ())))
            self._visited = None
        return self._hits

    def gives_up(self, wanted: tuple[Guard, ...], names: tuple[str, ...] | None) -> bool:
        """Whether a walk for ``wanted`` among ``names`` would give up on this tree as it stands:
        the entries it would look at do not hold all of them (when they do, the walk stops early
        with a finding, which is looked for afresh)."""
        missing = set(wanted)
        if not missing.issubset(self.checked):
            return False  # guards this tree was not remembered against: walk
        sought = _names_matcher(names)
        for name, named_by, led_to in self._worked_out():
            missing -= led_to
            if sought is None or sought(name):
                missing -= named_by
            if not missing:
                return False
        return True


class _Looked(trees.Looked):
    """What a walk's answer rests on: the stamps of the directories it lists, and git's answer for
    each entry it asked about (a .gitignore can change without its directory changing)."""

    __slots__ = ("ignored",)

    def __init__(self) -> None:
        super().__init__()
        self.ignored: list[tuple[str, bool]] = []


class _Finished(Record):
    """What a search that finished found (each guard looked for, and whether it was), the entries
    it spent, and git's answer for each entry it asked about (trees.py keeps the stamps of the
    directories it listed)."""

    found: tuple[tuple[Guard, bool], ...]
    spent: int
    ignored: tuple[tuple[str, bool], ...]

    def agrees(self) -> bool:
        """Whether git answers as it did for every entry asked about (a .gitignore can change
        without its directory changing)."""
        return all(_git_ignores(path) is ignored for path, ignored in self.ignored)


def _ignored(path: str, looked: _Looked | None) -> bool:
    """Whether git ignores ``path``, noted in ``looked``."""
    ignored = _git_ignores(path)
    if looked is not None:
        looked.ignored.append((path, ignored))
    return ignored


class _HeldNames(Record):
    """The names in the part of a too-large tree a walk counted before it gave up, and how many
    entries it spent."""

    names: frozenset[str]
    spent: int

    def holds(self, names: tuple[str, ...]) -> bool:
        """Whether one of those names matches ``names`` (a walk would find it: walked afresh)."""
        literal = [glob for glob in names if not _GLOB.intersection(glob)]
        if len(literal) == len(names):
            return not self.names.isdisjoint(literal)
        sought = _names_matcher(names)
        return sought is not None and any(map(sought, self.names))


_GLOB = frozenset("*?[")  # what makes a name glob match more than itself (fnmatch)


def protections_hit(
    shield: Shield, path: str, sense: str, tree: Walk | None, search: Search
) -> list[tuple[Protection, str]]:
    """The patterns that protect ``path`` (one spelling of it) against an access of ``sense``, each
    with how: ``PATH`` itself, or ``UNDER``/``UNSEARCHED`` for a directory that ``tree`` walks
    (:class:`TreeKind`: ``git`` is ``all`` but, in a git work tree, not what git ignores; ``follow``
    is ``all`` and where the symbolic links inside lead; ``into`` is searched as a read is; with
    names, only the entries so named, find's -name)."""
    if tree is not None and not os.path.isdir(path):
        tree = None  # nothing is under a file, or under a directory that is not there
    if tree is None:
        return [(guard.entry, PATH) for guard in shield.naming(path) if sense in guard.entry.senses]
    skips: Skips = (
        (tree.skip_files, tree.skip_directories) if tree.skip_files or tree.skip_directories else None
    )
    kind = tree.kind
    ignoring = kind is TreeKind.GIT and _in_work_tree(path)  # ripgrep --hidden
    following = kind is TreeKind.FOLLOW  # through the symbolic links inside too (grep -R, rg -L)
    written = kind is TreeKind.INTO  # what lands there may overwrite any file (.git/config, .env)
    hidden = kind is not TreeKind.VISIBLE
    names = tree.names or None
    hows: dict[Guard, str | None] = {}  # how each guard protects the path (None: it does not)
    wanted = []  # the guards whose pattern must be looked for in the tree
    named_here = shield.naming(path)
    for guard in shield.for_sense(sense):
        if guard in named_here:
            hows[guard] = PATH
        else:
            holds = _tree_holds(guard, path, hidden, written or sense in _SEARCHED, names, search)
            if holds == SEARCH or (following and holds is False):  # a link inside may lead to it
                wanted.append(guard)
            hows[guard] = UNSEARCHED if holds is None else UNDER if holds is True else None
    if wanted:
        every = shield.guards if following else shield.floating
        found = search.finds(tuple(wanted), path, hidden, names, ignoring, following, skips, every)
        hit = UNDER if names is None else SOUGHT
        for guard in wanted:
            hows[guard] = UNSEARCHED if found is None else hit if found[guard] else None
    return [(guard.entry, how) for guard, how in hows.items() if how is not None]


SEARCH: Final = "search"  # what _tree_holds says when only a search of the tree can tell


def _tree_holds(
    guard: Guard, directory: str, hidden: bool, searched: bool, names: tuple[str, ...] | None, search: Search
) -> bool | Literal["search"] | None:
    """Whether walking ``directory`` touches a path ``guard`` protects (None: too large to tell;
    ``SEARCH``: a search of the tree must tell); unless ``searched``, only a protected place that
    lies inside it counts; with ``names``, only entries whose name matches that glob are touched."""
    entry, place = guard.entry, guard.place
    if entry.anchor == "anywhere" and entry.fixed:  # a name that may sit in any directory (.claude)
        found = _place(directory, entry.fixed)
        return os.path.lexists(found) and (names is None or search.holds_name(found, names))
    if fold(place) != fold(directory) and inside(place, directory):  # the place lies inside the tree
        reachable = hidden or not _hidden_below(place, directory)
        return reachable and os.path.lexists(place) and (names is None or search.holds_name(place, names))
    if not searched or entry.exact or not inside(directory, place):
        return False  # the tree is beside the protected place, or the pattern names one path only
    if not hidden and entry.pattern.rsplit("/", 1)[-1].startswith("."):
        return False  # only hidden names match, and the walk skips them
    return SEARCH


def _leads_to(guard: Guard, link: str) -> bool:
    """Whether the symbolic link at ``link`` leads to a path ``guard`` protects, or to a directory
    that holds its protected place (a link to ``~`` reaches ``~/.ssh``)."""
    real = os.path.realpath(link)
    if _matches(guard, real):
        return True
    anchored = guard.entry.anchor != "anywhere" and guard.place not in ("", "/")
    return anchored and inside(guard.place, real) and os.path.lexists(guard.place)


def _git_ignores(path: str) -> bool:
    """Whether git ignores ``path`` (its own answer, for .gitignore files at every level and the
    global excludes; no git, or an error: not ignored)."""
    import subprocess  # only when a search finds a protected file in a work tree

    try:
        result = subprocess.run(
            ["git", "check-ignore", "-q", "--", path],
            cwd=os.path.dirname(path),
            capture_output=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


def _in_work_tree(directory: str) -> bool:
    """Whether ``directory`` lies in a git work tree (a ``.git`` in it or above it)."""
    while True:
        if os.path.lexists(_place(directory, ".git")):
            return True
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent


def named(name: str, names: tuple[str, ...]) -> bool:
    """Whether ``name`` matches one of the globs a walk is narrowed to (:attr:`Walk.names`)."""
    return any(fnmatch.fnmatchcase(name, glob) for glob in names)


def _skipped(name: str, directory: bool, skips: tuple[tuple[str, ...], tuple[str, ...]]) -> bool:
    globs = skips[1] if directory else skips[0]
    return any(fnmatch.fnmatchcase(name, glob) for glob in globs)


def _hidden_below(path: str, directory: str) -> bool:
    """Whether reaching ``path`` from ``directory`` goes through a hidden name."""
    return any(part.startswith(".") for part in path[len(directory.rstrip("/")) + 1 :].split("/"))
