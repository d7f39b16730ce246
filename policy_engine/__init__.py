"""policy-engine: declarative, location-scoped allow / nudge / log / ask / deny for agent tool calls.

>>> from policy_engine import Engine, ToolCall
>>> decision = Engine().evaluate(ToolCall("bash", {"command": "git status"}, cwd="/work/app"))
>>> decision.action, decision.reason

The names below are imported when first used: a hook call answered by the daemon must not pay
for loading the engine (``client.py``).
"""

import sys

from .version import __version__

# Neither ``from __future__ import annotations`` nor ``importlib`` (which brings ``warnings``): the
# daemon's client imports this package, and each costs it a fraction of a millisecond.
TYPE_CHECKING = False  # not typing's: importing typing costs ~5 ms; type checkers treat it as True
if TYPE_CHECKING:
    from typing import Any

    from .engine import Engine
    from .errors import ConfigError, Problem
    from .model import Access, Action, Atom, Decision, Sense, ToolCall, TreeKind, Verdict, VerdictKind, Walk

_HOMES = {
    "Engine": "engine",
    "ConfigError": "errors",
    "Problem": "errors",
    "Access": "model",
    "Action": "model",
    "Atom": "model",
    "Decision": "model",
    "Sense": "model",
    "ToolCall": "model",
    "TreeKind": "model",
    "Verdict": "model",
    "VerdictKind": "model",
    "Walk": "model",
}

__all__ = [
    "Access",
    "Action",
    "Atom",
    "ConfigError",
    "Decision",
    "Engine",
    "Problem",
    "Sense",
    "ToolCall",
    "TreeKind",
    "Verdict",
    "VerdictKind",
    "Walk",
    "__version__",
]


def __getattr__(name: str) -> "Any":
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'policy_engine' has no attribute {name!r}")
    module = f"{__name__}.{home}"
    __import__(module)
    value = getattr(sys.modules[module], name)
    globals()[name] = value
    return value
