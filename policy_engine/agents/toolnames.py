"""What the engine knows about tools: agent-specific names, where a tool's path is, how it touches it.

Adapters and rules both speak canonical names, so one policy file serves every agent: a rule for
``write`` covers Claude Code's ``Write`` and Gemini CLI's ``write_file``. Tools not listed here keep
their own name, so ``github_*`` and ``mcp__*`` rules work unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import EVERY_NAME, WHOLE_TREE, Sense, TreeKind, Walk, parse_walk, walk_naming
from ..paths import glob_root
from . import catalog

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

BASH = "bash"

# Agent tool name -> canonical tool name, for every agent (each agent's own table is in its module,
# agents/<agent>.py). A call from a known agent is named by that agent's table.
ALIASES: dict[str, str] = catalog.ALIASES
PATCH = "patch"  # Codex's apply_patch: judged file by file (patch.py)

# How each file tool touches its path. Directory tools read the tree they are pointed at.
SENSES: dict[str, Sense] = {
    "read": Sense.READ,
    "write": Sense.WRITE,
    "edit": Sense.WRITE,
    "delete": Sense.DELETE,
    "grep": Sense.READ,
    "find": Sense.READ,
    "ls": Sense.READ,
}

# Directory tools without a path search the working directory; the others need a path.
DEFAULTS_TO_CWD = frozenset({"grep", "find", "ls"})
NEEDS_PATH = frozenset({"read", "write", "edit", "delete"})
GLOB_TOOL = "find"  # the agents' glob tools, whose `pattern` is a path glob

# How a search tool reads the files under a directory it is given (``Access.tree``), when its
# agent is not known: every file. Each agent's own tools walk as its module says (``TREES``:
# Claude Code's and pi's Grep are ripgrep with --hidden, which skips what git ignores, TreeKind
# "git"; Gemini CLI's and Copilot CLI's read hidden files too). find and ls only list names.
TREES: dict[str, str] = {"grep": "all"}  # as Walk spellings (model.parse_walk), like the agents' own
# Fields of the search tools that limit a walk to the files a glob names (Claude Code's Grep
# `glob`, Gemini CLI's `include` and `include_pattern`): ripgrep reads them even when hidden or
# ignored.
NAME_GLOB_FIELDS = ("glob", "include", "include_pattern")

# Input fields that name one path, in the order agents use them (pi, Claude Code, Gemini CLI, ...),
# and fields that name several: each a path, a directory read whole, or a glob (Gemini CLI's
# read_many_files takes `paths` and `include` globs, dotfiles included).
PATH_FIELDS = ("path", "file_path", "absolute_path", "notebook_path", "dir_path", "filePath")
PATH_LIST_FIELDS = ("paths", "absolute_paths", "include")
GLOB_CHARACTERS = frozenset("*?[{")


def canonical_tool(name: str, agent: str | None = None) -> str:
    """The canonical name of an agent's tool (``Bash`` -> ``bash``), by ``agent``'s own table when
    it is known; unknown names are kept."""
    own = catalog.TOOLS.get(agent) if agent else None
    if own is not None and name in own:
        return own[name]
    return ALIASES.get(name, name)


def missing_path(tool: str, tool_input: Any) -> bool:
    """Whether a file tool (canonically ``tool``) that needs a path names none: judged at the
    working directory, a ``Write`` with only ``content`` would be allowed for a file nobody saw."""
    return tool in NEEDS_PATH and not input_paths(tool_input) and not input_path_lists(tool_input)


def input_paths(tool_input: Any) -> tuple[str, ...]:
    """The paths named by a tool's single-path fields, in field order; empty when there are none.
    Every path field counts: which one an agent's tool uses is the agent's business, and a call
    that names two must be judged at both."""
    if not isinstance(tool_input, Mapping):
        return ()
    paths = [v for v in (tool_input.get(f) for f in PATH_FIELDS) if isinstance(v, str) and v]
    return tuple(dict.fromkeys(paths))


def input_path_lists(tool_input: Any) -> tuple[tuple[str, Walk], ...]:
    """The entries of a tool's path-list fields, each as (the path to judge, how it is walked): a
    plain entry is itself, or the whole tree if it is a directory; a glob is the tree of its literal
    leading directory, limited to the names its last part matches (``*.ts`` for ``src/**/*.ts``).
    Gemini CLI matches them without case, so the names are matched so too (and ``.ENV`` also
    names ``.env``)."""
    if not isinstance(tool_input, Mapping):
        return ()
    entries: list[tuple[str, Walk]] = []
    for field in PATH_LIST_FIELDS:
        values = tool_input.get(field)
        if not isinstance(values, list):
            continue
        for value in (v for v in values if isinstance(v, str) and v):
            root = glob_root(value, GLOB_CHARACTERS)
            parent, _, last = value.rstrip("/").rpartition("/")
            if root is not None:  # a glob: the files its last part names, in any case
                walk = walk_naming([last]) if "{" not in last else EVERY_NAME  # fnmatch knows no {a,b}
                entries.append((root, _caseless_walk(walk.names)))
                continue
            entries.append((value, WHOLE_TREE))  # a path: itself, a directory whole, its name in any case
            if last.lower() != last.upper():
                entries.append((parent or ("/" if value.startswith("/") else "."), _caseless_walk((last,))))
    return tuple(dict.fromkeys(entries))


def _caseless_walk(names: tuple[str, ...]) -> Walk:
    """The walk of the entries named like ``names`` in any case."""
    return Walk(TreeKind.ALL, tuple(_caseless(name) for name in names))


def _caseless(glob: str) -> str:
    """``glob`` matching its letters in either case (``.env`` -> ``.[eE][nN][vV]``); a glob with
    classes of its own becomes ``*``, which matches whatever they would."""
    if "[" in glob or "]" in glob:
        return "*"
    return "".join(f"[{c.lower()}{c.upper()}]" if c.lower() != c.upper() else c for c in glob)


def glob_directory(pattern: str) -> str:
    """The directory a glob lists (``~/.ssh`` for ``~/.ssh/*``, ``.`` for ``**/*.py``): a glob
    tool's ``pattern`` names what it reveals, as ``LS`` of that directory would."""
    return glob_root(pattern, GLOB_CHARACTERS) or pattern


