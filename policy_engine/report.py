"""Decisions as JSON (``policy check --json``, ``--batch``) and as an explanation for people."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .rules import specificity

if TYPE_CHECKING:
    from .model import Decision, Verdict
    from .policy import CompiledRule


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


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    data: dict[str, Any] = {
        "action": str(verdict.action),
        "kind": verdict.kind,
        "layer": verdict.layer,
        "target": verdict.target,
    }
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
        "trace": {
            "decided_by": verdict_json(decisive) if decisive is not None else None,
            "others": [verdict_json(v) for v in others],
            "layers": list(decision.sources),
        },
    }


def explain(decision: Decision) -> str:
    """A readable account of every verdict, the deciding one first."""
    lines = []
    ordered = sorted(decision.verdicts, key=lambda v: v is not decision.decisive)
    for verdict in ordered:
        mark = "=>" if verdict is decision.decisive else "  "
        where = f"policy {verdict.policy!r} via {verdict.location}" if verdict.policy else verdict.kind
        what = verdict.rule.label() if verdict.rule is not None else verdict.kind
        at = f" at {verdict.origin}" if verdict.origin is not None else ""
        lines.append(f"{mark} {verdict.action!s:<5} [{verdict.layer}] {verdict.target}: {where}: {what}{at}")
        lines += [f"       beat {rule.label()} at {rule.origin}" for rule in verdict.beat]
        if verdict.detail and verdict.kind in ("protection", "doubt"):
            lines.append(f"       {verdict.detail}")
    return "\n".join(lines)
