"""What some commands read from files before they act: XML documents that name other files, and
configuration that turns a read-only tool into a writer. Only commands whose knowledge asks for it
(``documents``, ``configs``) come here: it reads the files, within a budget, at decision time."""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

MAX_BYTES = 256 * 1024  # of one file looked at; a larger one is a doubt
MAX_ENTRIES = 4000  # directory entries looked at for configuration files under a tree
# What makes an XML parser load another file: an external DTD or entity, or an XInclude.
_LOADS = rb"<!DOCTYPE[^>\[]*\b(?:SYSTEM|PUBLIC)\b|<!ENTITY|XInclude|<xi:include"  # compiled where used
_COMPRESSED = (b"\x1f\x8b", b"\xfd7zXZ\x00", b"\x5d\x00\x00", b"BZh", b"\x28\xb5\x2f\xfd")
_SKIPPED = frozenset((".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache"))


def _head(path: str) -> bytes | None:
    """The first MAX_BYTES + 1 bytes of a regular file, or None when it is not one."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            return handle.read(MAX_BYTES + 1)
    except OSError:
        return None


def document_doubts(paths: list[str], stdin: bool) -> list[str]:
    """Why the XML documents at ``paths`` cannot be proven to be read alone: one names another file
    (which the tool may load and print: an entity naming ~/.ssh/id_rsa), is too large to look at,
    or arrives on standard input, unseen."""
    doubts = []
    if stdin and not paths:
        doubts.append("the XML document comes from standard input, and it may name other files to load")
    for path in paths:
        if os.path.isdir(path):
            continue
        head = _head(path)
        if head is None:
            continue  # not there: the tool fails
        if len(head) > MAX_BYTES:
            doubts.append(f"{path} is too large to check for the files an XML document can name")
        elif head.startswith(_COMPRESSED):  # libxml2 decompresses it itself
            doubts.append(f"{path} is compressed: the files the XML document names cannot be checked")
        elif re.search(_LOADS, head, re.IGNORECASE):
            doubts.append(
                f"the XML document {path} names other files (a DOCTYPE, an ENTITY or an XInclude), "
                "which may be loaded"
            )
    return doubts


def config_doubts(check: dict[str, Any], directory: str | None, reads: list[str], home: str) -> list[str]:
    """Why configuration the command would read can make it write or run something: a file of
    ``check["names"]`` in its directory or above, or under a tree it reads, or one of
    ``check["home"]`` (in ``home``), whose text matches ``check["match"]``; looking further than the
    budget allows is a doubt too."""
    names = set(check["names"])
    pattern = re.compile(check["match"].encode(), re.MULTILINE)
    found = [home + path[1:] if path.startswith("~/") else path for path in check.get("home", ())]
    starts = [p for p in dict.fromkeys((directory, *reads)) if p is not None]  # in order: stable reasons
    above: set[str] = set()
    for start in starts:
        place = start if os.path.isdir(start) else os.path.dirname(start)
        while place not in above:  # the directory and those above it, each once (_head skips the absent)
            above.add(place)
            found += [os.path.join(place, n) for n in sorted(names)]
            place = os.path.dirname(place)
    budget = MAX_ENTRIES
    for root in (r for r in dict.fromkeys(reads) if os.path.isdir(r)):
        for top, directories, files in os.walk(root):
            budget -= len(directories) + len(files)
            if budget < 0:
                return [f"there are too many files under {root} to look for {', '.join(sorted(names))}"]
            directories[:] = [d for d in directories if d not in _SKIPPED]
            found += [os.path.join(top, n) for n in files if n in names]
    doubts = []
    for path in dict.fromkeys(found):
        head = _head(path)
        if head is not None and (len(head) > MAX_BYTES or pattern.search(head)):
            doubts.append(f"{path}: {check['doubt']}")
    return doubts


def dot_git(directory: str, climb: int = 64) -> str | None:
    """The ``.git`` git finds from ``directory`` (a directory, or a file naming one), in it or the
    nearest directory above it, climbing at most ``climb`` directories; None: no repository."""
    place = directory
    for _ in range(climb):
        found = os.path.join(place, ".git")
        if os.path.isdir(found) or os.path.isfile(found):
            return found
        parent = os.path.dirname(place)
        if parent == place:
            return None
        place = parent
    return None


def repository_doubts(directory: str) -> list[str]:
    """Why the repository git would use from ``directory`` is not one whose configuration
    pathProtection guards (``**/.git/config``): a ``.git`` file that names a directory other than a
    linked worktree's or a submodule's, a bare repository, or a ``commondir`` that leads elsewhere.
    Each makes an allowed ``git status`` run what that configuration says (core.fsmonitor)."""
    place = directory
    for _ in range(64):
        dot = os.path.join(place, ".git")
        if os.path.isdir(dot):
            return _commondir_doubts(dot)
        if os.path.isfile(dot):
            target = gitdir_of(dot)
            if target is None:
                return [f"{dot} names no repository git can be shown to use"]
            resolved = os.path.normpath(os.path.join(place, target))
            if re.search(r"/\.git/(?:worktrees|modules)/", resolved + "/"):
                return _commondir_doubts(resolved)
            return [f"{dot} points git at {resolved}, whose configuration is not a guarded .git/config"]
        if _bare(place):
            return [f"{place} is a bare repository, whose configuration is not a guarded .git/config"]
        parent = os.path.dirname(place)
        if parent == place:
            return []
        place = parent
    return []


def gitdir_of(dotgit: str) -> str | None:
    """The directory a ``.git`` file names (``gitdir: PATH``), as written; None: it names none."""
    head = _head(dotgit)
    if head is None:
        return None
    match = re.match(rb"gitdir: *(.+?)\s*$", head, re.MULTILINE)
    return match.group(1).decode("utf-8", "replace") if match else None


def _commondir_doubts(gitdir: str) -> list[str]:
    """A commondir file makes git read the configuration of the directory it names."""
    head = _head(os.path.join(gitdir, "commondir"))
    if head is None:
        return []
    common = os.path.normpath(os.path.join(gitdir, head.decode("utf-8", "replace").strip()))
    if common.endswith("/.git") or common == ".git":
        return []
    return [f"{gitdir}/commondir points git at {common}, whose configuration is not a guarded .git/config"]


def _bare(place: str) -> bool:
    """Whether git would take ``place`` for a repository, as it checks: a HEAD (a file, or a symbolic
    link, dangling or not), and objects and refs it can enter or read, whatever their type."""
    return (
        os.path.lexists(os.path.join(place, "HEAD"))
        and os.access(os.path.join(place, "objects"), os.F_OK)
        and os.access(os.path.join(place, "refs"), os.F_OK)
    )
