"""Self-protection: the engine's own policy, trust, state and cache, and the agent settings that load
the hook, cannot be written by the agent it judges (on unless the user's policy turns it off).

An agent that may edit ``~/.claude/settings.json`` or the policy file can switch the gate off; these
paths are protected like a ``{"write": "deny"}`` pathProtection entry, checked before every rule,
so no rule or approval opens them. Reading them is allowed. The list depends on the environment
(``XDG_*``, ``POLICY_ENGINE_*``) and on which files were found, so it is built per engine, not
compiled into the cached policy; it needs no pathspec: the patterns are written as regexes here.
"""

from __future__ import annotations

import os
import re
import sys

from .config.cache import cache_directory
from .config.discover import managed_path, pi_agent_directory, user_candidates
from .config.trust import store_path
from .model import Action, Origin
from .policy import WRITE_SENSES, Protection
from .statedir import state_directory

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Mapping

    from .config.discover import Discovery

ORIGIN = Origin("built-in", 0, 0, "selfProtection")

# Agent settings that load hooks, wherever a project keeps them (a relative name in any directory,
# checked at the top of a walked tree too): (shown pattern, name or directory, regex of the rest).
AGENT_SETTINGS = (
    (".policy-engine/", ".policy-engine", r"(?:/.*)?"),
    # The directories that hold agent settings, themselves: replacing or removing one (`mv x .claude`)
    # replaces the settings inside; writing other files in them (.claude/commands/) stays allowed.
    (".claude", ".claude", ""),
    (".gemini", ".gemini", ""),
    (".cursor", ".cursor", ""),
    (".github", ".github", ""),
    (".copilot", ".copilot", ""),
    (".pi/", ".pi", r"(?:/.*)?"),
    (".claude/settings*.json", ".claude", r"/settings[^/]*\.json"),
    (".gemini/settings.json", ".gemini", r"/settings\.json"),
    (".codex/", ".codex", r"(?:/.*)?"),
    (".cursor/hooks.json", ".cursor", r"/hooks\.json"),
    (".github/hooks/", ".github", r"/hooks(?:/.*)?"),  # GitHub Copilot's, per repository
    (".copilot/hooks/", ".copilot", r"/hooks(?:/.*)?"),  # and per user
)


def protected_paths(env: Mapping[str, str], discovery: Discovery, home: str) -> list[str]:
    """The absolute paths (files or directories) self-protection covers besides agent settings."""
    paths = [source.path for source in discovery.sources]
    paths += [candidate.path for candidate in user_candidates(env)]
    managed = managed_path(env)
    if managed is not None:
        paths.append(managed)
    paths += [
        os.path.dirname(store_path(env)),
        state_directory(env),
        cache_directory(env),
        pi_agent_directory(env),
        os.path.join(home, ".codex"),
        # The engine itself: its code (a changed client.py or a .pth beside it runs anything).
        os.path.dirname(os.path.abspath(__file__)),
        *(env[name] for name in ("CODEX_HOME", "COPILOT_HOME") if env.get(name)),
    ]
    return list(dict.fromkeys(os.path.normpath(path) for path in paths))


def self_protections(env: Mapping[str, str], discovery: Discovery, home: str) -> tuple[Protection, ...]:
    """The protections that keep the agent from editing what decides over it."""
    entries = [_absolute(path) for path in protected_paths(env, discovery, home)]
    # A .pth file where this interpreter loads them runs code in every Python start, the hook's too.
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for packages in dict.fromkeys(  # in a fixed order: verdicts must come out the same in every process
        (
            os.path.join(sys.prefix, "lib", version, "site-packages"),
            os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        )
    ):
        pth = re.escape(packages.lstrip("/")) + r"/[^/]*\.pth$"
        shown = f"{packages}/*.pth"
        entries.append(
            Protection(shown, Action.DENY, "absolute", pth, ORIGIN, WRITE_SENSES, packages.lstrip("/"), False)
        )
    for shown, name, rest in AGENT_SETTINGS:
        regex = rf"(?:.+/)?{re.escape(name)}{rest}$"
        entries.append(Protection(shown, Action.DENY, "anywhere", regex, ORIGIN, WRITE_SENSES, name, True))
    return tuple(entries)


def _absolute(path: str) -> Protection:
    regex = re.escape(path.lstrip("/")) + r"(?:/.*)?$"
    return Protection(path, Action.DENY, "absolute", regex, ORIGIN, WRITE_SENSES, path.lstrip("/"), True)
