"""Path spelling: ``@`` and ``~`` expansion, relative paths, ``..``, symlinks, and containment.

A path is judged under both its literal spelling and its symlink-resolved one, so that neither a
symlink into a protected tree nor a protected name reached through a symlink slips through.
"""

from __future__ import annotations

import os.path
import re
import sys
from collections.abc import Iterator

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

# macOS and Windows file systems ignore case by default (`cat ~/.SSH/id_rsa` opens ~/.ssh/id_rsa):
# there, paths are compared without regard to case. POLICY_ENGINE_CASE_INSENSITIVE=1 or 0 says so
# for a file system the platform does not tell (a case-insensitive volume on Linux).
CASE_INSENSITIVE = os.environ.get(
    "POLICY_ENGINE_CASE_INSENSITIVE", "1" if sys.platform in ("darwin", "win32") else "0"
) not in ("0", "false", "no", "off")

# Files that are not files: writing /dev/null or reading /dev/stdin touches nothing a policy guards.
PSEUDO_FILES = frozenset(
    (
        "/dev/null",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/tty",
        "/dev/zero",
        "/dev/random",
        "/dev/urandom",
    )
)


def pseudo_file(path: str) -> bool:
    """Whether ``path`` is a device or descriptor that stands for a stream, not a file (never a
    path that goes up from one: /dev/fd/../cwd/.env is a file)."""
    if "/.." in path:
        return False
    return path in PSEUDO_FILES or path.startswith(("/dev/fd/", "/proc/self/fd/"))


# Directories whose entries lead elsewhere (descriptors, processes): a `..` out of them, or another
# process's cwd and root, name files the text does not show.
_LEADING_ELSEWHERE = re.compile(r"^/(?:dev/fd|proc)(?:/|$)")
_OTHER_PROCESS = re.compile(r"^/proc/(?!self/|thread-self/)[^/]+/(?:cwd|root|fd)(?:/|$)")


def opaque(path: str, base: str = "") -> str | None:
    """Why an absolute ``path`` (before ``..`` is collapsed) cannot be judged as spelled, or None:
    a ``..`` out of /proc or /dev/fd, another process's directories, or a ``..`` after a part that
    does not exist yet (a symlink the same command line makes would change where it leads), when
    that part was written in the path rather than in ``base``, the directory it was taken from."""
    if _OTHER_PROCESS.match(path):
        return "it goes through another process's directories in /proc"
    if "/../" not in path + "/":
        return None
    if _LEADING_ELSEWHERE.match(path):
        return "it goes up out of /proc or /dev/fd"
    head = path[: path.rindex("/..")]
    written = len(head) > len(base.rstrip("/")) and head.startswith(base.rstrip("/"))
    if written and not os.path.lexists(head):
        return f"`..` follows {head}, which does not exist yet (a symlink made first would change it)"
    return None


def expand_home(path: str, home: str) -> str:
    """``~`` and ``~/x`` become paths under ``home``; ``~user`` and everything else are left alone."""
    if path == "~":
        return home
    if path.startswith("~/"):
        return home.rstrip("/") + path[1:]
    return path


def normalize(path: str, cwd: str, home: str) -> str:
    """The absolute, lexically normalized spelling of ``path`` as an agent tool would resolve it.

    A leading ``@`` is dropped (agents use it to mention files), ``~`` is expanded, a relative path
    is taken from ``cwd``, and ``.``/``..``/repeated slashes are collapsed.
    """
    return collapse(spelled(path, cwd, home))


def spelled(path: str, cwd: str, home: str) -> str:
    """``path`` made absolute as an agent tool would take it (``@`` dropped, ``~`` expanded, taken
    from ``cwd``), before ``..`` is collapsed: what :func:`opaque` looks at."""
    if path.startswith("@"):
        path = path[1:]
    return absolute(expand_home(path, home), cwd)


# The working directory of the process that opens it: the call's, not the engine's.
PROCESS_CWD = ("/proc/self/cwd", "/proc/thread-self/cwd")


def absolute(path: str, cwd: str) -> str:
    """``path`` taken from ``cwd`` when it is relative, or when it goes through /proc/self/cwd."""
    if not path.startswith("/"):
        return cwd.rstrip("/") + "/" + path
    for head in PROCESS_CWD:
        if path == head or path.startswith(head + "/"):
            return cwd.rstrip("/") + path[len(head) :]
    return path


