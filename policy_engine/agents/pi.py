"""pi: the protocol of our own pi extension (``integrations/pi``), which does the asking itself.

Input: ``{"tool", "input", "cwd", "session_id", "tool_call_id"}``; output: ``{"action", "reason",
"message"}`` for every action; the extension shows pi's choice dialog for an ask and prepends a
nudge's message to the tool's result. A failure is exit 2 with the reason on stderr (and a deny on
stdout, for a reader that looks there first).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import Decision, ToolCall
from .protocol import BLOCK, HookEvent, Reply, field, fields_of, json_reply, rewritten, unknown_fields

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

AGENT = "pi"
NAME = "pi"
PROGRAM = "pi"
VERIFIED = "0.73.1"
TOOLS: dict[str, str] = {}  # pi's tools carry the canonical names
# pi's grep runs ripgrep with --hidden, which skips what git ignores in a work tree.
TREES = {"grep": "git"}
# Its bash tool runs commands without a terminal and has no way to type into them.
TYPES_UNSEEN = False
# The extension (integrations/pi) sets the tool's command to the confined one the answer names
# (pi runs the input object its tool_call handlers mutated).
REWRITES = True
FIELDS = fields_of(
    {
        "bash": ("command", "timeout"),
        "read": ("path", "offset", "limit"),
        "write": ("path", "content"),
        "edit": ("path", "edits", "oldText", "newText"),
        "grep": ("pattern", "path", "glob", "ignoreCase", "literal", "context", "limit"),
        "find": ("pattern", "path", "limit"),
        "ls": ("path", "limit"),
    }
)
SETTINGS = ((".pi/", ".pi", r"(?:/.*)?"),)
# pi's agent directory: its extensions (ours among them) and settings.
HOMES: tuple[tuple[str | None, str], ...] = (("PI_CODING_AGENT_DIR", ".pi/agent"),)
INSTALL = None  # pi loads our extension (integrations/pi): `policy install` copies it (hook/extension.py)


def read(payload: Mapping[str, Any]) -> HookEvent:
    tool = field(payload, "tool", str)
    tool_input = field(payload, "input", dict)
    call = ToolCall(
        tool,
        tool_input,
        field(payload, "cwd", str),
        field(payload, "session_id", str, required=False),
        field(payload, "tool_call_id", str, required=False),
        AGENT,
        unknown_fields(tool, tool_input, FIELDS, f"{NAME} {VERIFIED}"),
    )
    ran = payload.get("ran")
    if isinstance(ran, bool):
        return HookEvent("post", call, ran)
    return HookEvent("pre", call)


def answer(decision: Decision, event: HookEvent) -> Reply:
    reply = {"action": str(decision.action), "reason": decision.reason, "message": decision.message}
    confined = rewritten(decision, event)
    if confined is not None:
        reply["command"] = confined["command"]  # the extension sets the tool's command to it
    return json_reply(reply)


def outcome(event: HookEvent, note: str | None) -> Reply:
    return json_reply({})


def proceed(reason: str) -> Reply:
    return json_reply({"action": "log", "reason": reason, "message": None})


def refuse(reason: str) -> Reply:
    return json_reply({"action": "deny", "reason": reason, "message": None}, BLOCK, reason + "\n")


# --- doctor (pi is installed as an extension: hook/extension.py) ----------------------------------


def sample(command: str, cwd: str, session: str) -> dict[str, Any]:
    """A request as our extension sends it, for doctor."""
    return {
        "tool": "bash",
        "input": {"command": command},
        "cwd": cwd,
        "session_id": session,
        "tool_call_id": f"{session}-1",
    }


def denies(answer: Mapping[str, Any]) -> bool:
    return answer.get("action") == "deny"
