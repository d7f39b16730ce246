"""A command's words read as its knowledge says, and command patterns read the same way.

A policy pattern such as ``git push --force*`` is written as words in an order, but a command's
options are not ordered words: ``git push origin main --force``, ``git push -f`` and
``git -C . push --force-with-lease`` are all force pushes. So a pattern is also read as the command
line it describes, and matched option by option:

- the leading literal words name the command and, as far as the knowledge says they are
  subcommands, its subcommands (``git push``); options given before a subcommand (``git -C DIR``,
  ``git --no-pager``, ``git -c k=v``) belong to the level they are given at;
- an option word (``-f``, ``--force``, ``--output=FILE``, ``-o FILE``, a bundle ``-rf``) asks for
  that option anywhere among the command's options at its level, in any spelling the knowledge
  gives it (``aliases``), a unique prefix of a long name included; ``*`` and ``?`` in its name glob
  over the spellings (``--force*`` is ``--force``, ``--force-with-lease``, ``-f``...); a value
  (``--output=*``, ``-X POST``) must match the option's value, attached or not;
- the other words are operands, matched in order (globs within a word); a word ``*`` stands for
  any words where it stands; a pattern whose last word ends in ``*`` is open: the command may carry
  more options and operands. In a closed pattern, an option it does not name is matched only by a
  ``*`` word; options given before the subcommand never are in the way.

The engine uses this reading only to let a restrictive rule (deny, ask, log, nudge) match more
spellings of what it names, and only where it is at least as strict as what would decide without
it (``rules.py``): option-awareness never lets a rule allow a command it did not allow before.
Commands the knowledge runs in another way (find's expressions, wrappers such as sudo) keep their
words as operands. Standard library only, loaded with the shell knowledge.
"""

from __future__ import annotations

from functools import lru_cache

from ...globs import glob_matches
from ...record import Record
from .arguments import parse_arguments, spec_of
from .words import Word

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from .knowledge import Knowledge

_WILD = frozenset("*?")


class GivenOption(Record):
    """An option a command carries: the level it is given at (0: the command's own, 1: its
    subcommand's...), every spelling that names it, and its value if it has one."""

    level: int
    spellings: tuple[str, ...]
    value: str | None


class Reading(Record):
    """A command line as its knowledge reads it; ``doubtful`` when options end at the first operand
    and an option the knowledge does not list came before it (where the options end is unsure)."""

    path: tuple[str, ...]
    options: tuple[GivenOption, ...]
    operands: tuple[str, ...]
    doubtful: bool = False
    entry: int = 0  # which knowledge entry the path ends at (0: none known)


class WantedOption(Record):
    """An option a pattern names: its level, its spellings (``names``: from the knowledge, or as
    written) or a glob over them, and a glob its value must match (None: any value or none).
    ``known`` says the knowledge lists it."""

    level: int
    names: tuple[str, ...]
    glob: str | None
    value: str | None
    known: bool


ANY = "*"


class PatternReading(Record):
    """A command pattern read as a command line: the command and subcommands it names, the options
    it asks for, its operand words (``ANY`` for a lone ``*``), and whether it is open (its last
    word ends in ``*``). ``known`` says the knowledge has an entry for the command."""

    path: tuple[str, ...]
    options: tuple[WantedOption, ...]
    operands: tuple[str, ...]
    open: bool
    known: bool
    entry: int = 0  # which knowledge entry the path ends at (0: none known)


def _words(texts: Sequence[str]) -> list[Word]:
    return [Word(text, True, False, text) for text in texts]


def _spellings(name: str | None, spec: dict[str, Any]) -> tuple[str, ...]:
    found = spec.get("spellings")
    return tuple(found) if found else ((name,) if name else ())


def read_commands(words: Sequence[str], knowledge: Knowledge) -> list[Reading]:
    """The readings of the command ``words``: as the knowledge reads them, and where options end at
    the first operand (docker run IMAGE ...) after an option the knowledge does not list, also as if
    they went on: that option may take the next word as its value (docker run -c 512 --privileged)."""
    found = read_command(words, knowledge)
    if not found.doubtful:
        return [found]
    return [found, read_command(words, knowledge, posix=False)]


