"""Claude Code: PreToolUse and PostToolUse command hooks.

Input: ``{session_id, transcript_path, cwd, permission_mode, hook_event_name, tool_name, tool_input,
tool_use_id, ...}``. Output on exit 0: ``hookSpecificOutput.permissionDecision`` (``allow``, ``ask``,
``deny``) with ``permissionDecisionReason``, and ``additionalContext`` for the model (a nudge). A
``log`` decision gives no decision at all, so Claude's own permission flow decides. Fields Claude
adds later are ignored; a field we need that is missing or of the wrong type is refused.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import Action, Decision
from .protocol import BLOCK, HookEvent, Reply, json_reply, proceed, tool_event

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

AGENT = "claude"
EVENTS = {"PreToolUse": "pre", "PostToolUse": "post"}


def read(payload: Mapping[str, Any]) -> HookEvent:
    return tool_event(payload, EVENTS, AGENT, "tool_use_id")


def answer(decision: Decision) -> Reply:
    if decision.action is Action.LOG:
        return json_reply({})
    output: dict[str, Any] = {"hookEventName": "PreToolUse"}
    if decision.action is Action.NUDGE:
        output["permissionDecision"] = "allow"
        output["additionalContext"] = decision.message or decision.reason
    else:
        output["permissionDecision"] = str(decision.action)
    output["permissionDecisionReason"] = decision.reason
    return json_reply({"hookSpecificOutput": output})


def outcome() -> Reply:
    return json_reply({})


def refuse(reason: str) -> Reply:
    return Reply("", reason + "\n", BLOCK)


__all__ = ["answer", "outcome", "proceed", "read", "refuse"]
