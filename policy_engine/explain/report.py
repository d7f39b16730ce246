"""Decisions as JSON (``policy check --json``, ``--batch``) and as an explanation for people."""

from __future__ import annotations

from ..config.ruleorder import specificity
from ..model import TreeKind, VerdictKind

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from ..config.compiled import CompiledRule
    from ..model import Access, Atom, Decision, Verdict
    from ..sandbox.wrap import Confinement


def rule_json(rule: CompiledRule) -> dict[str, Any]:
    data: dict[str, Any] = {"action": str(rule.action), "tool": rule.tool}
    if rule.pattern is not None:
        data["pattern"] = rule.pattern
    if rule.preset:
        data["preset"] = rule.preset
    if rule.read_only:
        data["readOnly"] = True
    if rule.allow_unanalyzed:
        data["allowUnanalyzed"] = True
    data["specificity"] = specificity(rule)[1]
    data["at"] = str(rule.origin)
    return data


def atom_json(atom: Atom) -> dict[str, Any]:
    data: dict[str, Any] = {"tool": atom.tool}
    if atom.command is not None:
        data["command"] = atom.command
    data["accesses"] = [_access_json(access) for access in atom.accesses]
    if atom.doubts:
        data["doubts"] = list(atom.doubts)
    if atom.unproven:
        data["unproven"] = list(atom.unproven)
    if atom.mentions:
        data["mentions"] = list(atom.mentions)
    return data


def _access_json(access: Access) -> dict[str, str]:
    data = {"path": access.path, "sense": access.sense.value}
    if access.via is not None:
        data["via"] = access.via
    if access.tree is not None:
        data["tree"] = str(access.tree)  # the walk's data spelling (model.parse_walk)
    return data


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    data: dict[str, Any] = {
        "action": str(verdict.action),
        "kind": verdict.kind,
        "layer": verdict.layer,
        "target": verdict.target,
    }
    if verdict.sense is not None:
        data["sense"] = verdict.sense.value
    if verdict.atom.command is not None:
        data["command"] = verdict.atom.command
    else:
        data["tool"] = verdict.atom.tool
    for key, value in (
        ("policy", verdict.policy),
        ("location", verdict.location),
        ("detail", verdict.detail),
    ):
        if value is not None:
            data[key] = value
    if verdict.rule is not None:
        data["rule"] = rule_json(verdict.rule)
    if verdict.origin is not None:
        data["at"] = str(verdict.origin)
    if verdict.beat:
        data["beat"] = [rule_json(rule) for rule in verdict.beat]
    if verdict.walked:
        data["walked"] = True
    return data


def decision_json(decision: Decision) -> dict[str, Any]:
    """The decision as ``policy check --json`` prints it."""
    decisive = decision.decisive
    others = [v for v in decision.verdicts if v is not decisive]
    return {
        "action": str(decision.action),
        "reason": decision.reason,
        "message": decision.message,
        "tool": decision.call.tool,
        "cwd": decision.call.cwd,
        "mode": decision.mode,
        **({"judged": str(decision.judged)} if decision.judged is not None else {}),
        **({"breaker": decision.breaker} if decision.breaker is not None else {}),
        **({"sandbox": sandbox_json(decision.sandbox)} if decision.sandbox is not None else {}),
        "trace": {
            "decided_by": verdict_json(decisive) if decisive is not None else None,
            "others": [verdict_json(v) for v in others],
            "atoms": [atom_json(atom) for atom in _atoms(decision)],
            "layers": list(decision.sources),
        },
    }


def sandbox_json(confinement: Confinement, *, full: bool = True) -> dict[str, Any]:
    """How a call runs confined: the backend, the command to run instead (None: the call's command
    is that already), and (``full``) what the sandbox writes, keeps read-only and hides."""
    plan = confinement.plan
    data: dict[str, Any] = {
        "backend": confinement.backend,
        "command": None if confinement.applied else confinement.command,
        "network": plan.network,
        "writable": list(plan.writable),
    }
    if full:
        data.update(
            read_only=list(plan.read_only),
            not_created=list(plan.blocked),
            hidden=[*plan.sockets, *plan.hidden_files, *plan.hidden_directories],
            temporary=list(plan.temporary),
            emptied=list(plan.replaced),
            unset=list(plan.unset),
        )
    return data


def _atoms(decision: Decision) -> list[Atom]:
    """The atoms of a decision, in the order they were judged."""
    return list(dict.fromkeys(v.atom for v in decision.verdicts))


def explain(decision: Decision) -> str:
    """A readable account: each atom with its accesses, doubts and verdicts, then what decided."""
    lines = []
    for number, atom in enumerate(_atoms(decision), 1):
        title = atom.command if atom.command is not None else atom.tool
        lines.append(f"atom {number}: {title}")
        for access in atom.accesses:
            via = f"  ({access.via})" if access.via else ""
            if access.tree:
                names = ",".join(access.tree.names)
                what = f"files named {names} under it" if names else "the whole tree"
                skipped = {
                    TreeKind.VISIBLE: ", hidden files skipped",
                    TreeKind.GIT: ", what git ignores skipped",
                }
                via += f"  ({what}{skipped.get(access.tree.kind, '')})"
            lines.append(f"  {access.sense.value:<7} {access.path}{via}")
        for doubt in atom.doubts:
            lines.append(f"  doubt   {doubt}")
        for why in atom.unproven:
            lines.append(f"  not read-only: {why}")
        for path in atom.mentions:
            lines.append(f"  names   {path}  (checked against pathProtection)")
        for verdict in (v for v in decision.verdicts if v.atom == atom):
            mark = "=>" if verdict is decision.decisive else "  "
            lines.append(f"  {mark} {verdict.action!s:<5} {_verdict_line(verdict)}")
            lines += [f"           beat {rule.label()} at {rule.origin}" for rule in verdict.beat]
    if decision.sandbox is not None:
        lines += _sandbox_lines(decision.sandbox)
    return "\n".join(lines)


