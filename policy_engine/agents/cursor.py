"""Cursor: beforeShellExecution, beforeReadFile and beforeMCPExecution hooks.

Input: the event's own fields (``command`` and ``cwd`` for a shell command, ``file_path`` for a
read, ``tool_name`` and ``tool_input`` for an MCP tool), with ``conversation_id``,
``generation_id`` and ``workspace_roots``. Output: ``{"permission": "allow" | "deny" | "ask"}`` with
the message for the person and the one for the model (written both in Cursor's snake_case and in
the camelCase of its first releases). A log gives no decision.

Not verified against a real Cursor: it is not an npm package, so the end-to-end suite cannot run it
(``VERIFIED`` is None and doctor says so). This module follows Cursor's documentation.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..model import Action, Decision, ToolCall
from .protocol import (
    BLOCK,
    HookError,
    HookEvent,
    Installation,
    Reply,
    arguments,
    field,
    json_reply,
    no_outcome,
    proceed,
)

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

AGENT = "cursor"
NAME = "Cursor"
PROGRAM = "cursor-agent"
VERIFIED: str | None = None
TOOLS: dict[str, str] = {}  # its events name the canonical tool themselves (below)
TREES: dict[str, str] = {}
# Its shell tool has no way to type into a running command.
TYPES_UNSEEN = False
# Its hook answers cannot change a command: a rule that allows one only in a sandbox asks.
REWRITES = False
FIELDS: dict[str, frozenset[str]] = {}
SETTINGS = ((".cursor", ".cursor", ""), (".cursor/hooks.json", ".cursor", r"/hooks\.json"))
HOMES: tuple[tuple[str | None, str], ...] = ()

# cursor.com/docs/agent/hooks: <project>/.cursor/hooks.json and ~/.cursor/hooks.json,
# {"version": 1, "hooks": {event: [{"command"}]}}.
INSTALL = Installation(
    ".cursor/hooks.json",
    ".cursor",
    None,
    "hooks.json",
    ("beforeShellExecution", "beforeReadFile", "beforeMCPExecution"),
    False,
    "command",
    1,
    False,
    "Cursor reads hooks.json when it starts, and project hooks only in a trusted workspace",
)


def read(payload: Mapping[str, Any]) -> HookEvent:
    event = field(payload, "hook_event_name", str)
    reader = _EVENTS.get(event)
    if reader is None:
        raise HookError(f'the payload\'s hook_event_name "{event}" is not one of {", ".join(_EVENTS)}')
    tool, tool_input = reader(payload)
    roots = payload.get("workspace_roots")
    root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None
    cwd = field(payload, "cwd", str, required=False) or root or os.path.dirname(tool_input.get("path", "/"))
    session = field(payload, "conversation_id", str, required=False)
    call_id = field(payload, "generation_id", str, required=False)
    return HookEvent("pre", ToolCall(tool, tool_input, cwd, session, call_id, AGENT))


def _shell(payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    return "bash", {"command": field(payload, "command", str)}


def _read_file(payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    return "read", {"path": field(payload, "file_path", str)}


def _mcp(payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    return field(payload, "tool_name", str), arguments(payload, "tool_input")


_EVENTS = {"beforeShellExecution": _shell, "beforeReadFile": _read_file, "beforeMCPExecution": _mcp}


def answer(decision: Decision, event: HookEvent) -> Reply:
    if decision.action is Action.LOG:
        return json_reply({})
    permission = "allow" if decision.action in (Action.ALLOW, Action.NUDGE) else str(decision.action)
    to_model = decision.message if decision.action is Action.NUDGE and decision.message else decision.reason
    return json_reply(
        {
            "permission": permission,
            "user_message": decision.reason,
            "agent_message": to_model,
            "userMessage": decision.reason,
            "agentMessage": to_model,
        }
    )


outcome = no_outcome


def refuse(reason: str) -> Reply:
    return json_reply(
        {
            "permission": "deny",
            "user_message": reason,
            "agent_message": reason,
            "userMessage": reason,
            "agentMessage": reason,
        },
        BLOCK,
        reason + "\n",
    )


# --- install and doctor ---------------------------------------------------------------------------


def handler(command: str, timeout: int) -> dict[str, Any]:
    return {"command": command}  # Cursor takes no timeout


def sample(command: str, cwd: str, session: str) -> dict[str, Any]:
    # Cursor names its session conversation_id; session_id is there for a hook that looks for it.
    return {
        "conversation_id": session,
        "generation_id": f"{session}-1",
        "session_id": session,
        "hook_event_name": "beforeShellExecution",
        "workspace_roots": [cwd],
        "command": command,
        "cwd": cwd,
    }


def denies(answer: Mapping[str, Any]) -> bool:
    return answer.get("permission") == "deny"


switch = None


__all__ = ["answer", "outcome", "proceed", "read", "refuse"]
