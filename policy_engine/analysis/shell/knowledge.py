"""Command knowledge: which operands and options of a command read, write, delete or run something.

The knowledge is data (``commands.jsonc`` beside this module, described by ``CommandEntry`` below).
It is validated and compiled once, on the first bash call after it changes, into a cache where every
command's entry is stored apart (with ``marshal``), so that a hook process loads only the entries of
the commands it meets.
"""

from __future__ import annotations

import marshal
import os
import re
import sys
import time
import zlib
from functools import cache

from ... import trees
from ...config import cache as compiled_cache
from ...version import __version__

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "commands.jsonc")
# The options each command's own documentation lists that only change what it prints or how it
# reads, by family of commands (see harmless/README.md): merged into the entries when compiled.
HARMLESS = os.path.join(HERE, "harmless")
# More entries, one file per family of commands (commands.d/README.md), each read as commands.jsonc
# is: the long tail of tools lives there so that commands.jsonc stays the core.
MORE = os.path.join(HERE, "commands.d")
# 5: data files known by their stamps; 4: plainOptions marked; 3: harmless options merged; 2: option
# aliases expanded, with their spellings
FORMAT = 5
# A version with a dot after a command's name (python3.12, pip3.11).
_DOTTED_VERSION = r"\d+(\.\d+)+"  # compiled where used (re keeps it): off the hook's import


def _data_files(directory: str) -> list[str]:
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".jsonc"))
    except OSError:
        return []
    return [os.path.join(directory, name) for name in names]


def harmless_files() -> list[str]:
    """The harmless-option files, in a stable order."""
    return _data_files(HARMLESS)


def entry_files() -> list[str]:
    """The files of more command entries (commands.d), in a stable order."""
    return _data_files(MORE)


class Knowledge:
    """The compiled knowledge: command entries by name, dangerous variables, system bin directories."""

    __slots__ = ("_secret", "aliases", "bin_directories", "commands", "secrets", "variables")

    def __init__(self, data: dict[str, Any]) -> None:
        self.commands: dict[str, Any] = data["commands"]  # name -> entry, or its marshal bytes
        self.aliases: dict[str, str] = data["aliases"]
        self.variables: dict[str, list[str] | None] = data["dangerousVariables"]
        self.bin_directories: frozenset[str] = frozenset(data["binDirectories"])
        self.secrets = "|".join(re.escape(g).replace(r"\*", ".*") for g in data["secretVariables"]) or "(?!)"
        self._secret: re.Pattern[str] | None = None  # compiled on first use: most calls name no variable

    def secret_variable(self, name: str) -> bool:
        """Whether a variable's name says it holds a secret (``OPENAI_API_KEY``)."""
        if self._secret is None:
            self._secret = re.compile(self.secrets, re.IGNORECASE)
        return self._secret.fullmatch(name) is not None

    def entry(self, name: str) -> dict[str, Any] | None:
        """The entry for a command name (``python3.12`` finds ``python`` through an alias)."""
        if name not in self.commands:
            alias = self.aliases.get(name)
            if alias is None:
                alias = self._versioned(name)
            if alias is None or alias not in self.commands:
                return None
            name = alias
        found = self.commands[name]
        if isinstance(found, bytes):
            found = self.commands[name] = marshal.loads(found)
        return found  # type: ignore[no-any-return]

    def _versioned(self, name: str) -> str | None:
        """The command a versioned name installs (python3.12, pip3.11, node18), or None. A number
        alone is taken as a version only for an interpreter or a shell: `command1`, `file2` or
        `ls2` are other programs, which nothing is known about."""
        stem = name.rstrip("0123456789.")
        if stem == name or not stem:
            return None
        target = self.aliases.get(stem) or stem
        if target not in self.commands:
            return None
        if re.fullmatch(_DOTTED_VERSION, name[len(stem) :]):  # pip3.11: a release, whatever the program
            return target
        found = self.entry(target)
        return target if found is not None and (found.get("interpreter") or found.get("shell")) else None

    def dangerous_variable(self, name: str, value: str | None) -> bool:
        """Whether setting ``name`` (to ``value``, if known) can change what a command runs."""
        if name in self.variables:
            safe = self.variables[name]
            return safe is None or value is None or value not in safe
        return any(key.endswith("*") and name.startswith(key[:-1]) for key in self.variables)


