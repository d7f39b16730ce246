"""What every agent adapter shares: the event read from a hook payload, the reply, and their errors.

An adapter is two pure functions: ``read(payload) -> HookEvent`` (the agent's JSON to a canonical
ToolCall) and ``answer(decision) -> Reply`` (a Decision to the agent's JSON, stderr and exit
status), plus ``refuse(reason) -> Reply``, the blocking answer for anything that went wrong. The
CLI (``policy hook``) does the I/O; nothing here reads stdin or touches the disk.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..model import ToolCall
from ..record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

# The blocking exit status of Claude Code, Codex and Gemini CLI: the call is refused and stderr is
# the reason. Any other non-zero status is a "non-blocking error" there, and the tool runs anyway.
BLOCK = 2


class HookError(Exception):
    """A payload that cannot be judged (malformed, a field of the wrong type, an unknown event)."""


class HookEvent(Record):
    """A payload read: a call to judge (``pre``), or the outcome of one (``post``: ``ran``)."""

    kind: str
    call: ToolCall
    ran: bool | None = None


class Reply(Record):
    """What the hook prints and how it exits."""

    stdout: str
    stderr: str = ""
    status: int = 0


def json_reply(data: Mapping[str, Any], status: int = 0, stderr: str = "") -> Reply:
    return Reply(json.dumps(data, ensure_ascii=False) + "\n", stderr, status)


def field(
    payload: Mapping[str, Any], name: str, kind: type | tuple[type, ...], *, required: bool = True
) -> Any:
    """``payload[name]`` checked to be of ``kind``; HookError when it is missing or of another type."""
    value = payload.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, kind):
        what = "missing" if value is None else f"a {type(value).__name__}"
        raise HookError(f'the payload\'s "{name}" is {what}')
    return value


def arguments(payload: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A tool's arguments: an object, or a JSON string holding one (Copilot CLI, some Cursor
    releases); HookError otherwise."""
    value = payload.get(name)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise HookError(f'the payload\'s "{name}" is not JSON') from None
    if not isinstance(value, dict):
        raise HookError(f'the payload\'s "{name}" is not an object')
    return value


def tool_event(
    payload: Mapping[str, Any], events: Mapping[str, str], agent: str, call_id: str | None
) -> HookEvent:
    """The event of a Claude-shaped payload (``hook_event_name``, ``tool_name``, ``tool_input``,
    ``cwd``, ``session_id``, and the tool-call id under ``call_id``), which Gemini CLI shares."""
    event = field(payload, "hook_event_name", str)
    if event not in events:
        raise HookError(f'the payload\'s hook_event_name "{event}" is not {" or ".join(events)}')
    call = ToolCall(
        field(payload, "tool_name", str),
        field(payload, "tool_input", dict),
        field(payload, "cwd", str),
        field(payload, "session_id", str, required=False),
        field(payload, call_id, str, required=False) if call_id else None,
        agent,
    )
    kind = events[event]
    return HookEvent(kind, call, True if kind == "post" else None)


def proceed(reason: str) -> Reply:
    """No decision: the agent's own permission flow decides (``onError: "allow"``)."""
    return json_reply({})


def approve_hint(call: ToolCall) -> str:
    """The command a person runs to allow this call for the session (agents that cannot ask)."""
    import shlex  # only for an ask: it brings `re`

    words = ["policy", "approve"]
    if call.session_id:
        words += ["--session", call.session_id]
    words += ["--cwd", call.cwd, "--tool", call.tool]
    command = call.input.get("command") if isinstance(call.input, Mapping) else None
    if isinstance(command, str):
        words += ["--", command]
    else:
        words += ["--input", json.dumps(dict(call.input), ensure_ascii=False)]
    return f"To allow it, a person can run: {shlex.join(words)}"
