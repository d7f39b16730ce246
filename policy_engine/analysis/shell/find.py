"""find: its roots, its expression, and what its actions (``-delete``, ``-exec``) reach.

find is read here rather than as an option table (effects.py) because its expression is a small
language: a test before an action narrows what the action acts on, and an ``-exec`` runs a command
per file found. Which primaries exist and what each takes is still data (commands.jsonc's
``find`` entry: ``options`` and ``tests``).
"""

from __future__ import annotations

import re

from ...model import WHOLE_TREE, TreeKind, Walk, as_walk
from .arguments import spec_of
from .collect import Collector, Run
from .words import Word

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any


def find_effects(collect: Collector, entry: dict[str, Any], args: list[Word], cwd: str | None) -> None:
    """What ``find ARGS`` reads, deletes and runs: its roots (after the options before them), then
    its expression, primary by primary, as the knowledge's entry lists them (``tests`` narrow,
    actions such as ``-delete`` and ``-exec`` act on what the tests let through)."""
    index = 0
    follows = False
    roots: list[Word] = []
    # Options before the roots (find -L / -delete); BSD's too: -E -X -x -s -d, and -f ROOT.
    while index < len(args) and args[index].static and re.fullmatch(_FIND_LEADING, args[index].text):
        follows = follows or args[index].text == "-L"
        if args[index].text in ("-D", "-f") and index + 1 < len(args):
            roots += [args[index + 1]] if args[index].text == "-f" else []
            index += 1
        index += 1
    follows = follows or any(w.static and w.text == "-follow" for w in args[index:])
    while index < len(args) and not (
        args[index].static and (args[index].text[:1] in "-(!)" and args[index].text)
    ):
        roots.append(args[index])
        index += 1
    roots = roots or [Word(".", True, False, ".")]
    for root in roots:
        collect.path(root, "read", cwd)
    primaries = entry.get("options", {})
    tests = entry.get("tests", ())
    narrowed = False  # after a test, an action acts on some files under a root, not on its whole tree
    names = _name_filter(args[index:])
    while index < len(args):
        word = args[index]
        index += 1
        narrowed = narrowed or (word.static and word.text in tests)
        spec = spec_of(primaries.get(word.text, "flag")) if word.static else {}
        known = word.text in primaries or word.text in tests or word.text in _FIND_OPERATORS
        if word.static and word.text[:1] == "-" and not known and word.text not in ("-a", "-and"):
            collect.unproven.append(f"`{word.text}` is a find primary the command knowledge does not list")
        if spec.get("doubt"):
            collect.doubts.append(spec["doubt"])
        change = spec.get("set") or {}
        if change.get("effect"):
            # -delete after tests deletes some files under a root: those a -name names, if it has one
            if narrowed:
                tree = Walk(TreeKind.ALL, (names,)) if names else None
            else:
                tree = as_walk(change.get("tree"))
            tree = Walk(TreeKind.FOLLOW) if follows and tree == WHOLE_TREE else tree
            for root in roots:
                collect.path(root, change["effect"], cwd, tree)
        takes = spec.get("takes")
        if takes == "command":
            end = next((i for i in range(index, len(args)) if args[i].text in (";", "+")), len(args))
            inner = args[index:end]
            index = end + 1
            for root in roots:
                if any("{}" in w.text for w in inner):  # it is handed every file found (and reads it)
                    collect.path(
                        root, "read", cwd, Walk(TreeKind.ALL, (names,)) if narrowed and names else WHOLE_TREE
                    )
                found = root.text.rstrip("/") + "/{}" if narrowed else root.text  # a file under it, or all
                replaced = tuple(
                    Word(w.text.replace("{}", found), w.static and root.static, w.glob, w.raw)
                    if "{}" in w.text
                    else w
                    for w in inner
                )
                if replaced:
                    collect.runs.append(Run(replaced, None, cwd))
        elif takes and index < len(args):
            value = args[index]
            index += 1
            if takes == "list":
                collect.path(value, "read", cwd)
                collect.doubts.append(f"{word.text} reads the names of the files to read from `{value.raw}`")
            elif takes not in ("value", "cwd", "into", "code"):
                collect.path(value, takes, cwd)


_FIND_LEADING = r"-[HLPEXxsdf]|-O\d*|-D"  # compiled where used (re keeps it): off the hook's import
# find's operators: with any of them, which files a -name lets through cannot be told simply.
_FIND_OPERATORS = frozenset(("-o", "-or", "!", "-not", ",", "(", ")", "\\(", "\\)"))


def _name_filter(expression: list[Word]) -> str | None:
    """The glob of a find expression's one ``-name`` (or ``-iname``, lower-cased) when it is a plain
    conjunction: the basenames the actions can reach. None when there is none, or it cannot be told."""
    found = None
    for position, word in enumerate(expression):
        if not word.static or word.text in _FIND_OPERATORS:
            return None
        if word.text in ("-name", "-iname") and position + 1 < len(expression):
            value = expression[position + 1]
            if found is not None or not value.static or word.text == "-iname":
                return None  # two names, a computed one, or one matched without case: not told
            found = value.text
    return found
