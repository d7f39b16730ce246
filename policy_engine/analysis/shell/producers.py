"""What a command prints, when the analysis can know it without running it.

Agents compute paths all day: ``cat $(git rev-parse --show-toplevel)/package.json``,
``wc -l $(git ls-files '*.py')``, ``find . -name '*.py' | xargs wc -l``. Two kinds of output are
known here:

- a **value**: one path, ``pwd``, ``git rev-parse --show-toplevel`` (found from the file system
  as git would find it), ``realpath P``, ``readlink -f P``, ``dirname P``;
- a **listing**: paths under a root that a walk of the tree reaches (``find ROOT -name GLOB``,
  ``git ls-files PATHSPEC``, ``rg --files``, ``grep -rl``), given as (root, walk) where the walk
  (a :class:`~policy_engine.model.Walk`) says which entries of the tree under the root are listed:
  a command that reads them reads files of that tree.

A listing is only trusted where its words cannot turn into something else on the way: bash splits
an unquoted ``$(...)`` at spaces and expands globs in it, and xargs splits at blanks and reads
quotes, so a tree holding a name with a space, a quote, a backslash or a glob character (``a
.env b.py`` would become ``.env``), or, for paths printed without a directory in front, a name
starting with ``-`` (an option), proves nothing. That is checked on the tree as it is now, bounded
like the protections' searches; an earlier command of the same line may change it (the caller
says whether the line is settled).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping

from ... import trees
from ...model import WHOLE_TREE, TreeKind, Walk
from .contents import dot_git

# Entries a check of a tree's names looks at before it gives up (then nothing is proven).
SCAN_LIMIT = 20000
# Characters that make a printed path come apart or expand: blanks (word splitting, xargs), quotes
# and backslashes (xargs), glob characters (an unquoted $(...) is globbed).
_UNSAFE = re.compile(r"[\s'\"\\*?\[]")


def value(words: list[str], cwd: str | None, environ: Mapping[str, str]) -> str | None:
    """The one path ``words`` print, or None when it cannot be known."""
    if cwd is None:
        return None
    if words in (["pwd"], ["pwd", "-L"]):
        return cwd
    if words == ["pwd", "-P"]:
        return os.path.realpath(cwd)
    if words == ["git", "rev-parse", "--show-toplevel"]:
        return _top_level(cwd, environ)
    if len(words) == 2 and words[1][:1] not in ("-", ""):  # one operand: no option
        name, path = words
        if name == "dirname":
            return posixpath.dirname(path.rstrip("/")) or ("/" if path.startswith("/") else ".")
        if name == "realpath":
            return os.path.realpath(posixpath.join(cwd, path))
    if words[:2] == ["readlink", "-f"] and len(words) == 3 and words[2][:1] not in ("-", ""):
        return os.path.realpath(posixpath.join(cwd, words[2]))
    return None


def _top_level(cwd: str, environ: Mapping[str, str]) -> str | None:
    """The work tree git finds from ``cwd`` (the nearest directory holding a ``.git``), unless
    something else tells git where it is (GIT_DIR, GIT_WORK_TREE, core.worktree)."""
    if any(name in environ for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES")):
        return None
    found = dot_git(os.path.realpath(cwd))
    if found is None or (os.path.isdir(found) and _sets_work_tree(os.path.join(found, "config"))):
        return None
    return os.path.dirname(found)


def _sets_work_tree(config: str) -> bool:
    try:
        with open(config, "rb") as handle:
            return b"worktree" in handle.read(65536).lower()
    except OSError:
        return False


def listing(
    words: list[str], cwd: str | None, globs: frozenset[int] = frozenset()
) -> list[tuple[str, Walk]] | None:
    """The (root, walk) pairs of the paths ``words`` print, or None when they are not only paths
    under known roots. Roots are as spelt (relative to ``cwd``). ``globs`` are the positions of the
    words bash expands as globs: only ``ls`` is followed through them (it prints what they match)."""
    if cwd is None or not words:
        return None
    if words[0] == "ls":
        return _ls(words[1:], cwd, {i - 1 for i in globs})
    if globs:
        return None
    reader = _LISTERS.get(words[0])
    if reader is None:
        return None
    if words[:2] == ["git", "diff"] and not os.path.lexists(os.path.join(cwd, ".git")):
        return None  # git prints paths from the top of the work tree, elsewhere than here
    found = reader(words[1:])
    if found is None:
        return None
    roots, walk, bare = found
    skip_git = walk.kind is not TreeKind.ALL or words[0] == "git"
    for root in roots:
        if not _clean(os.path.join(cwd, root), bare and root in (".", ""), skip_git):
            return None
    return [(root, walk) for root in roots]


# find's tests and options that only narrow what it prints, and its plain printing actions (NUL
# separated: pieces bash glues together are still under the root); anything else (an action such
# as -exec, -delete, -printf, -ls, -fprint, or -o, parentheses) is not followed. A test after
# -not or ! only removes paths: it does not narrow the names.
_FIND_VALUES = frozenset(
    (
        "-name", "-iname", "-type", "-maxdepth", "-mindepth", "-path", "-ipath", "-wholename", "-mtime",
        "-mmin", "-newer", "-size", "-user", "-group", "-perm", "-regex", "-iregex",
    )
)  # fmt: skip
_FIND_FLAGS = frozenset(
    ("-print", "-print0", "-empty", "-readable", "-writable", "-executable", "-xdev", "-mount", "-not", "!")
)


def _find(args: list[str]) -> tuple[list[str], Walk, bool] | None:
    roots = []
    while args and not args[0].startswith(("-", "(", "!")):
        roots.append(args.pop(0))
    names = []
    folded = False
    index = 0
    while index < len(args):
        word = args[index]
        negated = index > 0 and args[index - 1] in ("-not", "!")
        if word in _FIND_FLAGS:
            index += 1
        elif word in _FIND_VALUES and index + 1 < len(args):
            if word == "-name" and not negated:
                names.append(args[index + 1])
            folded = folded or (word == "-iname" and not negated)
            index += 2
        else:
            return None
    if not _plain_roots(roots):
        return None
    walk = (
        WHOLE_TREE if folded or len(names) != 1 or not _plain(names[0]) else Walk(TreeKind.ALL, (names[0],))
    )
    return roots or ["."], walk, not roots  # GNU find prints ./x for no root: never a dash


def _git(args: list[str]) -> tuple[list[str], Walk, bool] | None:
    if args[:1] == ["diff"]:
        return _git_diff(args[1:])
    if not args or args[0] != "ls-files":
        return None
    specs = []
    others = standard = False
    for word in args[1:]:
        if word in ("-c", "--cached", "-m", "--modified", "-d", "--deleted", "--deduplicate"):
            continue
        if word in ("-o", "--others"):
            others = True
        elif word == "--exclude-standard":
            standard = True
        elif word == "--":
            continue
        elif word.startswith(("-", ":")):
            return None  # another option (-s prints modes and hashes) or pathspec magic
        else:
            specs.append(word)
    names = [spec.rsplit("/", 1)[-1] for spec in specs]
    if names and all(_plain(name) for name in names):
        walk = Walk(TreeKind.ALL, tuple(names))
    else:  # what git ignores is never listed, unless -o lists every untracked file
        walk = WHOLE_TREE if others and not standard else Walk(TreeKind.GIT)
    return ["."], walk, True  # printed relative to the working directory: a name may start with -


def _git_diff(args: list[str]) -> tuple[list[str], Walk, bool] | None:
    """``git diff --name-only [--cached] [REV...]``: changed files, which git prints relative to
    the top of the work tree; that is the working directory here or nothing is known (the
    caller's root check finds no .git elsewhere)."""
    if "--name-only" not in args or "--" in args:
        return None
    for word in args:
        if word.startswith("-") and word not in ("--name-only", "--cached", "--staged", "-M", "-C"):
            return None
    return ["."], Walk(TreeKind.GIT), True


# fd: options that change only which paths it prints (and -H/-I/-u, which paths it may print).
_FD_FLAGS: dict[str, Walk | None] = {
    "-H": WHOLE_TREE, "--hidden": WHOLE_TREE, "-u": WHOLE_TREE, "--unrestricted": WHOLE_TREE,
    "-I": None, "--no-ignore": None,
    "-i": None, "-s": None, "-F": None, "-a": None, "--absolute-path": None, "-0": None, "--print0": None,
    "-g": None, "--glob": None, "-p": None, "--full-path": None,
}  # fmt: skip
_FD_VALUES = frozenset(
    ("-e", "--extension", "-t", "--type", "-d", "--max-depth", "--min-depth", "-E", "--exclude")
)


def _fd(args: list[str]) -> tuple[list[str], Walk, bool] | None:
    walk = Walk(TreeKind.VISIBLE)  # fd skips hidden and ignored files unless told
    rest = []
    index = 0
    while index < len(args):
        word = args[index]
        if word in _FD_FLAGS:
            walk = _FD_FLAGS[word] or walk
            index += 1
        elif word in _FD_VALUES and index + 1 < len(args):
            index += 2
        elif word.startswith("-"):
            return None  # -x/-X run commands, -l prints details, others are not known here
        else:
            rest.append(word)
            index += 1
    roots = rest[1:]
    if not _plain_roots(roots):
        return None
    return roots or ["."], walk, not roots


def _rg(args: list[str]) -> tuple[list[str], Walk, bool] | None:
    listing = False
    rest = []
    for word in args:
        if word in ("-l", "--files", "--files-with-matches"):
            listing = True
        elif word in ("-i", "-S", "-F", "-w", "-s", "--ignore-case", "--smart-case", "--fixed-strings"):
            continue
        elif word.startswith("-"):
            return None
        else:
            rest.append(word)
    if not listing:
        return None
    roots = rest if "--files" in args else rest[1:]
    if not _plain_roots(roots):
        return None
    return roots or ["."], Walk(TreeKind.VISIBLE), not roots


def _grep(args: list[str]) -> tuple[list[str], Walk, bool] | None:
    flags = "".join(word[1:] for word in args if word.startswith("-") and not word.startswith("--"))
    if (
        any(word.startswith("--") for word in args)
        or set(flags) - set("rlisFEw")
        or not {"r", "l"} <= set(flags)
    ):
        return None
    rest = [word for word in args if not word.startswith("-")]
    roots = rest[1:]
    if not rest or not _plain_roots(roots):
        return None
    return roots or ["."], WHOLE_TREE, not roots


MAX_LISTED = 64  # ls operands (after glob expansion) followed one by one


def _ls(args: list[str], cwd: str, globs: set[int]) -> list[tuple[str, Walk]] | None:
    """``ls [-1] [-d] FILE...``: the names of files it is given, as given (a glob's matches). A
    directory operand lists its entries without the directory in front: not followed."""
    import glob

    options = [a for a in args if a.startswith("-")]
    operands = [(i, a) for i, a in enumerate(args) if not a.startswith("-")]
    if set(options) - {"-1", "-d", "--directory"} or not operands:
        return None
    directories = "-d" in options or "--directory" in options
    found: list[str] = []
    for index, operand in operands:
        matches = sorted(glob.glob(operand, root_dir=cwd)) if index in globs else [operand]
        found += matches or [operand]  # no match: ls is given the pattern itself, which it cannot find
        if len(found) > MAX_LISTED:
            return None
    for path in found:
        if path.startswith("-") or _UNSAFE.search(path):
            return None
        if not directories and os.path.isdir(os.path.join(cwd, path)):
            return None
    return [(path, WHOLE_TREE) for path in found]


_LISTERS = {"find": _find, "git": _git, "rg": _rg, "grep": _grep, "fd": _fd, "fdfind": _fd}


def _plain_roots(roots: list[str]) -> bool:
    """Whether the roots a lister is given print as themselves: no dash, nothing that comes apart."""
    return not any(root.startswith("-") or _UNSAFE.search(root) for root in roots)


def _plain(glob: str) -> bool:
    """A name glob fnmatch reads as the tools do (no classes, braces or escapes)."""
    return bool(glob) and "/" not in glob and not set("{},[]\\!").intersection(glob)


def _clean(root: str, dash_top: bool, skip_git: bool) -> bool:
    """Whether no name under ``root`` could come apart when printed (see the module), nor, with
    ``dash_top``, start with a dash at the top (paths printed without ./ in front)."""
    if not os.path.isdir(root):
        return not _UNSAFE.search(os.path.basename(root))
    # "No" is remembered for a while (too large, or a name that comes apart): the cautious answer.
    # "Yes" is kept while every directory listed is unchanged, from the second walk on (trees.py).
    key = ("clean", root, dash_top, skip_git)
    if trees.gave_up(key) is not None:
        return False
    kept = trees.searched(key)
    if kept is True:
        return True
    looked = trees.Looked() if kept is not None else None
    pending, seen = [root], 0
    while pending:
        current = pending.pop()
        if looked is not None:
            looked.directory(current)
        try:
            with os.scandir(current) as listing:
                for item in listing:
                    seen += 1
                    if (
                        seen > SCAN_LIMIT
                        or _UNSAFE.search(item.name)
                        or (dash_top and current == root and item.name.startswith("-"))
                    ):
                        trees.give_up(key, seen)
                        return False
                    if item.is_dir(follow_symlinks=False) and not (skip_git and item.name == ".git"):
                        pending.append(item.path)
        except OSError:
            continue  # unreadable: nothing of it is printed
    trees.finished(key, True, looked)
    return True


def comes_apart(text: str) -> bool:
    """Whether an unquoted expansion of ``text`` would be split or globbed by bash."""
    return _UNSAFE.search(text) is not None
