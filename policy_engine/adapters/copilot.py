"""GitHub Copilot CLI: preToolUse and postToolUse hooks.

Input: ``{timestamp, cwd, toolName, toolArgs}`` (``toolArgs`` is a JSON string in the CLI, an object
in the SDK; both are read); ``postToolUse`` adds ``toolResult``. Output:
``{"permissionDecision": "allow" | "deny" | "ask", "permissionDecisionReason", "additionalContext"}``.
A log gives no decision. The payload names no session, so the circuit breakers do not apply.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import Action, Decision, ToolCall
from .protocol import BLOCK, HookEvent, Reply, arguments, field, json_reply, proceed

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

AGENT = "copilot"
# Copilot CLI's tool names that are not ours.
TOOLS = {"shell": "bash", "view": "read", "create": "write", "str_replace": "edit"}


def read(payload: Mapping[str, Any]) -> HookEvent:
    tool = field(payload, "toolName", str)
    session = field(payload, "sessionId", str, required=False)
    call = ToolCall(
        TOOLS.get(tool, tool),
        arguments(payload, "toolArgs"),
        field(payload, "cwd", str),
        session,
        None,
        AGENT,
    )
    if "toolResult" in payload:
        return HookEvent("post", call, True)
    return HookEvent("pre", call)


def answer(decision: Decision) -> Reply:
    if decision.action is Action.LOG:
        return json_reply({})
    reply: dict[str, Any] = {
        "permissionDecision": "allow" if decision.action is Action.NUDGE else str(decision.action),
        "permissionDecisionReason": decision.reason,
    }
    if decision.action is Action.NUDGE:
        reply["additionalContext"] = decision.message or decision.reason
    return json_reply(reply)


def outcome() -> Reply:
    return json_reply({})


def refuse(reason: str) -> Reply:
    return json_reply(
        {"permissionDecision": "deny", "permissionDecisionReason": reason}, BLOCK, reason + "\n"
    )


__all__ = ["answer", "outcome", "proceed", "read", "refuse"]
