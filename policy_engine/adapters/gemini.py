"""Gemini CLI: BeforeTool and AfterTool command hooks.

Input: ``{session_id, transcript_path, cwd, hook_event_name, timestamp, tool_name, tool_input, ...}``
with Gemini's tool names (``run_shell_command``, ``read_file``, ``write_file``, ``replace``, ...,
mapped to canonical ones by ``tools.py``). Output: ``{"decision": "allow" | "deny", "reason"}``.
Gemini's hooks cannot ask, so an ask is a deny whose reason says how a person can allow it; a
nudge is an allow whose ``systemMessage`` shows the note; a log gives no decision.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import Action, Decision
from .protocol import BLOCK, HookEvent, Reply, approve_hint, json_reply, proceed, tool_event

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

AGENT = "gemini"
EVENTS = {"BeforeTool": "pre", "AfterTool": "post"}


def read(payload: Mapping[str, Any]) -> HookEvent:
    return tool_event(payload, EVENTS, AGENT, None)


def answer(decision: Decision) -> Reply:
    action = decision.action
    if action is Action.LOG:
        return json_reply({})
    if action is Action.ASK:
        reason = f"{decision.reason} Gemini CLI cannot ask, so it is blocked. {approve_hint(decision.call)}"
        return json_reply({"decision": "deny", "reason": reason})
    if action is Action.DENY:
        return json_reply({"decision": "deny", "reason": decision.reason})
    reply: dict[str, Any] = {"decision": "allow", "reason": decision.reason}
    if action is Action.NUDGE:
        reply["systemMessage"] = decision.message or decision.reason
    return json_reply(reply)


def outcome() -> Reply:
    return json_reply({})


def refuse(reason: str) -> Reply:
    return Reply("", reason + "\n", BLOCK)


__all__ = ["answer", "outcome", "proceed", "read", "refuse"]