def _sandbox_lines(confinement: Confinement) -> list[str]:
    plan = confinement.plan
    lines = [f"sandbox: {confinement.backend}, {'with' if plan.network else 'no'} network"]
    lines += [f"  writes  {path}" for path in plan.writable]
    lines += [f"  writes  {path}  (temporary)" for path in plan.temporary]
    lines += [f"  writes  {path}  (its own cache)" for path in plan.cache]
    lines += [f"  empty   {path}" for path in plan.replaced]
    lines += [f"  read-only {path}" for path in plan.read_only]
    lines += [f"  not created {path}" for path in plan.blocked]
    lines += [f"  hidden  {path}" for path in (*plan.sockets, *plan.hidden_files, *plan.hidden_directories)]
    if plan.unset:
        lines.append(f"  unset   {' '.join(plan.unset)}")
    if confinement.applied:
        lines.append("  the command is this sandbox's wrapper already: it runs as it is")
    return lines


def _verdict_line(verdict: Verdict) -> str:
    layer = f"[{verdict.layer}] "
    if verdict.kind is VerdictKind.PROTECTION:
        under = " (something under it)" if verdict.walked else ""
        return f'{layer}{verdict.target}{under}: pathProtection "{verdict.detail}" at {verdict.origin}'
    if verdict.kind is VerdictKind.DOUBT:
        return f"{layer}doubt: {verdict.detail}"
    if verdict.kind is VerdictKind.UNRESTRICTED:
        return f"{layer}{verdict.target}: no policy covers it"
    where = f"policy {verdict.policy!r} (location {verdict.location})"
    what = verdict.rule.label() if verdict.rule is not None else "defaultAction"
    if verdict.kind in (VerdictKind.APPROVAL, VerdictKind.SESSION):
        what = f"{verdict.kind} {what}"
    via = f" ({verdict.detail})" if verdict.detail else ""
    return f"{layer}{verdict.target}: {where}: {what} at {verdict.origin}{via}"


def log_record(decision: Decision, microseconds: int, digest: str) -> dict[str, Any]:
    """The decision as one line of the decision log: who asked what, what applied and why, with
    secrets masked as in reasons."""
    from ..agents.toolnames import input_paths
    from ..version import __version__
    from .reasons import MASKED_PREFIX
    from .secrets import mask

    call, decisive = decision.call, decision.decisive
    command = call.input.get("command") if call.tool == "bash" and isinstance(call.input, dict) else None
    paths = input_paths(call.input)
    atoms = []
    for atom in _atoms(decision):
        strongest = max((v for v in decision.verdicts if v.atom == atom), key=lambda v: v.action)
        entry: dict[str, Any] = (
            {"command": mask(atom.command[:MASKED_PREFIX])}
            if atom.command is not None
            else {"path": atom.accesses[0].path if atom.accesses else None}
        )
        entry.update(action=str(strongest.action), policy=strongest.policy, kind=strongest.kind)
        atoms.append(entry)
    return {
        "event": "decision",
        **_when(),
        "session": call.session_id,
        "tool_call": call.tool_call_id,
        "agent": call.agent,
        "tool": call.tool,
        "command": mask(command[:MASKED_PREFIX]) if isinstance(command, str) else None,
        "path": paths[0] if paths else None,
        "action": str(decision.action),
        "judged": str(decision.judged if decision.judged is not None else decision.action),
        "mode": decision.mode,
        "breaker": decision.breaker,
        "decided_by": _decided_by(decisive) if decisive is not None else None,
        **({"sandbox": sandbox_json(decision.sandbox, full=False)} if decision.sandbox is not None else {}),
        "atoms": atoms,
        "doubts": sorted({doubt for atom in _atoms(decision) for doubt in atom.doubts}),
        "version": __version__,
        "policy_hash": digest,
        "us": microseconds,
    }


def outcome_record(call: Any, ran: bool) -> dict[str, Any]:
    """Whether a judged tool call ran, as the agent reported it afterwards."""
    return {
        "event": "outcome",
        **_when(),
        "session": call.session_id,
        "tool_call": call.tool_call_id,
        "tool": call.tool,
        "ran": ran,
    }


def _when() -> dict[str, Any]:
    import time

    now = time.time()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
    return {"time": stamp, "ts": round(now, 3)}


def _decided_by(verdict: Verdict) -> dict[str, Any]:
    return {
        "layer": verdict.layer,
        "kind": verdict.kind,
        "policy": verdict.policy,
        "rule": verdict.rule.label() if verdict.rule is not None else None,
        "at": str(verdict.origin) if verdict.origin is not None else None,
        "target": verdict.target,
    }
