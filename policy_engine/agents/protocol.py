"""What every agent module shares: the event read from a hook payload, the reply, and their errors.

An agent module holds everything about one agent (see ``__init__``). Its hook side is pure
functions: ``read(payload) -> HookEvent`` (the agent's JSON to a ToolCall), ``answer(decision,
event) -> Reply`` (a Decision to the agent's JSON, stderr and exit status), ``outcome(event, note)
-> Reply`` (after a post-tool event) and ``refuse(reason) -> Reply``, the blocking answer for
anything that went wrong. The CLI (``policy hook``) does the I/O; nothing here reads stdin or
touches the disk.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..model import Action, ToolCall
from ..record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from ..model import Decision

# The blocking exit status of Claude Code, Codex, Gemini CLI and Copilot CLI: the call is refused
# and stderr is the reason. Any other non-zero status is a "non-blocking error" there (Gemini CLI:
# 1 is "allow with a warning"), and the tool runs anyway.
BLOCK = 2


class HookError(Exception):
    """A payload that cannot be judged (malformed, a field of the wrong type, an unknown event)."""


class IncompleteCall(HookError):
    """A well-formed payload whose call lacks what judging it needs (a file tool without its path)."""


class TooDeep(HookError):
    """A payload (or a JSON string in it) that nests lists and objects deeper than ``MAX_DEPTH``."""


# Far more levels than any agent's payload or tool input holds (a few, a dozen for an MCP tool's
# arguments), and far fewer than exhaust Python's recursion: in json itself (about 1,000, less
# the frames already in use) or in any walker of a tool input, the daemon's threads included.
MAX_DEPTH = 100


def loads(text: str, what: str) -> Any:
    """``json.loads(text)`` (ValueError when it is not JSON); TooDeep, naming ``what``, when it nests
    deeper than ``MAX_DEPTH``, whether json itself runs out of stack or a walker would later."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep(f"{what} is nested deeper than {MAX_DEPTH} levels") from None
    # Nesting needs brackets: the usual payload has too few to look any closer.
    if text.count("[") + text.count("{") > MAX_DEPTH and _nests_deeper(value, MAX_DEPTH):
        raise TooDeep(f"{what} is nested deeper than {MAX_DEPTH} levels")
    return value


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether ``value`` holds a list or object ``limit`` levels down, level by level (recursion is
    what such a value exhausts)."""
    level = [value] if isinstance(value, dict | list) else []
    for _ in range(limit):
        level = [
            child
            for item in level
            for child in (item.values() if isinstance(item, dict) else item)
            if isinstance(child, dict | list)
        ]
        if not level:
            return False
    return True


class HookEvent(Record):
    """A payload read: a call to judge (``pre``), or the outcome of one (``post``: ``ran``).
    ``mode`` is the agent's permission mode when its payload names one (Claude Code's
    ``permission_mode``)."""

    kind: str
    call: ToolCall
    ran: bool | None = None
    mode: str | None = None


class Reply(Record):
    """What the hook prints and how it exits."""

    stdout: str
    stderr: str = ""
    status: int = 0


class Installation(Record):
    """Where an agent reads its hooks and in what shape: what ``policy install`` writes.

    ``project`` is the settings file relative to a project directory; ``home`` the agent's
    directory under HOME (``home_variable`` moves it) and ``user`` the file relative to it.
    ``grouped``: entries are ``{"matcher", "hooks": [handler]}`` groups, not bare handlers;
    ``command_key`` the handler's field holding the command line; ``version`` the ``"version"``
    the file must declare; ``own_file``: the file is ours alone (removed when uninstall leaves it
    empty); ``note`` what a person must still do, for doctor."""

    project: str
    home: str
    home_variable: str | None
    user: str
    events: tuple[str, ...]
    grouped: bool
    command_key: str
    version: int | None
    own_file: bool
    note: str = ""


class Check(Record):
    """One finding of ``policy doctor``: ``ok`` (a ``warning`` is ok but worth reading), what was
    seen, and what to do about it."""

    name: str
    ok: bool
    detail: str
    fix: str | None
    warning: bool = False


def rewritten(decision: Decision, event: HookEvent) -> dict[str, Any] | None:
    """The tool input to run instead, whole (every agent replaces the input it is given, none merges
    it): the call's own with the sandbox's confined command, when a call that runs (allow, nudge,
    log) may run only confined; None when it runs as it came. An agent answers such a call with
    its allow, which is the only answer that carries a changed input."""
    sandbox = decision.sandbox
    if decision.action >= Action.ASK or sandbox is None or sandbox.applied:
        return None
    return {**event.call.input, "command": sandbox.command}


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
    """A tool's arguments: an object, or a JSON string holding one (Copilot CLI before 1.0, some
    Cursor releases); HookError otherwise."""
    value = payload.get(name)
    if isinstance(value, str):
        try:
            value = loads(value, f'the payload\'s "{name}"')
        except ValueError:
            raise HookError(f'the payload\'s "{name}" is not JSON') from None
    if not isinstance(value, dict):
        raise HookError(f'the payload\'s "{name}" is not an object')
    return value


def tool_event(
    payload: Mapping[str, Any],
    events: Mapping[str, str],
    agent: str,
    call_id: str | None,
    fields: Mapping[str, frozenset[str]],
    shown: str,
) -> HookEvent:
    """The event of a Claude-shaped payload (``hook_event_name``, ``tool_name``, ``tool_input``,
    ``cwd``, ``session_id``, and the tool-call id under ``call_id``), which Codex and Gemini CLI
    share. ``fields`` are the input fields each tool is known to take (see ``unknown_fields``)."""
    event = field(payload, "hook_event_name", str)
    if event not in events:
        raise HookError(f'the payload\'s hook_event_name "{event}" is not {" or ".join(events)}')
    tool = field(payload, "tool_name", str)
    tool_input = field(payload, "tool_input", dict)
    call = ToolCall(
        tool,
        tool_input,
        field(payload, "cwd", str),
        field(payload, "session_id", str, required=False),
        field(payload, call_id, str, required=False) if call_id else None,
        agent,
        unknown_fields(tool, tool_input, fields, shown),
    )
    kind = events[event]
    mode = payload.get("permission_mode")
    return HookEvent(kind, call, True if kind == "post" else None, mode if isinstance(mode, str) else None)


def unknown_fields(
    tool: str, tool_input: Mapping[str, Any], fields: Mapping[str, frozenset[str]], shown: str
) -> tuple[str, ...]:
    """Doubts for the input fields of a known tool that its agent is not known to send: a new
    field may change what the tool does (where a command runs, which files a search reads), so a
    call carrying one is not proven harmless. Tools without a field list (MCP tools, bookkeeping)
    are judged by their name alone."""
    known = fields.get(tool)
    if known is None:
        return ()
    odd = sorted(name for name in tool_input if name not in known)
    return tuple(
        f'{tool}\'s input field "{name}" is unknown ({shown} does not send it): it may change what '
        "the tool does"
        for name in odd
    )


def proceed(reason: str) -> Reply:
    """No decision: the agent's own permission flow decides (``onError: "allow"``)."""
    return json_reply({})


def no_outcome(event: HookEvent, note: str | None) -> Reply:
    """The answer to a post-tool event for agents that take nothing back there."""
    return json_reply({})


def approve_hint(call: ToolCall) -> str:
    """The command a person runs to allow this call for the session (agents that cannot ask)."""
    import shlex  # only for an ask: it brings `re`

    words = ["policy", "approve"]
    if call.session_id:
        words += ["--session", call.session_id]
    words += ["--cwd", call.workdir or call.cwd, "--tool", call.tool]
    command = call.input.get("command") if isinstance(call.input, Mapping) else None
    if isinstance(command, str):
        words += ["--", command]
    else:
        words += ["--input", json.dumps(dict(call.input), ensure_ascii=False)]
    return f"To allow it, a person can run: {shlex.join(words)}"


def blocked_ask(reason: str, why: str, call: ToolCall) -> str:
    """The reason of an ask the agent cannot put to a person: blocked, and how to allow it."""
    return f"{reason} {why}, so it is blocked. {approve_hint(call)}"


def fields_of(table: Mapping[str, tuple[str, ...]]) -> dict[str, frozenset[str]]:
    """``FIELDS`` tables are written as tuples; looked up as sets."""
    return {tool: frozenset(names) for tool, names in table.items()}
