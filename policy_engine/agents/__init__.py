"""The agents: one module per agent, holding everything policy-engine knows about it.

Each module (``claude``, ``codex``, ``gemini``, ``cursor``, ``copilot``, ``pi``) has:

- its hook protocol, as pure functions: ``read(payload) -> HookEvent`` (every field that changes
  what the tool does: a working directory, a path list, a patch), ``answer(decision, event) ->
  Reply`` (per action and permission mode, with the agent's exit-code semantics), ``outcome(event,
  note) -> Reply`` (a post-tool event), ``refuse(reason)`` and ``proceed(reason)``;
- its knowledge, as data the core reads (``catalog.py``): ``TOOLS`` (its tool names, old and new,
  to canonical ones), ``TREES`` (how its search tools walk a directory), ``FIELDS`` (the input
  fields each tool is known to take: another one is a doubt), ``SETTINGS`` and ``HOMES`` (the
  files that load its hooks, for self-protection), ``TYPES_UNSEEN`` and ``REWRITES`` (whether its
  hook answer can change the command a tool runs: a sandboxed allow needs it);
- its installation: ``INSTALL`` (settings file and entry shape), ``handler``, ``sample`` and
  ``denies`` (doctor's sample call and how to read the answer), ``switch`` (how hooks are turned
  off), ``PROGRAM`` and ``VERIFIED`` (its CLI, and the version this module was verified with in
  ``tests/e2e``).

Agent modules import only ``model``, ``record`` and ``protocol``: the core reads them, never the
other way round.
"""

import sys

# Neither ``from __future__ import annotations``, ``importlib`` nor ``types``: the daemon's client
# imports this package for AGENTS, and each would cost it a fraction of a millisecond.
TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from types import ModuleType

AGENTS = ("claude", "codex", "gemini", "cursor", "copilot", "pi")


def agent_module(agent: str) -> "ModuleType":
    """The module of ``agent`` (imported on demand: a hook needs one)."""
    if agent not in AGENTS:
        raise ValueError(f'unknown agent "{agent}": use one of {", ".join(AGENTS)}')
    module = f"{__name__}.{agent}"
    __import__(module)
    return sys.modules[module]