def tree_of(agent: str | None, agent_tool: str, tool: str, tool_input: Any = None) -> Walk | None:
    """How an agent's tool (canonically ``tool``) walks a directory it is given, if it does."""
    if agent:
        tree = catalog.TREES.get((agent, agent_tool), TREES.get(tool))
    else:
        tree = catalog.TREES_BY_NAME.get(agent_tool, TREES.get(tool))
    if tree is not None and isinstance(tool_input, Mapping):
        globs = [tool_input[f] for f in NAME_GLOB_FIELDS if isinstance(tool_input.get(f), str)]
        globs = [glob for glob in globs if not glob.startswith("!")]  # an exclusion only narrows
        if globs:
            return walk_naming(globs)
    return None if tree is None else parse_walk(tree)


def unreadable_paths(tool_input: Any) -> tuple[str, ...]:
    """The path fields of a tool's input whose value is not a path (``{"file_path": 5}``)."""
    if not isinstance(tool_input, Mapping):
        return ()
    odd = [
        f for f in PATH_FIELDS if f in tool_input and not (isinstance(tool_input[f], str) and tool_input[f])
    ]
    odd += [
        f
        for f in PATH_LIST_FIELDS
        if f in tool_input
        and not (isinstance(tool_input[f], list) and all(isinstance(v, str) and v for v in tool_input[f]))
        and not (f in NAME_GLOB_FIELDS and isinstance(tool_input[f], str))
    ]
    return tuple(odd)
