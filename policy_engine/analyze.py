"""ToolCall -> atoms: the units the policy judges, each with the paths it touches and its doubts.

A file tool is one atom with one access per path it names. A bash command is split by the shell
analysis (``shell/``) into every simple command it can run, each with its own accesses and doubts.
"""

from __future__ import annotations

from collections.abc import Mapping

from .model import Access, Atom, Sense
from .paths import normalize, opaque, spelled
from .tools import (
    BASH,
    DEFAULTS_TO_CWD,
    GLOB_TOOL,
    SENSES,
    glob_directory,
    input_path_lists,
    input_paths,
    tree_of,
    unreadable_paths,
)

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable

    from .model import ToolCall


def file_tool_atoms(call: ToolCall, home: str, agent_tool: str | None = None) -> tuple[Atom, ...]:
    """One atom for a non-bash tool, with an access for every path its input names (``agent_tool``:
    the agent's own name for the tool, when it walks directories its own way)."""
    paths = input_paths(call.input)
    pattern = call.input.get("pattern") if isinstance(call.input, Mapping) else None
    if call.tool == GLOB_TOOL and isinstance(pattern, str) and pattern:
        # Claude Code's Glob, Gemini CLI's glob: the pattern (taken from the path given, if any)
        # may name a directory of its own, whose names it reveals
        directory = glob_directory(pattern)
        if paths and not directory.startswith(("/", "~")):
            directory = f"{paths[0].rstrip('/')}/{directory}"
        paths = (*paths, directory)
    lists = input_path_lists(call.input)
    if not paths and not lists and call.tool in DEFAULTS_TO_CWD:
        paths = (call.cwd,)
    sense = SENSES.get(call.tool, Sense.UNKNOWN)
    tree = tree_of(agent_tool or call.tool, call.tool, call.input)
    accesses = [Access(normalize(p, call.cwd, home), sense, tree=tree) for p in paths]
    accesses += [Access(normalize(p, call.cwd, home), sense, tree=walk) for p, walk in lists]
    doubts = [f'the input\'s "{field}" is not a path' for field in unreadable_paths(call.input)]
    for path in (*paths, *(p for p, _ in lists)):
        reason = opaque(spelled(path, call.cwd, home), call.cwd)
        if reason is not None:
            doubts.append(f"cannot tell which file {path} names: {reason}")
    return (Atom(call.tool, None, tuple(dict.fromkeys(accesses)), tuple(doubts)),)


def atoms_of(
    call: ToolCall,
    home: str,
    shell: Callable[[str, str], tuple[Atom, ...]],
    agent_tool: str | None = None,
) -> tuple[Atom, ...]:
    """The atoms of a tool call whose ``tool`` is already canonical (``agent_tool``: the agent's
    own name for it); ``shell`` analyses bash lines."""
    if call.tool == BASH:
        command = call.input.get("command") if isinstance(call.input, Mapping) else None
        if not isinstance(command, str):
            return (Atom(BASH, "", doubts=("the bash call carries no command text",)),)
        return shell(command, call.cwd)
    return file_tool_atoms(call, home, agent_tool)
