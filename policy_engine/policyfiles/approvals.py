"""Persisted approvals: ``policy approve``, ``policy approvals`` and ``policy revoke``.

An approval goes to the approvals store (``config/approvals.py``), never into a policy file unless
the user names one (``--file``, or with ``--config`` the last file given): approving `npm test`
allows exactly `npm test`, and every policy file keeps meaning what it says. It is narrow by
construction: one exact command (or a pattern the user typed), one policy, for file tools one path
(or a glob the user typed), and with ``--project`` one project's directory. The engine applies it
per atom (``decide.py``).

Before an approval is kept, it is shown to work: one that a protection, a managed deny, an untrusted
project file or what the analysis cannot prove keeps from taking effect is refused with that reason,
and one that overrides a deny rule of the policy needs ``force``. Approvals that earlier releases
wrote into the user's policy file keep working, and move to the store on the next approval.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..agents.toolnames import BASH
from ..config import approvals as store
from ..config.discover import PROJECT, find_project, user_candidates
from ..config.edit import add_approval, remove_approval
from ..config.jsonc import parse
from ..config.ruleorder import specificity
from ..config.trust import digest, read_store, recorded_digest, trust
from ..errors import ApprovalError
from ..fileio import atomic_write
from ..globs import literal_prefix
from ..model import Action, VerdictKind
from ..record import Record

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

    from ..engine import Engine
    from ..model import Decision, ToolCall, Verdict

STORE = "store"


class Listed(Record):
    """One approval, as ``policy approvals`` shows it: where it is (the store or a policy file),
    its position there, its line, and the entry as written."""

    file: str
    position: int
    line: int
    rule: dict[str, Any]
    stored: bool = False


# ---------------------------------------------------------------------------------------------
# where approvals are


def stored(env: Mapping[str, str]) -> list[Listed]:
    """The approvals of the store, with the line of each."""
    path = store.store_path(env)
    text = _read(path)
    if not text.strip():
        return []
    document = parse(text, path)
    entries = document.data.get("approvals") if isinstance(document.data, dict) else None
    if not isinstance(entries, list):
        raise ApprovalError(f'{path} is not an approvals store (no "approvals" list)')
    return [
        Listed(path, index, document.places[("approvals", index)].key_line, entry, True)
        for index, entry in enumerate(entries)
    ]


def listed_in(file: str, text: str | None = None) -> list[Listed]:
    """The approvals written in the policy file ``file``, with the line of each."""
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


def every_approval(cwd: str, env: Mapping[str, str]) -> list[Listed]:
    """Every approval that applies in ``cwd``'s discovery: the store's, then those in the user file
    and the project file (written there by hand, or by earlier releases)."""
    found = stored(env)
    user = next((c.path for c in user_candidates(env) if os.path.isfile(c.path)), None)
    project, _ = find_project(cwd, env)
    for file in (user, project.path if project else None):
        if file is not None:
            found += listed_in(file)
    return found


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return ""
    except UnicodeDecodeError as error:
        raise ApprovalError(
            f"{path} is not UTF-8 text ({error.reason} at byte {error.start}); fix it by hand"
        ) from None


# ---------------------------------------------------------------------------------------------
# the entry


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


# ---------------------------------------------------------------------------------------------
# whether it can work


def overridden_denies(decision: Decision, rule: Mapping[str, Any]) -> list[Verdict]:
    """The deny rules of the approval's policy that it would override: those no more specific than
    it (a more specific one wins over it, decide.py)."""
    own = _specificity(rule)
    return [
        verdict
        for verdict in decision.verdicts
        if verdict.kind is VerdictKind.RULE
        and verdict.rule is not None
        and verdict.action is Action.DENY
        and verdict.policy == rule.get("policy")
        and verdict.layer not in ("managed", "project (untrusted)")
        and specificity(verdict.rule) <= own
    ]


def _specificity(rule: Mapping[str, Any]) -> tuple[int, int]:
    """What ``ruleorder.specificity`` says of the approval ``rule`` once compiled."""
    if rule.get("command") is not None:
        return 1, len(rule["command"])
    if rule.get("pattern") is not None:
        return 1, len(literal_prefix(rule["pattern"]))
    return 0, len(literal_prefix(rule.get("tool", "")))


def why_not(decision: Decision) -> str:
    """Why an approval did not make the call run: the decision's reason, and what would help."""
    decisive = decision.decisive
    hint = ""
    if decisive is not None:
        if decisive.kind is VerdictKind.PROTECTION:
            hint = "a protected path stays protected whatever is approved"
        elif decisive.layer == "managed":
            hint = "the managed policy (your administrator's) decides this"
        elif decisive.layer == "project (untrusted)":
            hint = (
                "the untrusted project file restricts it: review it and run `policy trust` if it may loosen"
            )
        elif decisive.kind is VerdictKind.DOUBT:
            hint = "an approval lifts what the analysis cannot prove only with --allow-unanalyzed"
        elif decisive.kind is VerdictKind.RULE and decisive.action is Action.DENY:
            hint = "a more specific deny rule wins over the approval"
    return decision.reason + (f" ({hint})" if hint else "")