def read_command(words: Sequence[str], knowledge: Knowledge, *, posix: bool = True) -> Reading:
    """The command ``words`` (``words[0]`` its name) as the knowledge reads them; with ``posix``
    False, options do not end at the first operand even where the knowledge says they do."""
    path = [words[0]]
    entry = knowledge.entry(words[0])
    rest = _words(words[1:])
    options: list[GivenOption] = []
    level = 0
    while True:
        if entry is None:  # nothing is known: GNU conventions, no option takes the next word
            parsed, rest = parse_arguments(rest, {})
        elif entry.get("find") or entry.get("wrapper") is not None:
            parsed, rest = [], rest
            if entry.get("wrapper") is not None:
                parsed, rest = parse_arguments(rest, entry.get("options", {}), posix=True)
        elif entry.get("subcommands"):
            parsed, rest = parse_arguments(rest, entry.get("options", {}), posix=True)
            options += _given(parsed, level)
            subcommands = entry["subcommands"]
            name = rest[0].text if rest else None
            sub = subcommands.get(name, subcommands.get("*")) if name is not None else None
            if isinstance(sub, dict):
                path.append(rest[0].text)
                entry, rest, level = sub, rest[1:], level + 1
                continue
            return Reading(tuple(path), tuple(options), tuple(w.text for w in rest), entry=id(entry))
        else:
            stops = posix and bool(entry.get("posix"))
            parsed, rest = parse_arguments(
                rest,
                entry.get("options", {}),
                posix=stops,
                old_style=entry.get("oldStyle", False),
                single_dash=entry.get("singleDash", False),
            )
            doubtful = stops and any(a.spec.get("unknown") for a in parsed)
            options += _given(parsed, level)
            operands = [a.word.text for a in parsed if a.option is None] + [w.text for w in rest]
            return Reading(tuple(path), tuple(options), tuple(operands), doubtful, id(entry))
        options += _given(parsed, level)
        operands = [a.word.text for a in parsed if a.option is None] + [w.text for w in rest]
        return Reading(tuple(path), tuple(options), tuple(operands), entry=id(entry) if entry else 0)


def _given(parsed: Sequence[Any], level: int) -> list[GivenOption]:
    return [
        GivenOption(level, _spellings(a.option, a.spec), a.value.text if a.value is not None else None)
        for a in parsed
        if a.option is not None
    ]


@lru_cache(maxsize=1024)
def read_pattern(pattern: str, knowledge: Knowledge) -> PatternReading | None:
    """``pattern`` read as a command line, or None when it cannot be (a wildcard in the command's
    name or among its subcommands, a ``$preset``): such a pattern matches as text only."""
    texts = pattern.split()
    if not texts or _WILD.intersection(texts[0]) or texts[0].startswith("$"):
        return None
    open_ = texts[-1].endswith("*")
    entry = knowledge.entry(texts[0])
    known = entry is not None
    path = [texts[0]]
    wanted: list[WantedOption] = []
    operands: list[str] = []
    level = 0
    index = 1
    while index < len(texts):
        text = texts[index]
        table = (entry or {}).get("options", {})
        if text.startswith("-") and len(text) > 1 and text != "--":
            found, index = _wanted(texts, index, table, level, entry is not None)
            wanted += found
            continue
        subcommands = (entry or {}).get("subcommands")
        if subcommands and not operands:
            if _WILD.intersection(text) or not isinstance(subcommands.get(text, subcommands.get("*")), dict):
                return None  # `git * push`: which level the rest belongs to is unknown
            path.append(text)
            entry, level, index = subcommands.get(text, subcommands.get("*")), level + 1, index + 1
            continue
        operands.append(ANY if text == "*" else text)
        index += 1
    return PatternReading(
        tuple(path), tuple(wanted), tuple(operands), open_, known, id(entry) if entry else 0
    )


