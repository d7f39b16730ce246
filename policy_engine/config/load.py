"""Loading the policy that applies: discovery -> read files -> cached compiled form (or compile).

The hot path (a cache hit) reads the policy files, the trust store and the shipped presets, and
one cache file, with the standard library alone; json5, pydantic and pathspec are imported only
when the configuration changed and must be compiled again.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from ..errors import ConfigError, Problem
from ..record import Record
from ..version import __version__
from . import cache
from .discover import PROJECT, Discovery, Source
from .presets import builtin_texts
from .trust import digest, read_store, recorded_digest

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from .compiled import PolicySet


class SourceText(Record):
    """A policy file's text as read, with the trust record of its real path (project files)."""

    source: Source
    text: str
    recorded: str | None = None

    @property
    def trusted(self) -> bool:
        """Always for user, managed and explicit files; a project file only while its content still
        has the hash that ``policy trust`` recorded."""
        if self.source.role != PROJECT:
            return True
        return self.recorded is not None and self.recorded == digest(self.text)


def read_text(path: str) -> str:
    """The text of the policy file at ``path``, read as ``open(path, encoding="utf-8")`` reads it
    (universal newlines); ConfigError with the line and column of the first byte that is not UTF-8.
    OSError (missing, unreadable) is the caller's to report."""
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError([_not_utf8(path, raw, error)]) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _not_utf8(path: str, raw: bytes, error: UnicodeDecodeError) -> Problem:
    # Everything before the first bad byte decodes; its lines and characters are what an editor counts.
    before = raw[: error.start].decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    if line == 1 and before.startswith("\ufeff"):  # the byte-order mark is no character of the line
        column -= 1
    bad = raw[error.start : error.end]
    return Problem(
        path,
        line,
        column,
        "",
        f"not UTF-8 text: byte {' '.join(f'0x{b:02X}' for b in bad)} is not valid here ({error.reason})",
        "save the file as UTF-8 (a Latin-1 or Windows-1252 editor writes é as the single byte 0xE9); "
        "or write the character as an escape inside a string (\\u00e9)",
    )


def _read(discovery: Discovery, env: Mapping[str, str]) -> list[SourceText]:
    """The text of every discovered file, with the trust record of project files."""
    store = read_store(env) if any(s.role == PROJECT for s in discovery.sources) else {}
    found = []
    problems = []
    for source in discovery.sources:
        try:
            text = read_text(source.path)
        except FileNotFoundError:
            problems.append(Problem(source.path, None, None, "", "file not found"))
            continue
        except ConfigError as error:  # not UTF-8: where, and how to fix it
            problems += error.problems
            continue
        except OSError as error:
            problems.append(Problem(source.path, None, None, "", f"cannot be read: {error.strerror}"))
            continue
        recorded = recorded_digest(store, source.path) if source.role == PROJECT else None
        found.append(SourceText(source, text, recorded))
    if problems:
        raise ConfigError(problems)
    return found


def load(discovery: Discovery, env: Mapping[str, str], *, use_cache: bool = True) -> PolicySet:
    """The compiled policy set for ``discovery``: from the cache when nothing changed, else compiled."""
    files = _read(discovery, env)
    key: list[Any] = [
        __version__,
        cache.FORMAT,
        list(sys.version_info[:2]),  # the marshal format is bound to the Python version
        discovery.project_root,
        [[s.role, s.path, s.flavor, text, recorded] for s, text, recorded in files],
        [[path, text] for path, text in builtin_texts()],
    ]
    path = cache.cache_file(cache.cache_directory(env), key) if use_cache else None
    if path is not None:
        hit = cache.read(path, key)
        if hit is not None:
            return hit
    from .compile import compile_policy_set

    policy_set = compile_policy_set(files, discovery.project_root)._replace(digest=cache.key_digest(key))
    if path is not None:
        cache.write(path, key, policy_set)
    return policy_set


def cache_enabled(env: Mapping[str, str]) -> bool:
    """``POLICY_ENGINE_CACHE=0`` turns the compiled-policy cache off."""
    return env.get("POLICY_ENGINE_CACHE", "1") not in ("0", "false", "no", "off")