# ---------------------------------------------------------------------------------------------
# changing the store or a file


def _entries(env: Mapping[str, str]) -> list[dict[str, Any]]:
    """The store's entries as written (read as the engine reads it: JSON, comments allowed)."""
    return [item.rule for item in stored(env)]


def add_to_store(env: Mapping[str, str], rule: Mapping[str, Any]) -> bool:
    """Append ``rule`` to the store; False when the same approval is there already."""
    entries = _entries(env)
    if any(_same(entry, rule) for entry in entries):
        return False
    store.write_entries(env, [*entries, store.stamped(rule)])
    return True


def _same(entry: Mapping[str, Any], rule: Mapping[str, Any]) -> bool:
    return {k: v for k, v in entry.items() if k != "approvedAt"} == {
        k: v for k, v in rule.items() if k != "approvedAt"
    }


def remove_from_store(env: Mapping[str, str], index: int) -> dict[str, Any]:
    entries = _entries(env)
    if not 0 <= index < len(entries):
        raise ApprovalError(f"the store has {len(entries)} approvals; there is no number {index + 1}")
    removed = entries.pop(index)
    store.write_entries(env, entries)
    return removed


def add(file: str, rule: dict[str, Any], env: Mapping[str, str]) -> bool:
    """Append ``rule`` to ``file``'s approvalRules; False when an identical approval is there already."""
    text = _read(file)
    if any(listed.rule == rule for listed in listed_in(file, text)):
        return False
    _write(file, text, add_approval(text, rule, file), env)
    return True


def remove(file: str, index: int, env: Mapping[str, str]) -> dict[str, Any]:
    """Remove the approval at ``index`` of ``file`` and return it."""
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


def _trusted(path: str, env: Mapping[str, str]) -> bool:
    recorded = recorded_digest(read_store(env), path)
    return recorded is not None and recorded == digest(_read(path))


@contextmanager
def kept_unless_refused(paths: list[str], env: Mapping[str, str]) -> Iterator[None]:
    """Restore ``paths`` as they were (and their trust) if the block raises: an approval that is
    refused after it was written leaves nothing behind."""
    before = {path: (_read(path) if os.path.exists(path) else None) for path in paths}
    trusted = {path for path, text in before.items() if text is not None and _trusted(path, env)}
    try:
        yield
    except BaseException:
        for path, text in before.items():
            if text is None:
                if os.path.exists(path):
                    os.unlink(path)
            else:
                atomic_write(path, text)
                if path in trusted:
                    trust(env, path, text)
        raise


def migrate(env: Mapping[str, str]) -> tuple[str, int] | None:
    """Move the approvals earlier releases wrote into the user's own policy file to the store:
    (the file, how many), or None when it holds none. pi-control's file is left as it is
    (pi-control reads its approvals there)."""
    file = user_candidates(env)[0].path
    listed = listed_in(file) if os.path.isfile(file) else []
    if not listed:
        return None
    for item in listed:
        add_to_store(env, item.rule)
    text = _read(file)
    for item in reversed(listed):
        text = remove_approval(text, item.position, file)
    _write(file, _read(file), text, env)
    return file, len(listed)


def approve(
    rule: dict[str, Any],
    judge: Callable[[], Decision],
    *,
    target: str,
    env: Mapping[str, str],
    force: bool,
    concrete: bool,
) -> tuple[bool, Decision, tuple[str, int] | None]:
    """Record ``rule`` in the store (``target`` STORE) or in the policy file ``target``, after
    ``judge()`` (the call as the engine judges it now) shows it is needed and may work; then judge
    again and keep it only if the call is now allowed (when ``concrete``: a call was given, not just
    a pattern). Returns (added, the decision after, the migration done)."""
    paths = [store.store_path(env)] if target == STORE else [target]
    if target == STORE:
        paths.append(user_candidates(env)[0].path)
    with kept_unless_refused(paths, env):
        moved = migrate(env) if target == STORE else None  # changes no decision
        before = judge()
        # A call allowed only in a sandbox is approved to run unconfined (an approval has no sandbox).
        if concrete and before.action < Action.ASK and before.sandbox is None:
            if before.decisive is not None and before.decisive.kind is VerdictKind.APPROVAL:
                return False, before, moved
            raise ApprovalError(f"nothing to approve, it runs already: {before.reason}")
        denies = overridden_denies(before, rule)
        if denies and not force:
            rules = ", ".join(f"{v.rule.label() if v.rule else 'deny'} ({v.origin})" for v in denies)
            raise ApprovalError(
                f'the approval would override the deny rule {rules} of policy "{rule.get("policy")}"; '
                "give --force to approve it anyway"
            )
        added = add_to_store(env, rule) if target == STORE else add(target, rule, env)
        after = judge()
        if concrete and after.action >= Action.ASK:
            raise ApprovalError(f"the approval cannot take effect, so it was not kept: {why_not(after)}")
    return added, after, moved


def project_directory(cwd: str, env: Mapping[str, str]) -> str:
    """The directory a ``--project`` approval is limited to: the project root (the directory
    holding the project policy file), else the working directory."""
    source, root = find_project(cwd, env)
    return root if source is not None and source.role == PROJECT and root else cwd
