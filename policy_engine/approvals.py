"""Persisted approvals: ``policy approve``, ``policy approvals`` and ``policy revoke``.

An approval is written into the user's policy file (or the trusted project file) as one
``approvalRules`` entry, keeping the file's comments and formatting (``config/edit.py``). It is
narrow by construction: one exact command (or a pattern the user typed), one policy, and for file
tools one path (or a glob the user typed). The engine applies it per atom (``decide.py``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .config.discover import PROJECT, USER, find_project, user_candidates
from .config.edit import add_approval, remove_approval
from .config.jsonc import parse
from .config.trust import digest, read_store, recorded_digest, trust
from .errors import ApprovalError
from .fileio import atomic_write
from .record import Record
from .tools import BASH

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .engine import Engine
    from .model import ToolCall


class Listed(Record):
    """One approval of a file, as ``policy approvals`` shows it."""

    file: str
    position: int
    line: int
    rule: dict[str, Any]


def approval_file(scope: str, cwd: str, env: Mapping[str, str]) -> str:
    """The file approvals of ``scope`` (``user`` or ``project``) go to.

    The user file is the one discovery finds (ours, else pi-control's), else ours is created. A
    project approval needs the project file to be trusted: an untrusted one can only tighten, so
    an approval in it would loosen nothing.
    """
    if scope == USER:
        candidates = user_candidates(env)
        return next((c.path for c in candidates if os.path.isfile(c.path)), candidates[0].path)
    source, _ = find_project(cwd, env)
    if source is None:
        raise ApprovalError(f"no project policy file (.policy-engine/policy.jsonc) from {cwd} upwards")
    if not _trusted(source.path, env):
        raise ApprovalError(
            f"{source.path} is not trusted, so its approvals could not loosen anything: review it and "
            "run `policy trust`, or approve for yourself with --user"
        )
    return source.path


def _trusted(path: str, env: Mapping[str, str]) -> bool:
    recorded = recorded_digest(read_store(env), path)
    return recorded is not None and recorded == digest(_read(path))


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return ""


def approval_for(
    engine: Engine,
    call: ToolCall,
    *,
    policy: str | None,
    pattern: str | None,
    path: str | None,
    allow_unanalyzed: bool,
) -> dict[str, Any]:
    """The approval entry for ``call``: its one command (or ``pattern``), or its path (or ``path``),
    and the policy that judges it (``policy``, or the only one that does)."""
    decision = engine.evaluate(call)
    atoms = list(dict.fromkeys(verdict.atom for verdict in decision.verdicts))
    rule: dict[str, Any] = {"action": "allow", "tool": call.tool}
    if call.tool == BASH:
        if pattern is not None:
            rule["pattern"] = pattern
        elif len(atoms) != 1 or atoms[0].command is None:
            commands = ", ".join(f"`{atom.command}`" for atom in atoms)
            raise ApprovalError(
                f"the line runs {len(atoms)} commands ({commands}): approve them one at a time, or give "
                "--pattern"
            )
        else:
            rule["command"] = atoms[0].command
    else:
        paths = sorted({access.path for atom in atoms for access in atom.accesses})
        if path is not None:
            rule["path"] = path
        elif len(paths) == 1:
            rule["path"] = paths[0]
        elif paths:
            raise ApprovalError(
                f"the call touches {len(paths)} paths: give --path with one of them or a glob"
            )
    rule["policy"] = policy or _only_policy(engine, decision.verdicts)
    if allow_unanalyzed:
        rule["allowUnanalyzed"] = True
    return rule


def _only_policy(engine: Engine, verdicts: Any) -> str:
    base = {layer.name for layer in engine.policy_set.layers if not layer.restrict_only}
    policies: list[str] = sorted({v.policy for v in verdicts if v.layer in base and v.policy is not None})
    if len(policies) == 1:
        return policies[0]
    if not policies:
        raise ApprovalError("no policy of yours judges this call, so there is nothing to approve")
    raise ApprovalError(f"several policies judge this call ({', '.join(policies)}): choose one with --policy")


def add(file: str, rule: dict[str, Any], env: Mapping[str, str]) -> bool:
    """Append ``rule`` to ``file``'s approvalRules; False when an identical approval is there already."""
    text = _read(file)
    if any(listed.rule == rule for listed in listed_in(file, text)):
        return False
    _write(file, text, add_approval(text, rule, file), env)
    return True


def remove(file: str, index: int, env: Mapping[str, str]) -> dict[str, Any]:
    """Remove the approval at ``index`` (as ``policy approvals`` numbers them) and return it."""
    text = _read(file)
    listed = listed_in(file, text)
    if not 0 <= index < len(listed):
        raise ApprovalError(f"{file} has {len(listed)} approvals; there is no number {index + 1}")
    _write(file, text, remove_approval(text, index, file), env)
    return listed[index].rule


def _write(file: str, old: str, new: str, env: Mapping[str, str]) -> None:
    """Write the edited file; a project file that was trusted stays trusted (the user made the edit)."""
    was_trusted = os.path.exists(file) and _trusted(file, env)
    atomic_write(file, new)
    if was_trusted:
        trust(env, file, new)


def listed_in(file: str, text: str | None = None) -> list[Listed]:
    """The approvals written in ``file``, with the line of each."""
    text = _read(file) if text is None else text
    if not text.strip():
        return []
    document = parse(text, file)
    rules = document.data.get("approvalRules") if isinstance(document.data, dict) else None
    if not isinstance(rules, list):
        return []
    return [
        Listed(file, index, document.places[("approvalRules", index)].key_line, rule)
        for index, rule in enumerate(rules)
    ]


def scope_files(cwd: str, env: Mapping[str, str]) -> list[tuple[str, str]]:
    """(scope, file) of every file approvals may be in: the user file and the project file."""
    found = [(USER, approval_file(USER, cwd, env))]
    source, _ = find_project(cwd, env)
    if source is not None:
        found.append((PROJECT, source.path))
    return [(scope, file) for scope, file in found if os.path.isfile(file)]