def _wanted(
    texts: list[str], index: int, table: dict[str, Any], level: int, known_command: bool
) -> tuple[list[WantedOption], int]:
    """The options the pattern word ``texts[index]`` asks for, and the index past them (and past
    the value word of an option that takes one)."""
    text = texts[index]
    last = index == len(texts) - 1
    if text.startswith("--"):
        name, equals, value = text.partition("=")
        if _WILD.intersection(name):
            known = any(glob_matches(name, key) for key in table)
            return [WantedOption(level, (), name, value if equals else None, known)], index + 1
        spec, full = _long(table, name)
        names = _spellings(full, spec) if spec is not None else (name,)
        takes = spec is not None and spec.get("takes") and not spec.get("optional")
        if not equals and takes and not last:
            return [WantedOption(level, names, None, texts[index + 1], True)], index + 2
        return [WantedOption(level, names, None, value if equals else None, spec is not None)], index + 1
    letters = text[1:]
    trailing = letters.endswith("*")
    letters = letters.rstrip("*")
    found: list[WantedOption] = []
    for position, letter in enumerate(letters):
        name = "-" + letter
        raw = table.get(name)
        spec = spec_of(raw) if raw is not None else None
        names = _spellings(name, spec) if spec is not None else (name,)
        if spec is not None and spec.get("takes") and not spec.get("optional"):
            attached = letters[position + 1 :]
            if attached or trailing:
                found.append(WantedOption(level, names, None, attached + ("*" if trailing else ""), True))
                return found, index + 1
            if index + 1 < len(texts):
                found.append(WantedOption(level, names, None, texts[index + 1], True))
                return found, index + 2
            found.append(WantedOption(level, names, None, None, True))
            return found, index + 1
        found.append(WantedOption(level, names, None, None, spec is not None))
    if trailing and not letters:  # "-*": any option
        found.append(WantedOption(level, (), "-*", None, False))
    return found, index + 1


def _long(table: dict[str, Any], name: str) -> tuple[dict[str, Any] | None, str]:
    """The spec of the long option ``name`` (or of the one option it is a unique prefix of)."""
    if name in table:
        return spec_of(table[name]), name
    candidates = [key for key in table if key.startswith(name) and key.startswith("--")]
    if len(candidates) == 1:
        return spec_of(table[candidates[0]]), candidates[0]
    return None, name


def matches(pattern: PatternReading, command: Reading, glob_matches: Callable[[str, str], bool]) -> bool:
    """Whether ``command`` is a command line ``pattern`` describes (see the module's docstring);
    ``glob_matches`` matches a word of the pattern against one of the command (rules.py's)."""
    # The same command: the same words, or the same entry of the knowledge under another spelling
    # (docker container run is docker run, docker create shares it).
    same = pattern.path == command.path or (
        pattern.entry != 0 and pattern.entry == command.entry and pattern.path[0] == command.path[0]
    )
    if not same:
        # `docker -H *` names no subcommand, and its * covers whichever follows (docker -H h ps).
        deeper = command.path[: len(pattern.path)] == pattern.path and len(command.path) > len(pattern.path)
        if not (deeper and pattern.open and all(word == ANY for word in pattern.operands)):
            return False
    final = len(command.path) - 1

    def at(level: int, depth: int) -> int:  # the last level is the same level under either spelling
        return -1 if same and level == depth - 1 else level

    used: set[int] = set()
    for want in pattern.options:
        hit = next(
            (
                i
                for i, given in enumerate(command.options)
                if at(given.level, len(command.path)) == at(want.level, len(pattern.path))
                and _names_match(want, given, glob_matches)
                and (want.value is None or _value_matches(want.value, given.value, glob_matches))
            ),
            None,
        )
        if hit is None:
            return False
        used.add(hit)
    loose = pattern.open or ANY in pattern.operands
    extra = [g for i, g in enumerate(command.options) if i not in used and g.level == final]
    if extra and not loose:
        return False
    wanted = list(pattern.operands) + ([ANY] if pattern.open else [])
    return _operands_match(wanted, list(command.operands), glob_matches)


