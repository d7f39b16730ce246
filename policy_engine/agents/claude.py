"""Claude Code: PreToolUse and PostToolUse command hooks (verified with Claude Code 2.1.197).

Input: ``{session_id, transcript_path, cwd, prompt_id, permission_mode, effort, hook_event_name,
tool_name, tool_input, tool_use_id}``. Output on exit 0: ``hookSpecificOutput.permissionDecision``
(``allow``, ``ask``, ``deny``) with ``permissionDecisionReason``, and ``additionalContext``, which
reaches the model as a system reminder (a nudge). A ``log`` gives no decision at all, so Claude's
own permission flow decides; exit 2 with the reason on stderr blocks.

In ``bypassPermissions`` mode Claude Code runs a call its hook asked about ("ask rule/safety check
requires full permission pipeline"), so there, and in any mode this module does not know, an ask
is a deny that says how a person can allow the call. ``deny`` is honoured in every mode.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import Action, Decision
from .protocol import (
    BLOCK,
    HookEvent,
    Installation,
    Reply,
    blocked_ask,
    fields_of,
    json_reply,
    no_outcome,
    proceed,
    rewritten,
    tool_event,
)

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

AGENT = "claude"
NAME = "Claude Code"
PROGRAM = "claude"  # the CLI, for doctor's version check
VERIFIED = "2.1.197"
EVENTS = {"PreToolUse": "pre", "PostToolUse": "post"}

# Claude Code's tool names -> canonical ones. Current versions have Agent and Task*; older ones
# Task, TodoWrite, Grep, Glob, LS, MultiEdit: both are kept. Bookkeeping (todo) and sub-agents
# and background jobs (task) touch no file themselves: what they go on to do is hooked call by
# call. Monitor runs a shell command in the background.
TOOLS = {
    "Bash": "bash",
    "Monitor": "bash",
    "Read": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "Grep": "grep",
    "Glob": "find",
    "LS": "ls",
    "WebFetch": "web_fetch",
    "WebSearch": "web_search",
    "TodoWrite": "todo",
    "TaskCreate": "todo",
    "TaskUpdate": "todo",
    "TaskList": "todo",
    "TaskGet": "todo",
    "Task": "task",
    "Agent": "task",
    "TaskOutput": "task",
    "TaskStop": "task",
    "SendMessage": "task",
    "Skill": "task",
}
# Claude Code's Grep runs ripgrep with --hidden, which skips what git ignores in a work tree.
TREES = {"Grep": "git"}
# Its Bash tool runs commands without a terminal and has no way to type into them.
TYPES_UNSEEN = False
# Its PreToolUse answer can replace the tool's input (hookSpecificOutput.updatedInput, with allow): a
# sandboxed allow sends the confined command (verified with 2.1.197: the whole input is replaced).
REWRITES = True
# The input fields of the tools whose fields decide what they touch (sdk-tools.d.ts of 2.1.197,
# and the older tools'). Another field makes the call unproven.
FIELDS = fields_of(
    {
        "Bash": ("command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"),
        "Monitor": ("command", "description", "timeout_ms", "persistent", "ws"),
        "Read": ("file_path", "offset", "limit", "pages"),
        "Write": ("file_path", "content"),
        "Edit": ("file_path", "old_string", "new_string", "replace_all"),
        "MultiEdit": ("file_path", "edits"),
        "NotebookEdit": ("notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"),
        "Grep": (
            "pattern", "path", "glob", "output_mode", "-B", "-A", "-C", "context", "-n", "-i", "-o",
            "type", "head_limit", "offset", "multiline",
        ),
        "Glob": ("pattern", "path"),
        "LS": ("path", "ignore"),
    }
)  # fmt: skip
# Permission modes in which Claude Code puts a hook's ask to the person (or, headless, refuses the
# call): every mode it sends but bypassPermissions.
ASKING_MODES = frozenset({"default", "acceptEdits", "dontAsk", "auto", "plan"})

# Self-protection: the settings that load hooks, wherever a project keeps them (a name in any
# directory, then a regex of the rest), and the directory itself (replacing .claude replaces them).
SETTINGS = ((".claude", ".claude", ""), (".claude/settings*.json", ".claude", r"/settings[^/]*\.json"))
HOMES: tuple[tuple[str | None, str], ...] = ()

# docs.claude.com/docs/claude-code/hooks: ~/.claude/settings.json and .claude/settings.json;
# "matcher" "*" matches every tool; "timeout" is in seconds.
INSTALL = Installation(
    ".claude/settings.json", ".claude", None, "settings.json", tuple(EVENTS), True, "command", None, False
)


def read(payload: Mapping[str, Any]) -> HookEvent:
    return tool_event(payload, EVENTS, AGENT, "tool_use_id", FIELDS, f"{NAME} {VERIFIED}")


def answer(decision: Decision, event: HookEvent) -> Reply:
    confined = rewritten(decision, event)
    if decision.action is Action.LOG and confined is None:
        return json_reply({})
    output: dict[str, Any] = {"hookEventName": "PreToolUse"}
    reason = decision.reason
    if confined is not None:  # an allow is what carries the confined input
        output["permissionDecision"] = "allow"
        output["updatedInput"] = confined
        if decision.action is Action.NUDGE:
            output["additionalContext"] = decision.message or decision.reason
    elif decision.action is Action.NUDGE:
        output["permissionDecision"] = "allow"
        output["additionalContext"] = decision.message or decision.reason
    elif decision.action is Action.ASK and event.mode not in ASKING_MODES:
        output["permissionDecision"] = "deny"
        reason = blocked_ask(reason, _unasked(event.mode), decision.call)
    else:
        output["permissionDecision"] = str(decision.action)
    output["permissionDecisionReason"] = reason
    return json_reply({"hookSpecificOutput": output})


def _unasked(mode: str | None) -> str:
    """Why an ask cannot be put to a person in ``mode``."""
    if mode == "bypassPermissions":
        return f"{NAME} runs an asked call without asking in bypassPermissions mode"
    if mode is None:
        return f"the payload names no permission mode, and in some {NAME} runs an asked call unasked"
    return f'{NAME}\'s permission mode "{mode}" is not one in which it is known to ask'


outcome = no_outcome


def refuse(reason: str) -> Reply:
    return Reply("", reason + "\n", BLOCK)


# --- install and doctor ---------------------------------------------------------------------------


def handler(command: str, timeout: int) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": timeout}


def sample(command: str, cwd: str, session: str) -> dict[str, Any]:
    """A PreToolUse payload as Claude Code sends it, for doctor."""
    return {
        "session_id": session,
        "transcript_path": "",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": f"{session}-1",
    }


def denies(answer: Mapping[str, Any]) -> bool:
    specific = answer.get("hookSpecificOutput")
    decision = specific.get("permissionDecision") if isinstance(specific, Mapping) else None
    return decision == "deny" or answer.get("decision") == "block"


def switch(doc: Mapping[str, Any], path: str) -> str | None:
    """How the file turns hooks off, as a fix (Claude Code skips them under disableAllHooks)."""
    return f'remove "disableAllHooks" from {path}' if doc.get("disableAllHooks") is True else None


__all__ = ["answer", "outcome", "proceed", "read", "refuse"]
