"""pi: the protocol of our own pi extension (``integrations/pi``), which does the asking itself.

Input: ``{"tool", "input", "cwd", "session_id", "tool_call_id"}``; output: ``{"action", "reason",
"message"}`` for every action; the extension shows pi's choice dialog for an ask and prepends a
nudge's message to the tool's result. A failure is exit 2 with the reason on stderr (and a deny on
stdout, for a reader that looks there first).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import Decision, ToolCall
from .protocol import BLOCK, HookEvent, Reply, field, json_reply

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

AGENT = "pi"


def read(payload: Mapping[str, Any]) -> HookEvent:
    call = ToolCall(
        field(payload, "tool", str),
        field(payload, "input", dict),
        field(payload, "cwd", str),
        field(payload, "session_id", str, required=False),
        field(payload, "tool_call_id", str, required=False),
        AGENT,
    )
    ran = payload.get("ran")
    if isinstance(ran, bool):
        return HookEvent("post", call, ran)
    return HookEvent("pre", call)


def answer(decision: Decision) -> Reply:
    return json_reply(
        {"action": str(decision.action), "reason": decision.reason, "message": decision.message}
    )


def outcome() -> Reply:
    return json_reply({})


def proceed(reason: str) -> Reply:
    return json_reply({"action": "log", "reason": reason, "message": None})


def refuse(reason: str) -> Reply:
    return json_reply({"action": "deny", "reason": reason, "message": None}, BLOCK, reason + "\n")
