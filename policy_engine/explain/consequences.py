"""What a call that is asked about or denied would change, read from the file system as it is now.

The reason of an ask or a deny says what is at stake (reasons.py formats it): the size of a file a
write replaces, or that it creates one; what a tree it deletes holds; which branch a ``git push``
updates on which remote; and the safer alternative of a well-known destructive command
(``shell/alternatives.jsonc``). It is looked at, never run: paths are ``lstat``-ed (a write's
``stat``-ed, since it writes through a link), a tree is walked without following links and at most
``MAX_ENTRIES`` entries deep into it, the only files opened are small regular files of a
repository's ``.git`` (``HEAD``, ``config``), and the whole inspection stops after ``BUDGET``
seconds. A FIFO, a device, a link loop, an unreadable directory or a huge tree cannot hang the
hook: they are said to be what they are, or not described. Only the decisive atom of a decision
that is already an ask or a deny is inspected (engine.py): the allow path never pays for it.
"""

from __future__ import annotations

import os
import re
import stat
from bisect import bisect_left
from time import monotonic

from ..model import WHOLE_TREE, Sense
from ..paths import fold
from ..record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from ..analysis.shell.commandline import Reader
    from ..model import Access, Atom

MAX_ENTRIES = 10_000  # entries of a tree counted before the count says "more than"
BUDGET = 0.1  # seconds one call's inspection may take, walks included
MAX_PATHS = 8  # paths of an atom described (a reason shows five)
MAX_SMALL_FILE = 64 * 1024  # a .git/HEAD or .git/config larger than this is not read
MAX_CLIMB = 64  # directories climbed to find the repository a git command runs in

# What is at a path (Found.kind).
FILE, DIRECTORY, LINK, PIPE, DEVICE, SOCKET, MISSING = (
    "file",
    "directory",
    "link",
    "pipe",
    "device",
    "socket",
    "missing",
)
# Why a count stopped short (Found.stopped).
LIMIT, SLOW, UNREADABLE = "limit", "slow", "unreadable"


class Found(Record):
    """What is at a path an atom writes or deletes, before it runs: its ``kind``, a file's ``size``,
    and for a directory deleted whole (``counted``), the files (every entry that is not a directory,
    links included) and directories (itself included) under it; ``stopped`` says why the count is
    short (``LIMIT``, ``SLOW``, ``UNREADABLE``), None when it is complete."""

    kind: str
    size: int | None = None
    counted: bool = False
    files: int = 0
    directories: int = 0
    stopped: str | None = None


class Push(Record):
    """What a ``git push`` updates: on ``remote`` (as the command or the repository's configuration
    names it), the branches or refs it ``updates`` (``current``: the checked-out branch, no refspec
    given) and ``deletes``, or ``every`` ref of a kind (``all`` branches, ``tags``, ``mirror``)."""

    remote: str
    updates: tuple[str, ...] = ()
    deletes: tuple[str, ...] = ()
    every: str | None = None
    current: bool = False


class Consequence(Record):
    """What one atom would change: what is at each path it writes or deletes, what it pushes, and
    the clauses of the safer alternatives of what it does."""

    paths: tuple[tuple[str, Found], ...] = ()
    push: Push | None = None
    advice: tuple[str, ...] = ()

    def at(self, path: str) -> Found | None:
        return next((found for where, found in self.paths if where == path), None)


