"""Which modules of a working directory Python would import in place of installed ones.

With ``-c``, ``-m`` or a program on standard input, Python puts the working directory first on
``sys.path``: a ``json.py`` or a ``requests/`` package there is what ``import json`` or ``import
requests`` runs, and so is a ``re.py`` that the standard library imports on the program's behalf
(``json`` imports ``re``; printing a traceback imports ``traceback``). Such a file is project code the
analysis has not read: the program is then judged as running it, never as only reading.

What is looked at is the directory as it is now, so a caller must also say when an earlier command of
the same line may have written there (``Setting.settled``).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable

from ...record import Record

# Modules that are part of the interpreter itself: they are never looked for on sys.path.
BUILT_IN = frozenset(("sys", "builtins"))

# Module names the standard library answers to, those of this Python and those older ones still had
# (the program may run under another version than the engine's): a file of one of these names in the
# working directory is imported by the standard library itself, whatever the program imports.
_REMOVED = (
    "asynchat asyncore imp distutils smtpd aifc audioop cgi cgitb chunk crypt imghdr mailcap msilib "
    "nis nntplib ossaudiodev pipes sndhdr spwd sunau telnetlib uu xdrlib lib2to3 binhex formatter "
    "parser symbol macpath"
)
STANDARD = frozenset(sys.stdlib_module_names) | frozenset(_REMOVED.split())

# How a module file is named: NAME.py, NAME.pyc, an extension NAME.so or NAME.cpython-312-x86_64-linux-gnu.so
# (NAME.pyd, NAME.pyw on Windows).
_MODULE_FILE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\.py|\.pyc|\.pyw|\.pyd|(?:\.[\w-]+)?\.so)")
_PACKAGE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INIT = ("__init__.py", "__init__.pyc")
MAX_ENTRIES = 4000  # directory entries looked at; beyond, the directory cannot be checked


class Found(Record):
    """The modules a directory holds (name -> the file or package directory Python would import),
    and why it could not be looked through, if it could not."""

    modules: dict[str, str]
    problem: str | None = None


def importable(directory: str) -> Found:
    """The modules and regular packages (a directory with ``__init__.py``) in ``directory``. A
    directory without ``__init__.py`` is only a namespace portion, which a package of that name
    found later on ``sys.path`` takes precedence over: it counts when the program imports its name
    (``directory_named``)."""
    modules: dict[str, str] = {}
    try:
        with os.scandir(directory) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_ENTRIES:
                    return Found(modules, f"{directory} has too many entries to look for modules in")
                name = entry.name
                path = os.path.join(directory, name)
                match = _MODULE_FILE.fullmatch(name)
                if match is not None and not entry.is_dir():
                    modules.setdefault(match.group(1), path)
                elif _is_package(name, path, entry.is_dir()):
                    modules[name] = path
    except (FileNotFoundError, NotADirectoryError):
        return Found({})  # not there: nothing to import from it (the interpreter fails to start in it)
    except OSError as error:
        return Found({}, f"{directory} cannot be looked through for modules ({error.strerror or error})")
    return Found(modules)


def _is_package(name: str, path: str, is_directory: bool) -> bool:
    """A regular package: a directory with an identifier's name and an ``__init__`` module."""
    if not (is_directory and _PACKAGE_NAME.fullmatch(name) and name != "__pycache__"):
        return False
    return any(os.path.exists(os.path.join(path, init)) for init in _INIT)


def directory_named(directory: str, name: str) -> str | None:
    """A directory ``name`` in ``directory``: a package, or a namespace portion ``import name.sub``
    looks into first."""
    path = os.path.join(directory, name)
    return path if os.path.isdir(path) else None


class Shadow(Record):
    """A module of the working directory that may run: the import it is found for (None: any, the
    standard library imports it on its own), the file or package run (None: which cannot be told),
    and why."""

    module: str | None
    path: str | None
    why: str


def shadowing(directory: str | None, imported: Iterable[str], settled: bool = True) -> list[Shadow]:
    """What Python would run from ``directory``, first on its path, for a program that imports the
    modules ``imported`` (``python -c``, or ``python -m json.tool``: ["json.tool"]). ``settled``
    False: an earlier command may have written there."""
    found: list[Shadow] = []
    if not settled:
        why = "an earlier command may have written a module where Python looks first (the working directory)"
        found.append(Shadow(None, None, why))
    if directory is None:
        unknown = "the working directory, where Python looks for modules first, is unknown"
        return [*found, Shadow(None, None, unknown)]
    held = importable(directory)
    if held.problem:
        found.append(Shadow(None, None, held.problem))
    for module in dict.fromkeys(imported):
        top = module.split(".")[0]
        if top in BUILT_IN:
            continue
        path = held.modules.get(top) or directory_named(directory, top)
        if path is not None:
            if not any(path == seen.path for seen in found):
                found.append(Shadow(module, path, f"imports {module} from {path}, in the working directory"))
        elif top not in STANDARD and held.modules:
            names = ", ".join(os.path.basename(p) for p in sorted(held.modules.values())[:3])
            why = (
                f"imports {module}, an installed package, which may import a module of the working "
                f"directory ({names}) in place of an installed one"
            )
            found.append(Shadow(module, None, why))
    for name, path in sorted(held.modules.items()):
        standard = (name in STANDARD or name.startswith("_")) and name not in BUILT_IN
        if standard and not any(path == seen.path for seen in found):
            why = (
                f"{os.path.basename(path)} in the working directory is imported in place of the "
                f"standard library's {name}"
            )
            found.append(Shadow(None, path, why))
    return found
