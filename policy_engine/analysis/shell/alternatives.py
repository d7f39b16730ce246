"""The safer alternatives of well-known destructive commands (``alternatives.jsonc``), and which of
them a command is.

Only a call that is asked about or denied reads the data, and it must not pay for a JSONC parser
then (json5 costs tens of milliseconds to import): the file is JSON with comments on lines of their
own, read with the standard library's ``json`` once the comment lines are dropped, and checked as
it is read (a test loads every entry).
"""

from __future__ import annotations

import json
import os
from functools import cache

from ...record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from ...model import Atom
    from .commandline import Reader

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "alternatives.jsonc")
KEYS = frozenset({"patterns", "except", "say", "examples"})
MAX_SAY = 160  # one clause of a reason


class Alternative(Record):
    """What to say about the commands ``patterns`` describe, unless ``unless`` describes them too."""

    patterns: tuple[str, ...]
    unless: tuple[str, ...]
    say: str
    examples: tuple[str, ...]


def read_alternatives(text: str, file: str = DATA) -> tuple[Alternative, ...]:
    """The entries of the data file's text, checked; ValueError names the first thing wrong."""
    plain = "\n".join("" if line.lstrip().startswith("//") else line for line in text.splitlines())
    try:
        data: Any = json.loads(plain)
    except ValueError as error:
        raise ValueError(f"{file}: not JSON with whole-line // comments: {error}") from None
    if (
        not isinstance(data, dict)
        or set(data) != {"alternatives"}
        or not isinstance(data["alternatives"], list)
    ):
        raise ValueError(f'{file}: expected an object with one key, "alternatives", a list')
    entries = []
    for index, entry in enumerate(data["alternatives"]):
        where = f"{file}: alternatives[{index}]"
        if not isinstance(entry, dict) or not KEYS.issuperset(entry) or "patterns" not in entry:
            raise ValueError(f"{where}: expected an object with patterns, say and examples (and except)")
        for key in ("patterns", "except", "examples"):
            words = entry.get(key, [])
            if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
                raise ValueError(f"{where}.{key}: expected a list of non-empty strings")
        if not entry["patterns"] or not entry.get("examples"):
            raise ValueError(f"{where}: needs at least one pattern and one example")
        say = entry.get("say")
        # A colon would read as the end of the reason's clause; the reason stays short.
        if not isinstance(say, str) or not say or ":" in say or len(say) > MAX_SAY:
            raise ValueError(f"{where}.say: expected one clause of at most {MAX_SAY} characters, no colon")
        entries.append(
            Alternative(
                tuple(entry["patterns"]), tuple(entry.get("except", [])), say, tuple(entry["examples"])
            )
        )
    return tuple(entries)


@cache
def alternatives() -> tuple[Alternative, ...]:
    """The alternatives the engine ships (read once per process)."""
    with open(DATA, encoding="utf-8") as handle:
        return read_alternatives(handle.read())


def describes(pattern: str, atom: Atom, reader: Reader) -> bool:
    """Whether a pattern describes the bash atom as a rule's pattern would: its text as a glob, or
    its words read with the command knowledge (options in any order and spelling)."""
    from ...globs import glob_matches
    from .commandline import read_command, read_pattern

    if atom.command is not None and glob_matches(pattern, atom.command):
        return True
    if not atom.words or reader.matches(pattern, atom.words, glob_matches) is not True:
        return False
    # The subcommands as written: a rule's pattern takes two subcommands of one entry for one
    # (git stash clear and git stash drop share git stash's "*"), which says nothing here.
    wanted = read_pattern(pattern, reader.knowledge)
    return wanted is not None and read_command(atom.words, reader.knowledge).path == wanted.path


@cache
def _by_command() -> dict[str, tuple[Alternative, ...]]:
    """The alternatives by the command their patterns name (a pattern is matched only against
    atoms of its own command: most asks are of commands that have none)."""
    found: dict[str, list[Alternative]] = {}
    for entry in alternatives():
        for name in dict.fromkeys(pattern.split(" ", 1)[0] for pattern in entry.patterns):
            found.setdefault(name, []).append(entry)
    return {name: tuple(entries) for name, entries in found.items()}


def advice(atom: Atom, reader: Reader) -> tuple[str, ...]:
    """What the alternatives say about the bash atom: the clauses of every entry that describes it."""
    name = atom.words[0] if atom.words else (atom.command or "").split(" ", 1)[0]
    return tuple(
        entry.say
        for entry in _by_command().get(name, ())
        if any(describes(p, atom, reader) for p in entry.patterns)
        and not any(describes(p, atom, reader) for p in entry.unless)
    )