def collapse(path: str) -> str:
    """An absolute path with ``.``, ``..`` and repeated slashes collapsed. Lexically, except that a
    ``..`` goes up from where the symlinks before it lead, as the kernel does (``l/../x`` with
    ``l -> /home/me/a/b`` is ``/home/me/a/x``, not ``./x``)."""
    if "/../" in path or path.endswith("/.."):
        parts = path.split("/")
        last = len(parts) - 1 - parts[::-1].index("..")
        head = resolved("/".join(parts[: last + 1]) or "/")
        path = "/".join([head, *parts[last + 1 :]])
    normal = os.path.normpath(path)
    # POSIX keeps a leading "//" as implementation-defined; for policy purposes it is "/".
    return "/" + normal.lstrip("/")


def resolved(path: str) -> str:
    """``path`` with the symlinks of its existing part resolved; the missing rest is kept as spelled."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def _kernel_directory(path: str) -> str | None:
    """Where the existing directory ``path`` really is, asked of the kernel: opened without being
    read (``O_PATH``), Linux names it in /proc/self/fd as it resolved it, in a few system calls
    where realpath looks at each component in turn. None when it cannot tell (not a directory, not
    there, no /proc)."""
    global _PROC_FD
    if not _PROC_FD:
        return None
    try:
        fd = os.open(path, _OPEN_DIRECTORY)
    except (OSError, ValueError):
        return None
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        _PROC_FD = False  # no /proc: never asked again
        return None
    finally:
        os.close(fd)
    return real if real.startswith("/") and not real.endswith(" (deleted)") else None


# How _kernel_directory opens a directory: by path only (no read permission needed, nothing read).
_OPEN_DIRECTORY = getattr(os, "O_PATH", 0) | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC
_PROC_FD = sys.platform == "linux" and hasattr(os, "O_PATH")


def spellings(path: str, directories: dict[str, str] | None = None) -> tuple[str, ...]:
    """The literal spelling of a normalized path and, when it differs, its symlink-resolved one.

    ``directories`` remembers, for one tool call, where the directories of its paths resolve to:
    the paths of a call share their directories (the cwd above all), and resolving a path then
    costs one look at its last component instead of one per component."""
    real = resolved(path) if directories is None else _resolved_in(path, directories)
    return (path,) if real == path else (path, real)


def _resolved_in(path: str, directories: dict[str, str]) -> str:
    """``resolved(path)``, its directory resolved once per ``directories``."""
    head, _, name = path.rpartition("/")
    if not head or name in ("", ".", "..") or "\0" in path:
        return resolved(path)  # nothing to share, or realpath's own answer for what it rejects
    real = directories.get(head)
    if real is None:
        real = _directory_in(head, directories)
    return _beneath(real, name, path)


def _beneath(real: str, name: str, spelled: str) -> str:
    """``resolved(spelled)``, given that ``real`` is where its directory resolves and ``name`` its
    last component: one look at that name (a link is followed by realpath)."""
    candidate = f"{real}/{name}" if real != "/" else f"/{name}"
    return resolved(spelled) if os.path.islink(candidate) else candidate


def _directory_in(head: str, directories: dict[str, str]) -> str:
    """``resolved(head)``, remembered in ``directories`` with the directories above it that it
    took: from the nearest directory above whose resolution is known (remembered, or told by the
    kernel when it exists), one look per component below it. Missing directories (``path/to``) are
    so resolved from the existing part, as realpath keeps them."""
    below: list[tuple[str, str]] = []  # (directory, its last component), from head upwards
    current = head
    real = directories.get(current)
    while real is None:
        if current == "/":
            real = "/"
            break
        parent, _, name = current.rpartition("/")
        if name in ("", ".", ".."):
            return resolved(head)  # not normalized: realpath's own answer
        parent = parent or "/"
        if parent not in directories:  # nothing known just above: the kernel may tell at once
            real = _kernel_directory(current)
            if real is not None:
                directories[current] = real
                break
        below.append((current, name))
        current = parent
        real = directories.get(current)
    for directory, name in reversed(below):
        real = directories[directory] = _beneath(real, name, directory)
    return real


# What may stand before a file name in a word: an option (--opt=, -o=), a key (if=), a response file's
# @, a file URL. printf's \n and \0 separate names in one word.
_NAME_PREFIX = re.compile(r"^(?:-{1,2}[\w.-]*=|[\w.-]+=|@|file://(?:localhost)?|file:)")
_NAME_SEPARATORS = re.compile(r"\\[n0t]|\n|\x00|%s")


def mentioned_paths(text: str, directory: str, home: str) -> list[str]:
    """The absolute paths ``text`` spells (``~/.ssh/id_rsa``, ``--key=@/etc/shadow``,
    ``file:///x``): only what looks like a path (a slash, or a leading ~), never a bare name."""
    if "/" not in text and "~" not in text:
        return []  # no piece of it can look like a path (most words: names, values, flags)
    found = []
    for piece in _NAME_SEPARATORS.split(text):
        bare = piece
        for _ in range(3):  # --data=@file: each prefix in turn
            bare = _NAME_PREFIX.sub("", bare)
        for candidate in dict.fromkeys((piece, bare)):
            if candidate.startswith("~/") or candidate == "~":
                candidate = home + candidate[1:]
            elif candidate.startswith("~") or "/" not in candidate or "://" in candidate:
                continue
            found.append(collapse(absolute(candidate, directory)))
    return found


def glob_root(pattern: str, wildcards: frozenset[str]) -> str | None:
    """The directory the literal leading parts of ``pattern`` name (``src`` for ``src/**/*.ts``;
    ``.`` or ``/`` when its first part holds a wildcard), or None when it holds none."""
    parts = pattern.split("/")
    first = next((i for i, part in enumerate(parts) if wildcards.intersection(part)), None)
    if first is None:
        return None
    return "/".join(parts[:first]) or ("/" if pattern.startswith("/") else ".")


def fold(path: str) -> str:
    """``path`` as compared with others: lowercased where the file system ignores case."""
    return path.lower() if CASE_INSENSITIVE else path


def _component_key(path: str) -> str:
    """An absolute ``path`` as an index of places keys it: folded, without doubled or trailing
    slashes. Whenever ``inside(path, directory)``, ``_component_key(directory)`` is among
    ``_ancestor_keys(_component_key(path))``: an index looked up that way proposes every directory
    that may hold a path (``inside`` confirms)."""
    if path and not CASE_INSENSITIVE and "//" not in path and (path == "/" or not path.endswith("/")):
        return path  # already one (a normalized path, most of them)
    folded = fold(path)
    while "//" in folded:
        folded = folded.replace("//", "/")
    return folded.rstrip("/") or "/"


def _ancestor_keys(key: str) -> Iterator[str]:
    """``key`` (a :func:`_component_key`) and each directory above it, up to ``/``."""
    while True:
        yield key
        cut = key.rfind("/")
        if key == "/" or cut < 0:
            return
        key = key[:cut] or "/"


class DirectoryIndex:
    """Items filed under directories, found for an absolute path by its components: the items of
    the path itself and of every directory above it (a proposal: :func:`inside` confirms). The
    directories above the files of one directory are the same: what they hold is remembered per
    parent, which is exact, because the index does not change once filled."""

    __slots__ = ("_above", "_by_key")

    def __init__(self) -> None:
        self._by_key: dict[str, list[Any]] = {}
        self._above: dict[str, list[Any]] = {}

    def add(self, directory: str, item: Any) -> None:
        """File ``item`` under the absolute ``directory``."""
        self._by_key.setdefault(_component_key(directory), []).append(item)
        self._above.clear()

    def __bool__(self) -> bool:
        return bool(self._by_key)

    def everything(self) -> list[Any]:
        return [item for items in self._by_key.values() for item in items]

    def holding(self, path: str) -> list[Any]:
        """The items filed under the absolute ``path`` or a directory above it."""
        key = _component_key(path)
        own = self._by_key.get(key)
        above = self._above_key(key)
        return above + own if own else above

    def at(self, path: str) -> list[Any]:
        """The items filed under the absolute ``path`` itself."""
        return self._by_key.get(_component_key(path)) or []

    def above(self, path: str) -> list[Any]:
        """The items filed under the directories above the absolute ``path`` (none above ``/``)."""
        return self._above_key(_component_key(path))

    def _above_key(self, key: str) -> list[Any]:
        if key == "/":
            return []
        parent = key[: key.rfind("/")] or "/"
        above = self._above.get(parent)
        if above is None:
            if len(self._above) >= 4096:
                self._above.clear()
            above = self._above[parent] = [i for k in _ancestor_keys(parent) for i in self._by_key.get(k, ())]
        return above


def inside(path: str, directory: str) -> bool:
    """Whether ``path`` is ``directory`` or below it, on whole path components (``/`` holds all)."""
    if CASE_INSENSITIVE:
        path, directory = path.lower(), directory.lower()
    if path == directory:
        return True
    prefix = directory if directory.endswith("/") else directory + "/"
    return path.startswith(prefix)
