"""GitHub Copilot CLI: preToolUse and postToolUse hooks (verified with Copilot CLI 1.0.102).

Input: ``{sessionId, timestamp, cwd, toolName, toolArgs}``, ``toolArgs`` an object (a JSON string
in releases before 1.0: both are read); ``postToolUse`` adds ``toolResult``. Tools: ``bash``,
``view`` (a file or a directory), ``create``, ``edit``, ``grep`` (ripgrep over ``paths``, the
working directory when there are none, hidden files included), ``glob``, and bookkeeping. Output:
``{"permissionDecision": "allow" | "deny", "permissionDecisionReason", "additionalContext"}``;
``additionalContext`` reaches the model as a user message (a nudge). Copilot CLI cannot put a
hook's ask to a person ("unable to ask user for confirmation"), so an ask is a deny whose reason
says how to allow the call. A log gives no decision.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import Action, Decision, ToolCall
from .protocol import (
    BLOCK,
    HookEvent,
    Installation,
    Reply,
    arguments,
    blocked_ask,
    field,
    fields_of,
    json_reply,
    no_outcome,
    proceed,
    rewritten,
    unknown_fields,
)

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

AGENT = "copilot"
NAME = "Copilot CLI"
PROGRAM = "copilot"
VERIFIED = "1.0.102"
TOOLS = {
    "bash": "bash",
    "view": "read",
    "create": "write",
    "edit": "edit",
    "grep": "grep",
    "glob": "find",
    "read_bash": "task",
    "stop_bash": "task",
    "list_bash": "task",
    "task": "task",
    "read_agent": "task",
    "list_agents": "task",
    "write_agent": "task",
    "skill": "task",
}
TREES = {"grep": "all"}  # its ripgrep reads hidden files
# write_bash types into a running command, and it is a tool call the hook judges (unknown: asked).
TYPES_UNSEEN = False
# Its preToolUse answer can replace the tool's arguments (modifiedArgs, whole; updatedInput is
# ignored): a sandboxed allow sends the confined command (verified with 1.0.102).
REWRITES = True
FIELDS = fields_of(
    {
        "bash": ("command", "description", "shellId", "mode", "detach", "initial_wait"),
        "view": ("path", "view_range", "forceReadLargeFiles"),
        "create": ("path", "file_text"),
        "edit": ("path", "old_str", "new_str"),
        "grep": (
            "pattern", "paths", "output_mode", "glob", "type", "-i", "-A", "-B", "-C", "-n", "head_limit",
            "multiline",
        ),
        "glob": ("pattern", "paths"),
    }
)  # fmt: skip
# grep's and glob's "paths" may be one directory as a string.
_PATH_LISTS = ("paths",)

SETTINGS = (
    (".github", ".github", ""),
    (".copilot", ".copilot", ""),
    (".github/hooks/", ".github", r"/hooks(?:/.*)?"),  # per repository
    (".copilot/hooks/", ".copilot", r"/hooks(?:/.*)?"),  # per user
    (".copilot/config.json", ".copilot", r"/config\.json"),
)
HOMES: tuple[tuple[str | None, str], ...] = (("COPILOT_HOME", ".copilot"),)

# docs.github.com/copilot/reference/hooks-reference: every *.json in .github/hooks/ and in the
# user's hooks directory ($COPILOT_HOME/hooks, default ~/.copilot/hooks); {"version": 1, "hooks":
# {"preToolUse": [{"type": "command", "bash", "timeoutSec"}]}}. A file of our own.
INSTALL = Installation(
    ".github/hooks/policy-engine.json",
    ".copilot",
    "COPILOT_HOME",
    "hooks/policy-engine.json",
    ("preToolUse", "postToolUse"),
    False,
    "bash",
    1,
    True,
)


def read(payload: Mapping[str, Any]) -> HookEvent:
    tool = field(payload, "toolName", str)
    tool_input = arguments(payload, "toolArgs")
    for name in _PATH_LISTS:
        if isinstance(tool_input.get(name), str):
            tool_input = {**tool_input, name: [tool_input[name]]}
    call = ToolCall(
        tool,
        tool_input,
        field(payload, "cwd", str),
        field(payload, "sessionId", str, required=False),
        None,
        AGENT,
        unknown_fields(tool, tool_input, FIELDS, f"{NAME} {VERIFIED}"),
    )
    if "toolResult" in payload:
        return HookEvent("post", call, True)
    return HookEvent("pre", call)


def answer(decision: Decision, event: HookEvent) -> Reply:
    action = decision.action
    confined = rewritten(decision, event)
    if action is Action.LOG and confined is None:
        return json_reply({})
    reason = decision.reason
    if action is Action.ASK:
        reason = blocked_ask(reason, f"{NAME} cannot ask", decision.call)
    reply: dict[str, Any] = {
        "permissionDecision": "allow" if action < Action.ASK else "deny",
        "permissionDecisionReason": reason,
    }
    if action is Action.NUDGE:
        reply["additionalContext"] = decision.message or decision.reason
    if confined is not None:
        reply["modifiedArgs"] = confined
    return json_reply(reply)


outcome = no_outcome


def refuse(reason: str) -> Reply:
    return json_reply(
        {"permissionDecision": "deny", "permissionDecisionReason": reason}, BLOCK, reason + "\n"
    )


# --- install and doctor ---------------------------------------------------------------------------


def handler(command: str, timeout: int) -> dict[str, Any]:
    return {"type": "command", "bash": command, "timeoutSec": timeout}


def sample(command: str, cwd: str, session: str) -> dict[str, Any]:
    return {
        "sessionId": session,
        "timestamp": 1796169600000,
        "cwd": cwd,
        "toolName": "bash",
        "toolArgs": {"command": command, "description": "doctor"},
    }


def denies(answer: Mapping[str, Any]) -> bool:
    return answer.get("permissionDecision") == "deny"


def switch(doc: Mapping[str, Any], path: str) -> str | None:
    return f'remove "disableAllHooks" from {path}' if doc.get("disableAllHooks") is True else None


__all__ = ["answer", "outcome", "proceed", "read", "refuse"]