@cache
def knowledge(cache_directory: str | None = None) -> Knowledge:
    """The knowledge, from the compiled cache in ``cache_directory`` (default: the user's) when the
    data files are unchanged."""
    more = entry_files()
    sources = [DATA, *more, *harmless_files()]
    identities, raws = _identities(sources, time.time_ns())
    key = [__version__, FORMAT, list(sys.version_info[:2]), *identities]
    directory = cache_directory or compiled_cache.cache_directory(os.environ)
    path = compiled_cache.cache_file(directory, key, "knowledge")
    data = compiled_cache.read_marshal(path, key)
    if data is None or not isinstance(data, dict):
        texts = {source: (raws.get(source) or _read(source)).decode("utf-8") for source in sources}
        entries = {name: texts.pop(name) for name in more}
        data = compile_knowledge(texts.pop(DATA), texts, entries)
        stored = {
            **data,
            "commands": {name: marshal.dumps(entry) for name, entry in data["commands"].items()},
        }
        compiled_cache.write_marshal(path, key, stored)
    return Knowledge(data)


def _identities(sources: list[str], now: int) -> tuple[list[Any], dict[str, bytes]]:
    """What identifies each data file's text in the cache's key, and the texts read for it.

    The data ships with the engine and changes only where someone edits it (a checkout): a file
    is known by its place and stamp (trees.stamp: any write changes its times), one ``stat``
    rather than reading some 700 KB on every process. A file changed in the last two seconds, whose
    next change could keep the same times, is known by its place, size and CRC (its text is kept
    for the compilation, so that the key names what was compiled)."""
    identities: list[Any] = []
    raws: dict[str, bytes] = {}
    for source in sources:
        found = trees.stamp(source)
        if found is not None and trees.settled(found, now):
            identities.append([source, *found])
        else:
            raw = raws[source] = _read(source)
            identities.append([source, len(raw), zlib.crc32(raw)])
    return identities, raws


def _read(source: str) -> bytes:
    with open(source, "rb") as handle:
        return handle.read()


def compile_knowledge(
    text: str, harmless: dict[str, str] | None = None, more: dict[str, str] | None = None
) -> dict[str, Any]:
    """Validate the knowledge data file, the files of more entries and the harmless-option files
    (file -> text each) and return their plain form (imports json5 and pydantic)."""
    from ...config.jsonc import parse
    from .knowledge_schema import HarmlessFile, KnowledgeFile

    def load(source: str, file: str) -> dict[str, Any]:
        # A command's description and examples are for people and tests: the hook never loads them.
        return KnowledgeFile.model_validate(parse(source, file).data).model_dump(
            exclude_unset=True, by_alias=True, exclude={"commands": {"__all__": {"description", "examples"}}}
        )

    data = load(text, DATA)
    for file, source in (more or {}).items():
        extra = load(source, file)
        for key, value in extra.items():
            known = data.setdefault(key, type(value)())
            if isinstance(value, list):
                known.extend(value)
                continue
            twice = sorted(set(known) & set(value))
            if twice:
                raise ValueError(f"{file}: {key} {', '.join(twice)} already defined elsewhere")
            known.update(value)
    for name, entry in data["commands"].items():
        _expand_aliases(entry, name)
    for entry in data["commands"].values():
        _resolve_shared(entry)
        for module, target in entry.get("modules", {}).items():
            if isinstance(target, str) and target not in data["commands"]:
                raise ValueError(f"module {module!r} is judged as {target!r}, which has no entry")
            if isinstance(target, dict):
                _resolve_shared(target)
    for file, source in (harmless or {}).items():
        listed = HarmlessFile.model_validate(parse(source, file).data).model_dump(exclude_unset=True)
        for path, options in listed.items():
            _merge_harmless(data["commands"], path, options, file)
    if harmless:  # the aliases of the options they give
        for name, entry in data["commands"].items():
            _expand_aliases(entry, name)
    for entry in data["commands"].values():
        _mark_plain(entry)
    data.setdefault("aliases", {})
    data.setdefault("dangerousVariables", {})
    data.setdefault("binDirectories", [])
    data.setdefault("secretVariables", [])
    return data


