"""What the standard library does, as the analysis knows it: the tables of ``api.json``, loaded once.

The knowledge is data so that teaching the analysis a new standard-library function is one line of
``api.json`` (its schema, ``api.schema.json``, says what each table means) and a test case, never a
change to the walk. The file is read with the standard library's ``json`` at the first analysis, not
at import, because this module is imported by every hook process and most never meet Python code.
Senses and argument specs are turned into the tuples the analysis unpacks, and the sets derived
from several tables (what is effectful, what a table models) are computed here, once.
"""

from __future__ import annotations

import os.path
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any, TypeVar

from ....model import Sense

R = Sense.READ
# How api.json spells a sense (a dict lookup: Sense(...) costs more, for each of a few hundred entries).
_SENSES = {sense.value: sense for sense in (Sense.READ, Sense.WRITE, Sense.DELETE)}

# A path argument: its sense, position (None: keyword only), keyword, and what it means when left out
# (None: then nothing is touched; "." : the working directory).
ArgSpec = tuple[Sense, int | None, str, str | None]
# An opener: path position, path keyword, mode position, mode keyword, mode when left out, object kind.
Opener = tuple[int, str, int | None, str, str, str]
# A runner: style, program position, position of the argument list or of argv[0], keyword.
Runner = tuple[str, int, int, str]

# Calls handled by code (specials.py) that have an effect of their own: passing one around as a value
# hides it, as it does for the functions of the tables.
_EFFECTFUL_SPECIALS = frozenset(
    (
        "os.open",
        "os.chdir",
        "os.fchdir",
        "os.putenv",
        "setattr",
        "delattr",
        "getattr",
        "globals",
        "locals",
        "vars",
        "shutil.make_archive",
        "operator.methodcaller",
        "operator.attrgetter",
        "sqlite3.connect",
    )
)

T = TypeVar("T")


def prefixes(name: str) -> Iterator[str]:
    """``a.b.c``, ``a.b``, ``a``."""
    while name:
        yield name
        name = name.rpartition(".")[0]


def by_prefix(name: str, table: Mapping[str, T]) -> T | None:
    """The entry of the longest prefix of ``name`` in ``table``."""
    for prefix in prefixes(name):
        if prefix in table:
            return table[prefix]
    return None


def _specs(entries: list[dict[str, Any]]) -> tuple[ArgSpec, ...]:
    return tuple((_SENSES[e["sense"]], e["position"], e["keyword"], e.get("default")) for e in entries)


