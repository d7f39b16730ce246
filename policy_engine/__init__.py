"""policy-engine: declarative, location-scoped allow / nudge / log / ask / deny for agent tool calls.

>>> from policy_engine import Engine, ToolCall
>>> decision = Engine().evaluate(ToolCall("bash", {"command": "git status"}, cwd="/work/app"))
>>> decision.action, decision.reason
"""

from .engine import Engine
from .errors import ConfigError, Problem
from .model import Access, Action, Atom, Decision, Sense, ToolCall, Verdict
from .version import __version__

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
    "Verdict",
    "__version__",
]