def entry_at(commands: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The entry of a command path (``git log``, ``docker compose ps``), or None."""
    first, *rest = path.split()
    entry = commands.get(first)
    for name in rest:
        if not isinstance(entry, dict):
            return None
        entry = (entry.get("subcommands") or {}).get(name)
    return entry if isinstance(entry, dict) else None


def _merge_harmless(commands: dict[str, Any], path: str, listed: dict[str, Any], file: str) -> None:
    """Add a command's harmless options (``flags``: no argument; ``values``: a plain argument;
    ``options``: specs as in commands.jsonc) to its entry. An option commands.jsonc already gives a
    meaning keeps it: listing it here too is a mistake in the data."""
    entry = entry_at(commands, path)
    if entry is None:
        raise ValueError(f"{file}: {path!r} has no entry in commands.jsonc")
    options = entry.setdefault("options", {})
    given: dict[str, Any] = {
        **dict.fromkeys(listed.get("flags", "").split(), "flag"),
        **dict.fromkeys(listed.get("values", "").split(), "value"),
        **listed.get("options", {}),
    }
    for option, spec in given.items():
        if option in options:
            raise ValueError(f"{file}: {path} {option} is listed here and in commands.jsonc")
        options[option] = spec


# What an option spec may say and still only change what a command prints (see _mark_plain).
_PLAIN_KEYS = frozenset(("takes", "optional", "aliases", "spellings", "pattern", "before"))


def _mark_plain(entry: dict[str, Any]) -> None:
    """Mark an entry ``plainOptions`` when every option it lists is a flag or takes a plain value:
    then no word, however computed, can reach it as an option that writes, runs or reads more
    (`basename "$0"`, `cd "$(dirname "$1")"`), and its operands are never unproven for that."""
    options = entry.get("options") or {}
    entry["plainOptions"] = all(
        raw == "flag"
        or raw == "value"
        or (isinstance(raw, dict) and raw.keys() <= _PLAIN_KEYS and raw.get("takes") in (None, "value"))
        for raw in options.values()
    )
    for group in ("subcommands", "modules"):
        for value in (entry.get(group) or {}).values():
            if isinstance(value, dict) and "plainOptions" not in value:
                _mark_plain(value)


def _expand_aliases(entry: dict[str, Any], where: str) -> None:
    """Give every alias of an option the option's own spec, each spec naming all its ``spellings``
    (the analysis then reads ``-f`` as ``--force``, and a pattern's option matches every spelling);
    in every options table of the entry: its own, its subcommands', its modules', what ``set``
    changes. An alias that is an option of its own beside it is a mistake in the data."""
    options = entry.get("options")
    if options:
        for option, spec in list(options.items()):
            if not isinstance(spec, dict) or not spec.get("aliases"):
                continue
            spec["spellings"] = [option, *spec.pop("aliases")]
            for alias in spec["spellings"][1:]:
                if alias in options:
                    raise ValueError(f"{where}: {alias} is an alias of {option} and an option of its own")
                options[alias] = spec
        for option, spec in options.items():
            if isinstance(spec, dict) and isinstance(spec.get("set"), dict):
                _expand_aliases(spec["set"], f"{where} {option}")
    for group in ("subcommands", "modules"):
        for sub, value in (entry.get(group) or {}).items():
            if isinstance(value, dict):
                _expand_aliases(value, f"{where} {sub}")


def _resolve_shared(entry: dict[str, Any], parent: dict[str, Any] | None = None) -> None:
    """Replace ``"show": "log"`` subcommand references with the entry they name: a sibling, or with
    ``../`` a subcommand of the enclosing entry (docker container's ``"run": "../run"``)."""
    subcommands = entry.get("subcommands")
    if not subcommands:
        return
    for value in subcommands.values():
        if isinstance(value, dict):
            _resolve_shared(value, subcommands)
    for name, value in subcommands.items():
        if isinstance(value, str):
            table = parent if value.startswith("../") else subcommands
            target = table.get(value.removeprefix("../")) if table is not None else None
            if not isinstance(target, dict):
                raise ValueError(f"subcommand {name!r} refers to {value!r}, which is not an entry there")
            subcommands[name] = target
