"""Gemini CLI: BeforeTool and AfterTool command hooks (verified with Gemini CLI 0.61.0).

Input: ``{session_id, transcript_path, cwd, hook_event_name, timestamp, tool_name, tool_input}``.
``run_shell_command`` runs its command in ``dir_path`` (``directory`` in older versions), absolute
or relative to the project: that is the call's working directory. Output:
``{"decision": "allow" | "deny", "reason"}``; exit 0 lets the JSON decide, 1 is "allow with a
warning", 2 or more deny with stderr as the reason. Gemini's hooks cannot ask, so an ask is a deny
whose reason says how a person can allow it. A BeforeTool ``systemMessage`` reaches the person
only; the model reads a nudge as AfterTool's ``additionalContext``, appended to the tool's result,
so a nudge is held until the AfterTool event of the same call (``NUDGE_AFTER``: Gemini's payload
has no call id, so the call is paired by session, tool and input). A log gives no decision.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from ..model import Action, Decision
from .protocol import (
    BLOCK,
    HookError,
    HookEvent,
    Installation,
    Reply,
    blocked_ask,
    fields_of,
    json_reply,
    proceed,
    rewritten,
    tool_event,
)

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

AGENT = "gemini"
NAME = "Gemini CLI"
PROGRAM = "gemini"
VERIFIED = "0.61.0"
EVENTS = {"BeforeTool": "pre", "AfterTool": "post"}
NUDGE_AFTER = True

# Gemini CLI's tool names, current (0.61) and older (search_file_content, read_many_files).
TOOLS = {
    "run_shell_command": "bash",
    "read_file": "read",
    "read_many_files": "read",
    "write_file": "write",
    "replace": "edit",
    "glob": "find",
    "grep_search": "grep",
    "search_file_content": "grep",
    "list_directory": "ls",
    "google_web_search": "web_search",
    "web_fetch": "web_fetch",
    "write_todos": "todo",
    "update_topic": "todo",
    "tracker_create_task": "todo",
    "tracker_update_task": "todo",
    "tracker_get_task": "todo",
    "tracker_list_tasks": "todo",
    "tracker_add_dependency": "todo",
    "tracker_visualize": "todo",
    "invoke_agent": "task",
    "activate_skill": "task",
    "list_background_processes": "task",
    "read_background_output": "task",
}
# grep_search is ripgrep when Gemini finds it (hidden files skipped), else git grep, which falls
# back to `grep -r` (hidden files read) outside a repository: its walk is taken as the wider one.
TREES = {"grep_search": "all", "search_file_content": "all"}
# run_shell_command runs in a pseudo-terminal (node-pty) that only the person can type into.
TYPES_UNSEEN = False
# Its BeforeTool answer can replace the tool's arguments (hookSpecificOutput.tool_input, whole):
# a sandboxed allow sends the confined command (verified with 0.61.0).
REWRITES = True
# Every tool may carry wait_for_previous (scheduling only).
_WAIT = ("wait_for_previous",)
FIELDS = fields_of(
    {
        "run_shell_command": (
            "command", "description", "dir_path", "directory", "is_background", "delay_ms", *_WAIT,
        ),
        "read_file": ("file_path", "absolute_path", "start_line", "end_line", "offset", "limit", *_WAIT),
        "read_many_files": (
            "paths", "include", "exclude", "recursive", "useDefaultExcludes", "file_filtering_options",
            *_WAIT,
        ),
        "write_file": ("file_path", "content", *_WAIT),
        "replace": (
            "file_path", "instruction", "old_string", "new_string", "allow_multiple", "expected_replacements",
            *_WAIT,
        ),
        "glob": (
            "pattern", "dir_path", "path", "case_sensitive", "respect_git_ignore", "respect_gemini_ignore",
            *_WAIT,
        ),
        "grep_search": (
            "pattern", "dir_path", "include_pattern", "exclude_pattern", "names_only", "max_matches_per_file",
            "total_max_matches", "case_sensitive", "fixed_strings", "context", "after", "before", "no_ignore",
            *_WAIT,
        ),
        "search_file_content": ("pattern", "path", "dir_path", "include", *_WAIT),
        "list_directory": ("dir_path", "path", "ignore", "file_filtering_options", *_WAIT),
    }
)  # fmt: skip
_SHELL = "run_shell_command"
_SHELL_DIRECTORIES = ("dir_path", "directory")

# A trusted folder's .gemini/settings.json applies (and may switch hooks off): trustedFolders.json
# decides which folders are trusted.
SETTINGS = (
    (".gemini", ".gemini", ""),
    (".gemini/settings.json", ".gemini", r"/settings\.json"),
    (".gemini/trustedFolders.json", ".gemini", r"/trustedFolders\.json"),
)
HOMES: tuple[tuple[str | None, str], ...] = ()

# geminicli.com/docs/hooks/reference: "hooks" in settings.json; "*" matches every tool; "timeout"
# is in milliseconds (default 60000).
INSTALL = Installation(
    ".gemini/settings.json",
    ".gemini",
    None,
    "settings.json",
    tuple(EVENTS),
    True,
    "command",
    None,
    False,
    "Gemini CLI runs project hooks only in a trusted folder",
)


def read(payload: Mapping[str, Any]) -> HookEvent:
    event = tool_event(payload, EVENTS, AGENT, None, FIELDS, f"{NAME} {VERIFIED}")
    call = event.call
    if call.tool != _SHELL:
        return event
    given = {name: call.input[name] for name in _SHELL_DIRECTORIES if call.input.get(name) is not None}
    if not given:
        return event
    if any(not isinstance(value, str) for value in given.values()) or len(set(given.values())) > 1:
        raise HookError(f"the {_SHELL} call's working directory is unreadable: {given}")
    directory = next(iter(given.values()))
    # Gemini resolves it against the project directory, which its payload gives as cwd (no ~).
    workdir = posixpath.normpath(posixpath.join(call.cwd, directory)) if directory else None
    rest = {name: value for name, value in call.input.items() if name not in _SHELL_DIRECTORIES}
    return event._replace(call=call._replace(input=rest, workdir=workdir))


def answer(decision: Decision, event: HookEvent) -> Reply:
    action = decision.action
    confined = rewritten(decision, event)
    if action is Action.LOG and confined is None:
        return json_reply({})
    if action is Action.ASK:
        reason = blocked_ask(decision.reason, f"{NAME} cannot ask", decision.call)
        return json_reply({"decision": "deny", "reason": reason})
    if action is Action.DENY:
        return json_reply({"decision": "deny", "reason": decision.reason})
    reply: dict[str, Any] = {"decision": "allow", "reason": decision.reason}
    if confined is not None:
        reply["hookSpecificOutput"] = {"hookEventName": "BeforeTool", "tool_input": confined}
    if action is Action.NUDGE:
        reply["systemMessage"] = decision.message or decision.reason  # for the person; the model
        # gets it after the tool (outcome)
    return json_reply(reply)


def outcome(event: HookEvent, note: str | None) -> Reply:
    """AfterTool: a nudge held for this call goes to the model with the tool's result."""
    if not note:
        return json_reply({})
    return json_reply({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": note}})


def refuse(reason: str) -> Reply:
    return Reply("", reason + "\n", BLOCK)


# --- install and doctor ---------------------------------------------------------------------------


def handler(command: str, timeout: int) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": timeout * 1000}


def sample(command: str, cwd: str, session: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "",
        "cwd": cwd,
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-01T00:00:00.000Z",
        "tool_name": _SHELL,
        "tool_input": {"command": command},
    }


def denies(answer: Mapping[str, Any]) -> bool:
    return answer.get("decision") in ("deny", "block")


def switch(doc: Mapping[str, Any], path: str) -> str | None:
    """hooksConfig.enabled today; hooks.enabled in the experimental releases."""
    for table in ("hooksConfig", "hooks"):
        value = doc.get(table)
        if isinstance(value, dict) and value.get("enabled") is False:
            return f'set "{table}": {{"enabled": true}} in {path}'
    return None


__all__ = ["answer", "outcome", "proceed", "read", "refuse"]
