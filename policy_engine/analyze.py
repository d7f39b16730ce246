"""ToolCall -> atoms: the units the policy judges, each with the paths it touches and its doubts.

A file tool is one atom with one access per path it names. A bash command is split by the shell
analysis (``shell/``) into every simple command it can run, each with its own accesses and doubts.
"""

from __future__ import annotations

from collections.abc import Mapping

from .model import Access, Atom, Sense
from .paths import normalize
from .tools import BASH, DEFAULTS_TO_CWD, SENSES, input_path_lists, input_paths, tree_of, unreadable_paths

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable

    from .model import ToolCall


def file_tool_atoms(call: ToolCall, home: str, agent_tool: str | None = None) -> tuple[Atom, ...]:
    """One atom for a non-bash tool, with an access for every path its input names (``agent_tool``:
    the agent's own name for the tool, when it walks directories its own way)."""
    paths = input_paths(call.input)
    lists = input_path_lists(call.input)
    if not paths and not lists and call.tool in DEFAULTS_TO_CWD:
        paths = (call.cwd,)
    sense = SENSES.get(call.tool, Sense.UNKNOWN)
    tree = tree_of(agent_tool or call.tool, call.tool, call.input)
    accesses = [Access(normalize(p, call.cwd, home), sense, tree=tree) for p in paths]
    accesses += [Access(normalize(p, call.cwd, home), sense, tree=walk) for p, walk in lists]
    doubts = tuple(f'the input\'s "{field}" is not a path' for field in unreadable_paths(call.input))
    return (Atom(call.tool, None, tuple(dict.fromkeys(accesses)), doubts),)


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