class Api:
    """The tables of ``api.json`` (see ``api.schema.json`` for each), as the analysis reads them."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.file_calls: dict[str, tuple[ArgSpec, ...]] = {
            name: _specs(specs) for name, specs in data["fileCalls"].items()
        }
        self.walked = frozenset(data["walked"])
        self.openers: dict[str, Opener] = {
            name: (o["path"], o["pathKeyword"], o["mode"], o["modeKeyword"], o["defaultMode"], o["returns"])
            for name, o in data["openers"].items()
        }
        self.makers: dict[str, str] = dict(data["makers"])
        self.socket_addresses: dict[str, int] = dict(data["socketAddresses"])
        self.url_calls: dict[str, tuple[int, str]] = {
            name: (u["position"], u["keyword"]) for name, u in data["urlCalls"].items()
        }
        self.runners: dict[str, Runner] = {
            name: (r["style"], r["program"], r["vector"], r["keyword"]) for name, r in data["runners"].items()
        }
        self.dangers: dict[str, str] = dict(data["dangers"])
        self.dangerous_imports: dict[str, str] = dict(data["dangerousImports"])
        self.contact_calls: dict[str, bool] = dict(data["contacts"])
        self.known_modules = frozenset(data["knownModules"])
        self.file_modules: dict[str, frozenset[str]] = {
            module: frozenset(names) for module, names in data["fileModules"].items()
        }
        self.reexported = frozenset(data["reexported"])
        self.aliases: dict[str, str] = dict(data["aliases"])
        self.constants: dict[str, str | int] = dict(data["constants"])
        self.private_allowed = frozenset(data["privateAllowed"])
        self.builtins = frozenset(data["builtins"])
        self.builtin_types = frozenset(data["builtinTypes"])
        self.inspectors = frozenset(data["inspectors"])
        self.path_methods: dict[str, tuple[tuple[Sense, int], ...]] = {
            name: tuple((_SENSES[e["sense"]], e["target"]) for e in specs)
            for name, specs in data["pathMethods"].items()
        }
        self.path_walked = frozenset(data["pathWalked"])
        self.path_transforms = frozenset(data["pathTransforms"])
        self.suspects: dict[str, tuple[int, int]] = {
            name: (low, high) for name, (low, high) in data["suspects"].items()
        }
        self.strict_suspects = frozenset(data["strictSuspects"])
        self.frame_attributes = frozenset(data["frameAttributes"])
        self.object_methods: dict[str, dict[str, tuple[ArgSpec, ...]]] = {
            kind: {name: _specs(specs) for name, specs in methods.items()}
            for kind, methods in data["objectMethods"].items()
        }
        self.kind_names: dict[str, str] = dict(data["kindNames"])
        self.cookie_jars = frozenset(data["cookieJars"])
        self.sql_methods = frozenset(data["sqlMethods"])
        self.sql_dangers = frozenset(data["sqlDangers"])
        self.mutators = frozenset(data["mutators"])
        self.plain_dunders = frozenset(data["plainDunders"])
        self.internal_dunders = frozenset(data["internalDunders"])
        self._derive()

    def _derive(self) -> None:
        """The sets several tables make together."""
        self.file_packages = frozenset(module.partition(".")[0] for module in self.file_modules)
        self.path_effect_methods = frozenset(
            {name for name, specs in self.path_methods.items() if any(sense is not R for sense, _ in specs)}
            | {"open"}
        )
        names = set(self.openers) | set(self.runners) | {n for n, reason in self.dangers.items() if reason}
        names |= {n for n, specs in self.file_calls.items() if any(spec[0] is not R for spec in specs)}
        names |= {n for n, contact in self.contact_calls.items() if contact}
        names |= _EFFECTFUL_SPECIALS | set(self.makers) | self.cookie_jars
        self.effectful_names = frozenset(names)
        # Modules with an effectful member: passing one around as a value hides what is called on it.
        self.effectful_modules = frozenset(
            {prefix for name in self.effectful_names for prefix in prefixes(name) if prefix != name}
            | {"builtins", "pathlib"}
            | set(self.file_modules)
        )
        # Every call some table models (with the calls of specials.py): a member of a file module that
        # is none of these is a doubt.
        self.modelled = frozenset(
            {*self.file_calls, *self.openers, *self.runners, *self.makers, *self.cookie_jars, *self.url_calls}
            | {name for name, reason in self.dangers.items() if reason}
        )

    def danger(self, name: str) -> str | None:
        """Why the use of ``name`` (or of a module it is under) cannot be followed; "" exempts it."""
        return by_prefix(name, self.dangers)

    def import_danger(self, module: str) -> str | None:
        """Why importing ``module`` is a doubt by itself."""
        return by_prefix(module, self.dangerous_imports)

    def alias(self, name: str) -> str:
        for prefix in prefixes(name):
            if prefix in self.aliases:
                return self.aliases[prefix] + name[len(prefix) :]
        return name

    def canonical(self, name: str) -> str:
        """The one name a module member goes by: aliases and re-exports resolved, builtins bare."""
        name = self.alias(name)
        parts = name.split(".")
        for index in range(len(parts) - 1, 0, -1):
            # glob.glob is glob's own
            if parts[index] in self.reexported and parts[index] != parts[index - 1]:
                name = self.alias(".".join(parts[index:]))
                break
        return name[len("builtins.") :] if name.startswith("builtins.") else name

    def known_module(self, name: str) -> bool:
        return any(prefix in self.known_modules for prefix in prefixes(name))

    def contacts(self, name: str) -> bool:
        """Whether calling ``name`` talks to another machine (the exceptions of network modules do not)."""
        return bool(by_prefix(name, self.contact_calls)) and not name.endswith(
            ("Error", "Exception", "Warning", "Timeout")
        )

    def effectful(self, name: str) -> bool:
        """Whether calling ``name`` may have an effect the analysis reports or doubts."""
        if name in self.effectful_names or self.danger(name) or self.contacts(name) or self.file_member(name):
            return True
        head, _, method = name.rpartition(".")
        return head == "pathlib.Path" and method in self.path_effect_methods

    def file_member(self, name: str) -> bool:
        """Whether ``name`` is a member of a module of ``fileModules`` that is not listed as harmless:
        it touches files (handing it on as a value hides which)."""
        if name.partition(".")[0] not in self.file_packages:
            return False
        module = next((prefix for prefix in prefixes(name) if prefix in self.file_modules), None)
        if module is None or module == name:
            return False
        member = name[len(module) + 1 :]
        first = member.partition(".")[0]
        harmless = self.file_modules[module]
        return not (
            member in harmless or first in harmless or first.endswith(("Error", "Exception", "Warning"))
        )


PATH = os.path.join(os.path.dirname(__file__), "api.json")


@cache
def load() -> Api:
    """The tables, read from ``api.json`` at the first call (later calls share them)."""
    import json  # here, not at the top: importing the analysis costs nothing until a program is met

    with open(PATH, encoding="utf-8") as file:
        return Api(json.load(file))
