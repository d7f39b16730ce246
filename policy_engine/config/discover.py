"""Finding the policy files that apply to a working directory, and explaining the search.

Explicit files (``--config``, ``POLICY_ENGINE_CONFIG``) replace the search for user and project
files. Otherwise: the user file (ours, else pi-control's global file), the approvals store, and the
nearest project file walking up from the working directory (ours, else pi-control's). The managed
file applies in every case. Standard library only: this runs on every hook call.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ..record import Record

MANAGED_DEFAULT = "/etc/policy-engine/policy.jsonc"
OUR_PROJECT = (".policy-engine", "policy.jsonc")
PI_PROJECT = ((".pi", "extensions", "pi-controls.jsonc"), (".pi", "extensions", "pi-controls.json"))

MANAGED, USER, PROJECT, EXPLICIT = "managed", "user", "project", "explicit"
APPROVALS = "approvals"  # the approvals store (config/approvals.py): the user's, beside the user file


class Source(Record):
    """A policy file that was found: its role, absolute path and format family."""

    role: str
    path: str
    flavor: str = "policy-engine"


class Discovery(Record):
    """The files that apply, the project root (the directory holding the project file), and a
    line per place that was looked at, for ``policy config``."""

    sources: tuple[Source, ...]
    project_root: str | None
    searched: tuple[str, ...]


def home_directory(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def xdg_directory(env: Mapping[str, str], variable: str, fallback: str) -> str:
    """An XDG base directory: the variable if it is an absolute path, else ``~/<fallback>``."""
    value = env.get(variable, "")
    return value if value.startswith("/") else os.path.join(home_directory(env), fallback)


def explicit_paths(env: Mapping[str, str]) -> list[str]:
    """The files named by ``POLICY_ENGINE_CONFIG`` (a path list)."""
    return [p for p in env.get("POLICY_ENGINE_CONFIG", "").split(os.pathsep) if p]


def managed_path(env: Mapping[str, str]) -> str | None:
    """The managed file's path; ``POLICY_ENGINE_MANAGED_CONFIG=`` (empty) means none."""
    value = env.get("POLICY_ENGINE_MANAGED_CONFIG")
    if value is None:
        return MANAGED_DEFAULT
    return value or None


def agent_directory(env: Mapping[str, str], variable: str | None, relative: str) -> str:
    """An agent's own directory: ``$variable`` when set (a leading ``~`` is HOME), else
    ``relative`` under HOME (``CODEX_HOME``, ``.codex``)."""
    value = env.get(variable, "").strip() if variable else ""
    if value:
        home = home_directory(env)
        return home + value[1:] if value == "~" or value.startswith("~/") else value
    return os.path.join(home_directory(env), *relative.split("/"))


def pi_agent_directory(env: Mapping[str, str]) -> str:
    return agent_directory(env, "PI_CODING_AGENT_DIR", ".pi/agent")


def approvals_path(env: Mapping[str, str]) -> str:
    """The approvals store, beside the trust store."""
    return os.path.join(
        xdg_directory(env, "XDG_DATA_HOME", ".local/share"), "policy-engine", "approvals.json"
    )


def user_candidates(env: Mapping[str, str]) -> list[Source]:
    """Where the user file may be, in order of preference."""
    ours = os.path.join(xdg_directory(env, "XDG_CONFIG_HOME", ".config"), "policy-engine", "policy.jsonc")
    pi = os.path.join(pi_agent_directory(env), "extensions")
    return [
        Source(USER, ours),
        Source(USER, os.path.join(pi, "pi-controls.jsonc"), "pi-control"),
        Source(USER, os.path.join(pi, "pi-controls.json"), "pi-control"),
    ]


def _ancestors(start: str, home: str) -> list[str]:
    """``start`` and its parents, up to but excluding the home directory (or up to ``/``)."""
    found = []
    directory = os.path.normpath(start)
    while True:
        if directory == home:
            break
        found.append(directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return found


def find_project(cwd: str, env: Mapping[str, str]) -> tuple[Source | None, str | None]:
    """The nearest project file walking up from ``cwd`` (ours first, else pi-control's) and its root."""
    directories = _ancestors(cwd, os.path.normpath(home_directory(env)))
    for parts, flavor in [(OUR_PROJECT, "policy-engine")] + [(p, "pi-control") for p in PI_PROJECT]:
        for directory in directories:
            path = os.path.join(directory, *parts)
            if os.path.isfile(path):
                return Source(PROJECT, path, flavor), directory
    return None, None


def discover(cwd: str, env: Mapping[str, str], explicit: Sequence[str] = ()) -> Discovery:
    """The policy files that apply to a tool call made in ``cwd``."""
    sources: list[Source] = []
    searched: list[str] = []
    managed = managed_path(env)
    if managed is None:
        searched.append("managed: disabled (POLICY_ENGINE_MANAGED_CONFIG is empty)")
    elif os.path.exists(managed):
        sources.append(Source(MANAGED, managed))
        searched.append(f"managed: {managed} (found)")
    else:
        searched.append(f"managed: {managed} (not found)")
    named = list(explicit) or explicit_paths(env)
    if named:
        how = "--config" if explicit else "POLICY_ENGINE_CONFIG"
        for path in named:
            sources.append(Source(EXPLICIT, os.path.abspath(path)))
            searched.append(f"explicit ({how}): {os.path.abspath(path)}")
        searched.append(f"user and project files: not searched ({how} replaces discovery)")
        return Discovery(tuple(sources), None, tuple(searched))
    for candidate in user_candidates(env):
        if os.path.isfile(candidate.path):
            sources.append(candidate)
            searched.append(f"user: {candidate.path} (found)")
            break
        searched.append(f"user: {candidate.path} (not found)")
    store = approvals_path(env)
    if os.path.isfile(store):
        sources.append(Source(APPROVALS, store, "store"))
        searched.append(f"approvals: {store} (found)")
    else:
        searched.append(f"approvals: {store} (not found)")
    project, root = find_project(cwd, env)
    if project is None:
        searched.append(
            "project: no .policy-engine/policy.jsonc or .pi/extensions/pi-controls.json[c] "
            f"from {cwd} upwards"
        )
    else:
        sources.append(project)
        searched.append(f"project: {project.path} (found)")
    return Discovery(tuple(sources), root, tuple(searched))