def inspect(atom: Atom, where: str, reader: Reader | None = None) -> Consequence:
    """What ``atom`` would change, run in ``where``; ``reader`` reads a bash atom's words with the
    command knowledge (None: its push and alternatives are not looked for)."""
    deadline = monotonic() + BUDGET
    paths: list[tuple[str, Found]] = []
    # The atom's paths folded as inside() folds them, in order (a directory's contents follow it),
    # and each one's spellings (where case is ignored, "/X" is inside "/x"): made once per atom.
    ordered: list[str] | None = None
    spelt: dict[str, set[str]] = {}
    for access in atom.accesses:
        if access.sense not in (Sense.WRITE, Sense.DELETE) or any(p == access.path for p, _ in paths):
            continue
        if len(paths) >= MAX_PATHS or monotonic() > deadline:
            break
        # A glob's directory stands for what the glob may match (`rm -rf *` also deletes the
        # directory's entries, which the analysis names): what it holds is not what goes.
        whole = False
        if access.tree == WHOLE_TREE:
            if ordered is None:  # once per atom: a line of thousands of operands asks it 8 times
                for a in atom.accesses:
                    spelt.setdefault(fold(a.path), set()).add(a.path)
                ordered = sorted(spelt)
            folded = fold(access.path)
            whole = not holds_another(ordered, folded) and spelt[folded] == {access.path}
        found = look(access._replace(tree=access.tree if whole else None), deadline)
        if found is not None:
            paths.append((access.path, found))
    push: Push | None = None
    advice: tuple[str, ...] = ()
    if reader is not None and atom.command is not None and atom.words:
        from ..analysis.shell.alternatives import advice as advised

        advice = advised(atom, reader)
        push = pushed(atom, where, reader)
    return Consequence(tuple(paths), push, advice)


def holds_another(ordered: list[str], directory: str) -> bool:
    """Whether a path of ``ordered`` (sorted, folded) other than ``directory`` (folded) lies inside
    it, as :func:`paths.inside` has it: they all begin with its prefix, so they follow it in order."""
    prefix = directory if directory.endswith("/") else directory + "/"
    for index in range(bisect_left(ordered, prefix), len(ordered)):
        if not ordered[index].startswith(prefix):
            return False
        if ordered[index] != directory:
            return True
    return False


def look(access: Access, deadline: float) -> Found | None:
    """What is at the path of ``access`` (None: it cannot be told). A write goes through a link to
    what it names; a delete removes the link itself, and a directory deleted whole is counted."""
    try:
        info = os.stat(access.path) if access.sense is Sense.WRITE else os.lstat(access.path)
    except FileNotFoundError:  # nothing there, or (a write) a dangling link: the write creates it
        return Found(MISSING)
    except (OSError, ValueError):  # a loop, a name too long, a NUL: nothing to say
        return None
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return Found(FILE, info.st_size)
    if stat.S_ISDIR(mode):
        # Only a delete of the whole tree removes everything under it (find -delete, git clean do not).
        if access.sense is Sense.DELETE and access.tree == WHOLE_TREE:
            return count(access.path, deadline)
        return Found(DIRECTORY)
    if stat.S_ISLNK(mode):
        return Found(LINK)
    if stat.S_ISFIFO(mode):
        return Found(PIPE)
    if stat.S_ISSOCK(mode):
        return Found(SOCKET)
    return Found(DEVICE)


def count(directory: str, deadline: float, limit: int = MAX_ENTRIES) -> Found:
    """The files and directories of the tree at ``directory``, counted without following links, up
    to ``limit`` entries and until ``deadline``."""
    files, directories, stopped = 0, 1, None
    pending = [directory]
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    try:
                        is_directory = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        is_directory = False
                    if is_directory:
                        directories += 1
                        pending.append(entry.path)
                    else:
                        files += 1
                    if files + directories > limit:
                        return Found(DIRECTORY, None, True, files, directories, LIMIT)
                    if (files + directories) % 256 == 0 and monotonic() > deadline:
                        return Found(DIRECTORY, None, True, files, directories, SLOW)
        except OSError:
            stopped = UNREADABLE
        if monotonic() > deadline and pending:
            return Found(DIRECTORY, None, True, files, directories, SLOW)
    return Found(DIRECTORY, None, True, files, directories, stopped)


# ---- git push --------------------------------------------------------------------------------------


