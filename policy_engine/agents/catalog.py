"""What the core knows about every agent, gathered from the agent modules: their tool names, how
their search tools walk a directory, and the settings files self-protection covers. Data only:
the modules declare it, this module merges it, ``tools.py`` and ``selfprotect.py`` read it."""

from __future__ import annotations

from . import claude, codex, copilot, cursor, gemini, pi

MODULES = (claude, codex, gemini, cursor, copilot, pi)

# Agent -> its tool names -> canonical names.
TOOLS: dict[str, dict[str, str]] = {module.AGENT: module.TOOLS for module in MODULES}
# Any agent's tool name -> its canonical name: for rules, approvals and `policy check --tool`,
# which name a tool without saying whose it is. The agents' names never disagree (a test checks).
ALIASES: dict[str, str] = {
    name: canonical for module in MODULES for name, canonical in module.TOOLS.items() if name != canonical
}
# (agent, its tool name) -> how that tool walks a directory it is given (Access.tree).
TREES: dict[tuple[str, str], str] = {
    (module.AGENT, tool): walk for module in MODULES for tool, walk in module.TREES.items()
}
# A tool name -> its walk, for a call that does not say whose it is: the agents' walk when they
# agree (only Claude Code has Grep), every file ("all") when they do not.
TREES_BY_NAME: dict[str, str] = {}
for (_, _tool), _walk in TREES.items():
    TREES_BY_NAME[_tool] = _walk if TREES_BY_NAME.get(_tool, _walk) == _walk else "all"
# Self-protection: (shown pattern, a directory name, a regex of the rest) wherever a project keeps
# them, and the agents' own directories: (the variable that moves one, its place under HOME).
SETTINGS: tuple[tuple[str, str, str], ...] = tuple(
    dict.fromkeys(entry for module in MODULES for entry in module.SETTINGS)
)
# The agents that can type into a command they run without the hook seeing it: an interactive
# program (a pager) is in doubt under them (analyze.py).
TYPES_UNSEEN: frozenset[str] = frozenset(module.AGENT for module in MODULES if module.TYPES_UNSEEN)
# The agents whose hook answer can change the command a tool runs: a sandboxed allow reaches them as
# the confined command; under any other, a rule that allows a command only in a sandbox asks.
REWRITES: frozenset[str] = frozenset(module.AGENT for module in MODULES if module.REWRITES)
HOMES: tuple[tuple[str | None, str], ...] = tuple(
    dict.fromkeys(home for module in MODULES for home in module.HOMES)
)