def _value_matches(wanted: str, given: str | None, glob_matches: Callable[[str, str], bool]) -> bool:
    """An option's value against the pattern's; ``-v=x`` is ``-v x`` to Go's flag parsers, so a
    value attached with ``=`` is tried without it too."""
    if given is None:
        return False
    return glob_matches(wanted, given) or (given.startswith("=") and glob_matches(wanted, given[1:]))


def _names_match(want: WantedOption, given: GivenOption, glob_matches: Callable[[str, str], bool]) -> bool:
    if want.glob is not None:
        return any(glob_matches(want.glob, spelling) for spelling in given.spellings)
    return not set(want.names).isdisjoint(given.spellings)


def _operands_match(wanted: list[str], given: list[str], glob_matches: Callable[[str, str], bool]) -> bool:
    """Operand words in order; ``ANY`` matches any run of words (none included).

    The words between two ``ANY`` form a run that must match consecutive operands: the first run
    where the operands start, the last where they end, each other one at the first place it
    matches after the run before (no later place leaves more for the runs after it). No choice is
    revisited, so a pattern of many ``*`` words costs at most its words times the operands' number
    of ``glob_matches`` calls (a backtracking search takes exponential time)."""
    runs: list[list[str]] = [[]]
    for word in wanted:
        if word == ANY:
            runs.append([])
        else:
            runs[-1].append(word)
    if len(runs) == 1:
        return len(given) == len(wanted) and _run_fits(wanted, given, 0, glob_matches)
    head, *middle, tail = runs
    end = len(given) - len(tail)
    if end < len(head) or not _run_fits(head, given, 0, glob_matches):
        return False
    if not _run_fits(tail, given, end, glob_matches):
        return False
    at = len(head)
    for run in middle:
        while at + len(run) <= end and not _run_fits(run, given, at, glob_matches):
            at += 1
        if at + len(run) > end:
            return False
        at += len(run)
    return True


def _run_fits(
    run: Sequence[str], given: Sequence[str], at: int, glob_matches: Callable[[str, str], bool]
) -> bool:
    """Whether the pattern words ``run`` match the operands from ``at`` on, one each."""
    return all(glob_matches(word, given[at + i]) for i, word in enumerate(run))


MAYBE = "maybe"  # a match that depends on what bash computes (Reader.matches)


def _may_be_option(text: str) -> bool:
    """Whether a word bash computes may come out as an option (``$F``, ``$(echo -f)``, ``-?``): its
    source spelling starts with an expansion, a glob or a dash."""
    return text[:1] in ("$", "`", "-", "*", "?", "[", "{", '"', "'")


class Reader:
    """Reads the atoms of calls and the patterns of rules with one command knowledge (the atoms of
    the last call are remembered: several rules may ask about one atom)."""

    __slots__ = ("_atoms", "knowledge")

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge
        self._atoms: dict[tuple[str, ...], list[Reading]] = {}

    def matches(
        self,
        pattern: str,
        words: tuple[str, ...],
        glob_matches: Callable[[str, str], bool],
        computed: tuple[int, ...] = (),
    ) -> bool | str:
        """Whether the command ``words`` is a command line ``pattern`` describes: True, False, or
        ``MAYBE`` when it is not, but a word bash computes (at a position in ``computed``) may be an
        option the pattern asks for (`F=-f; git push $F` under "git push --force*")."""
        wanted = read_pattern(pattern, self.knowledge)
        if wanted is None or not words:
            return False
        readings = self._atoms.get(words)
        if readings is None:
            if len(self._atoms) > 256:
                self._atoms.clear()
            readings = self._atoms[words] = read_commands(words, self.knowledge)
        if any(matches(wanted, reading, glob_matches) for reading in readings):
            return True
        if wanted.options and words[0] == wanted.path[0] and any(_may_be_option(words[i]) for i in computed):
            return MAYBE
        return False
