"""ToolCall -> atoms: the units the policy judges, each with the paths it touches and its doubts.

A file tool is one atom with one access per path it names; a patch one atom per file it changes.
A bash command is split by the shell analysis (``shell/``) into every simple command it can run,
each with its own accesses and doubts. The doubts of the call itself (a payload field its agent's
module does not know) go to every atom.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..agents.catalog import TYPES_UNSEEN
from ..agents.toolnames import (
    BASH,
    DEFAULTS_TO_CWD,
    GLOB_TOOL,
    PATCH,
    SENSES,
    glob_directory,
    input_path_lists,
    input_paths,
    missing_path,
    tree_of,
    unreadable_paths,
)
from ..model import Access, Atom, Sense
from ..paths import mentioned_paths, normalize, opaque, spelled
from .patch import PatchError, read_patch

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..model import ToolCall


def file_tool_atoms(call: ToolCall, home: str, agent_tool: str | None = None) -> tuple[Atom, ...]:
    """One atom for a non-bash tool, with an access for every path its input names (``agent_tool``:
    the agent's own name for the tool, when it walks directories its own way)."""
    if call.tool == PATCH:
        return patch_atoms(call, home)
    where = call.workdir or call.cwd
    paths = input_paths(call.input)
    lists = input_path_lists(call.input)
    pattern = call.input.get("pattern") if isinstance(call.input, Mapping) else None
    if call.tool == GLOB_TOOL:
        # Claude Code's Glob, Gemini CLI's and Copilot CLI's glob list names: the directories they
        # are given (a list's entries too) are listed, not read, and the pattern may name a
        # directory of its own, whose names it reveals
        paths = tuple(dict.fromkeys((*paths, *(entry for entry, _ in lists))))
        lists = ()
        if isinstance(pattern, str) and pattern:
            directory = glob_directory(pattern)
            if directory.startswith(("/", "~")) or not paths:
                paths = (*paths, directory)
            else:
                paths = (*paths, *(f"{p.rstrip('/')}/{directory}" for p in paths))
    if not paths and not lists and call.tool in DEFAULTS_TO_CWD:
        paths = (where,)
    sense = SENSES.get(call.tool, Sense.UNKNOWN)
    tree = tree_of(call.agent, agent_tool or call.tool, call.tool, call.input)
    accesses = [Access(normalize(p, where, home), sense, tree=tree) for p in paths]
    accesses += [Access(normalize(p, where, home), sense, tree=walk) for p, walk in lists]
    doubts = [f'the input\'s "{field}" is not a path' for field in unreadable_paths(call.input)]
    if missing_path(call.tool, call.input):
        doubts.append(f"the {agent_tool or call.tool} call names no file")
    doubts += _opaque(paths + tuple(p for p, _ in lists), where, home)
    # A tool nothing is known of (an MCP server's) may open any name its input spells.
    mentions = _mentions(call.input, where, home) if call.tool not in SENSES else ()
    return (
        Atom(call.tool, None, tuple(dict.fromkeys(accesses)), (*doubts, *call.doubts), mentions=mentions),
    )


MAX_MENTIONED = 256  # strings of an input looked at for paths


def _mentions(value: object, where: str, home: str) -> tuple[str, ...]:
    """The paths the strings of a tool's input spell, anywhere in it (``{"args": {"f": "~/.aws/x"}}``)."""
    found: list[str] = []
    pending = [value]
    seen = 0
    while pending and seen < MAX_MENTIONED:
        item = pending.pop()
        seen += 1
        if isinstance(item, str):
            found += mentioned_paths(item, where, home) if len(item) < 4096 else []
        elif isinstance(item, Mapping):
            pending += list(item.values())
        elif isinstance(item, list | tuple):
            pending += list(item)
    return tuple(dict.fromkeys(found))


def patch_atoms(call: ToolCall, home: str) -> tuple[Atom, ...]:
    """A patch judged file by file: an added file is a ``write``, an updated one an ``edit`` (a
    moved one an edit that deletes where it was), a deleted one a ``delete``."""
    text = next((v for v in (call.input.get(f) for f in PATCH_FIELDS) if isinstance(v, str)), None)
    if text is None:
        return (Atom(PATCH, None, doubts=("the patch call carries no patch text", *call.doubts)),)
    try:
        changes = read_patch(text)
    except PatchError as error:
        return (Atom(PATCH, None, doubts=(f"cannot read the patch: {error}", *call.doubts)),)
    where = call.workdir or call.cwd
    atoms = []
    for change in changes:
        tool, sense = _PATCH_TOUCHES[change.kind]
        touched = [(change.path, sense)]
        if change.move_to is not None:  # the old file goes, the new one is written
            tool, touched = "edit", [(change.path, Sense.DELETE), (change.move_to, Sense.WRITE)]
        accesses = tuple(Access(normalize(path, where, home), how) for path, how in touched)
        doubts = _opaque(tuple(path for path, _ in touched), where, home)
        atoms.append(Atom(tool, None, accesses, (*doubts, *call.doubts)))
    return tuple(atoms)


_PATCH_TOUCHES = {
    "add": ("write", Sense.WRITE),
    "update": ("edit", Sense.WRITE),
    "delete": ("delete", Sense.DELETE),
}
PATCH_FIELDS = ("command", "patch", "input")  # where a patch tool's text is (Codex: command)


def _opaque(paths: tuple[str, ...], where: str, home: str) -> list[str]:
    doubts = []
    for path in paths:
        reason = opaque(spelled(path, where, home), where)
        if reason is not None:
            doubts.append(f"cannot tell which file {path} names: {reason}")
    return doubts


def atoms_of(
    call: ToolCall,
    home: str,
    shell: Callable[[str, str], tuple[Atom, ...]],
    agent_tool: str | None = None,
) -> tuple[Atom, ...]:
    """The atoms of a tool call whose ``tool`` is already canonical (``agent_tool``: the agent's
    own name for it); ``shell`` analyses bash lines in the directory the call runs in."""
    if call.tool == BASH:
        command = call.input.get("command") if isinstance(call.input, Mapping) else None
        if not isinstance(command, str):
            return (Atom(BASH, "", doubts=("the bash call carries no command text", *call.doubts)),)
        atoms = shell(command, call.workdir or call.cwd)
        if call.agent in TYPES_UNSEEN:  # what it types into a pager is never judged
            atoms = tuple(
                atom._replace(doubts=(*atom.doubts, *atom.interactive)) if atom.interactive else atom
                for atom in atoms
            )
        if call.doubts:
            atoms = tuple(atom._replace(doubts=(*atom.doubts, *call.doubts)) for atom in atoms)
        return atoms
    return file_tool_atoms(call, home, agent_tool)
