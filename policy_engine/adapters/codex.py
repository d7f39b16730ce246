"""Codex CLI: a Claude-compatible PreToolUse contract, except that Codex cannot ask.

Codex rejects ``permissionDecision: "ask"`` as unsupported and then runs the call, so an ask is a
block here: exit 2 with the reason on stderr, and the command a person can run to allow it. A deny
is the same block (the one answer Codex reliably honours); allow and log give no decision (Codex's
own approval policy then applies), a nudge only ``additionalContext`` for the model.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import Action, Decision
from . import claude
from .protocol import BLOCK, HookEvent, Reply, approve_hint, json_reply

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

AGENT = "codex"


def read(payload: Mapping[str, Any]) -> HookEvent:
    event = claude.read(payload)
    return event._replace(call=event.call._replace(agent=AGENT))


def answer(decision: Decision) -> Reply:
    if decision.action is Action.DENY:
        return Reply("", decision.reason + "\n", BLOCK)
    if decision.action is Action.ASK:
        text = f"{decision.reason} Codex cannot ask, so it is blocked. {approve_hint(decision.call)}"
        return Reply("", text + "\n", BLOCK)
    if decision.action is Action.NUDGE:
        context = decision.message or decision.reason
        return json_reply(
            {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": context}}
        )
    return json_reply({})


outcome = claude.outcome
refuse = claude.refuse
proceed = claude.proceed
