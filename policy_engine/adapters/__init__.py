"""Agent adapters: one module per agent, each a pure mapping between its hook protocol and ours.

Every module has ``read(payload) -> HookEvent``, ``answer(decision) -> Reply``, ``outcome() ->
Reply`` (after a post-tool event) and ``refuse(reason) -> Reply`` (the blocking answer when the
call cannot be judged).
"""

from __future__ import annotations

import importlib
from types import ModuleType

AGENTS = ("claude", "codex", "gemini", "cursor", "copilot", "pi")


def adapter(agent: str) -> ModuleType:
    """The adapter module of ``agent`` (imported on demand: a hook needs one)."""
    if agent not in AGENTS:
        raise ValueError(f'unknown agent "{agent}": use one of {", ".join(AGENTS)}')
    return importlib.import_module(f"{__name__}.{agent}")
