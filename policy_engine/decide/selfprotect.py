"""Self-protection: the engine's own policy, trust, state and cache, and the agent settings that load
the hook, cannot be written by the agent it judges (on unless the user's policy turns it off).

An agent that may edit ``~/.claude/settings.json`` or the policy file can switch the gate off; these
paths are protected like a ``{"write": "deny"}`` pathProtection entry, checked before every rule,
so no rule or approval opens them. Reading them is allowed, but for the daemon's secret
(``daemon.key``): a command that could read it could answer for the daemon. The list depends on
the environment (``XDG_*``, ``POLICY_ENGINE_*``) and on which files were found, so it is built per
engine, not compiled into the cached policy; it needs no pathspec: the patterns are written as
regexes here.
"""

from __future__ import annotations

import os
import re
import sys

from ..agents import catalog
from ..config.cache import cache_directory
from ..config.compiled import READ_SENSES, WRITE_SENSES, Protection
from ..config.discover import agent_directory, managed_path, user_candidates
from ..config.trust import store_path
from ..model import Action, Origin
from ..session.statedir import key_path, state_directory

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..config.discover import Discovery

ORIGIN = Origin("built-in", 0, 0, "selfProtection")

# Settings that load hooks, wherever a project keeps them (a relative name in any directory,
# checked at the top of a walked tree too): (shown pattern, name or directory, regex of the rest).
# Ours, and each agent's (agents/<agent>.py SETTINGS): the directories that hold agent settings,
# themselves, too, since replacing or removing one (`mv x .claude`) replaces the settings inside.
SETTINGS = ((".policy-engine/", ".policy-engine", r"(?:/.*)?"), *catalog.SETTINGS)


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
        # The agents' own directories (their default place, and where a variable moves them).
        *(os.path.join(home, *relative.split("/")) for _, relative in catalog.HOMES),
        *(agent_directory(env, variable, relative) for variable, relative in catalog.HOMES),
        # The engine itself: its code (a changed client.py or a .pth beside it runs anything).
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    ]
    return list(dict.fromkeys(os.path.normpath(path) for path in paths))


def self_protections(env: Mapping[str, str], discovery: Discovery, home: str) -> tuple[Protection, ...]:
    """The protections that keep the agent from editing what decides over it."""
    entries = [_absolute(path) for path in protected_paths(env, discovery, home)]
    # The daemon's secret is neither read nor written: with it, anything listening on the socket
    # would be believed (client.py), and the agent's commands could answer for the engine.
    key = os.path.normpath(key_path(env))
    senses = tuple(dict.fromkeys(READ_SENSES + WRITE_SENSES))
    entries.append(
        Protection(
            key,
            Action.DENY,
            "absolute",
            re.escape(key.lstrip("/")) + "$",
            ORIGIN,
            senses,
            key.lstrip("/"),
            True,
        )
    )
    # A .pth file where this interpreter loads them runs code in every Python start, the hook's too.
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for packages in dict.fromkeys(  # in a fixed order: verdicts must come out the same in every process
        (
            os.path.join(sys.prefix, "lib", version, "site-packages"),
            os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        )
    ):
        pth = re.escape(packages.lstrip("/")) + r"/[^/]*\.pth$"
        shown = f"{packages}/*.pth"
        entries.append(
            Protection(shown, Action.DENY, "absolute", pth, ORIGIN, WRITE_SENSES, packages.lstrip("/"), False)
        )
    for shown, name, rest in SETTINGS:
        regex = rf"(?:.+/)?{re.escape(name)}{rest}$"
        entries.append(Protection(shown, Action.DENY, "anywhere", regex, ORIGIN, WRITE_SENSES, name, True))
    return tuple(entries)


def _absolute(path: str) -> Protection:
    regex = re.escape(path.lstrip("/")) + r"(?:/.*)?$"
    return Protection(path, Action.DENY, "absolute", regex, ORIGIN, WRITE_SENSES, path.lstrip("/"), True)