def pushed(atom: Atom, where: str, reader: Reader) -> Push | None:
    """What the ``git push`` atom updates, from its words and, where they leave it to git, from the
    repository's HEAD and configuration; None for any other atom, a dry run, or words bash computes."""
    from ..analysis.shell.commandline import read_command

    words = atom.words
    if os.path.basename(words[0]) != "git" or atom.computed:
        return None
    reading = read_command(words, reader.knowledge)
    if reading.path[1:] != ("push",):
        return None
    own = {spelling for option in reading.options if option.level == 1 for spelling in option.spellings}
    if "--dry-run" in own:
        return None
    outer = {spelling for option in reading.options if option.level == 0 for spelling in option.spellings}
    # git's own directory options are followed by the analysis into the atom's accesses (git -C DIR);
    # --git-dir and --work-tree name a repository elsewhere, not read here.
    directory = atom.accesses[0].path if atom.accesses else where
    repository = None if outer & {"--git-dir", "--work-tree", "--bare"} else git_directory(directory)
    head = current_branch(repository) if repository is not None else None
    config = git_config(repository) if repository is not None else {}
    named = next((o.value for o in reading.options if o.level == 1 and "--repo" in o.spellings), None)
    operands = list(reading.operands)
    remote = named or (operands.pop(0) if operands else None)
    if remote is None:  # where git pushes the current branch to (git-push(1), git-config(1))
        remote = (
            config.get(("branch", head, "pushremote"))
            or config.get(("remote", None, "pushdefault"))
            or config.get(("branch", head, "remote"))
            or "origin"
        )
    every = next((kind for kind in ("mirror", "all", "tags") if f"--{kind}" in own), None)
    if every is not None and not (every == "tags" and operands):
        return Push(remote, every=every)
    if not operands:
        return Push(remote, (head,), current=True) if head is not None else Push(remote)
    updates: list[str] = []
    deletes: list[str] = []
    for spec in operands:
        source, colon, destination = spec.removeprefix("+").partition(":")
        if "--delete" in own or (colon and not source):
            deletes.append(_ref(destination or source))
        else:
            name = destination if colon and destination else source
            updates.append(_ref(head if name == "HEAD" and head is not None else name))
    return Push(remote, tuple(updates), tuple(deletes))


def _ref(name: str) -> str:
    return name.removeprefix("refs/heads/")


def git_directory(directory: str) -> str | None:
    """The git directory of the repository ``directory`` is in (its ``.git``, or where a ``.git``
    file points: a worktree, a submodule), climbing at most ``MAX_CLIMB`` directories."""
    from ..analysis.shell.contents import dot_git, gitdir_of

    found = dot_git(directory, MAX_CLIMB)
    if found is None or os.path.isdir(found):
        return found
    target = gitdir_of(found)
    return os.path.normpath(os.path.join(os.path.dirname(found), target)) if target is not None else None


def current_branch(repository: str) -> str | None:
    """The branch HEAD names (None: a detached HEAD, or no readable HEAD)."""
    text = small_text(os.path.join(repository, "HEAD")) or ""
    ref = text.strip().removeprefix("ref:").strip() if text.startswith("ref:") else ""
    return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None


_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')


def git_config(repository: str) -> dict[tuple[str, str | None, str], str]:
    """The repository's own configuration (a worktree's is its main repository's), as far as a
    plain reading tells: ``(section, subsection, key)`` -> the last value; includes are not followed."""
    common = small_text(os.path.join(repository, "commondir"))
    if common is not None:
        repository = os.path.normpath(os.path.join(repository, common.strip()))
    text = small_text(os.path.join(repository, "config")) or ""
    values: dict[tuple[str, str | None, str], str] = {}
    section: tuple[str, str | None] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            match = _SECTION.match(line)
            if match is None:
                section = None
            elif match.group(2) is not None:
                section = (match.group(1).lower(), match.group(2).replace('\\"', '"').replace("\\\\", "\\"))
            else:  # [branch.main], the old spelling of [branch "main"]
                name, _, sub = match.group(1).partition(".")
                section = (name.lower(), sub.lower() or None)
            continue
        if section is None or "=" not in line or line.startswith(("#", ";")):
            continue
        key, _, value = line.partition("=")
        value = re.split(r"\s[#;]", value, maxsplit=1)[0].strip().strip('"')
        values[(section[0], section[1], key.strip().lower())] = value
    return values


def small_text(path: str) -> str | None:
    """The text of a small regular file, or None: anything else (a FIFO would block, a device may
    act when opened) is not opened, and what turns out otherwise once open is not read."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SMALL_FILE:
            return None
        return os.read(descriptor, MAX_SMALL_FILE).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(descriptor)
