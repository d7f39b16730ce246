"""Each agent's hook payloads as its current CLI sends them (reference/agents-observed.md)."""

from __future__ import annotations

from typing import Any


def claude(cwd: str, tool: str, tool_input: dict[str, Any], event: str = "PreToolUse") -> dict[str, Any]:
    return {
        "session_id": "s1",
        "transcript_path": "/home/me/.claude/projects/p/s1.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01ABC",
    }


def codex(cwd: str, tool: str, tool_input: dict[str, Any], event: str = "PreToolUse") -> dict[str, Any]:
    # Codex 0.171.0 (reference/agents-observed.md): its rollout file is not there in a test, so the
    # payload's cwd is the session's.
    return {
        "session_id": "s1",
        "turn_id": "t1",
        "transcript_path": None,
        "cwd": cwd,
        "hook_event_name": event,
        "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "call_1",
    }


def gemini(cwd: str, tool: str, tool_input: dict[str, Any], event: str = "BeforeTool") -> dict[str, Any]:
    return {
        "session_id": "s1",
        "transcript_path": "/home/me/.gemini/tmp/chats/s1.json",
        "cwd": cwd,
        "hook_event_name": event,
        "timestamp": "2026-11-30T09:00:00.000Z",
        "tool_name": tool,
        "tool_input": tool_input,
    }


def cursor(root: str, event: str, **fields: Any) -> dict[str, Any]:
    return {
        "conversation_id": "c1",
        "generation_id": "g1",
        "hook_event_name": event,
        "workspace_roots": [root],
        **fields,
    }


def copilot(cwd: str, tool: str, tool_args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    # Copilot CLI 1.0.102: toolArgs is an object (a JSON string before 1.0: see its own test)
    return {
        "sessionId": "s1",
        "timestamp": 1764493200000,
        "cwd": cwd,
        "toolName": tool,
        "toolArgs": tool_args,
        **extra,
    }


def pi(cwd: str, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"tool": tool, "input": tool_input, "cwd": cwd, "session_id": "s1", "tool_call_id": "t1"}


def shell(agent: str, cwd: str, command: str) -> dict[str, Any]:
    if agent == "claude":
        return claude(cwd, "Bash", {"command": command, "description": "x"})
    if agent == "codex":
        return codex(cwd, "Bash", {"command": command})
    if agent == "gemini":
        return gemini(cwd, "run_shell_command", {"command": command, "description": "x"})
    if agent == "cursor":
        return cursor(cwd, "beforeShellExecution", command=command, cwd=cwd)
    if agent == "copilot":
        return copilot(cwd, "bash", {"command": command, "description": "x"})
    return pi(cwd, "bash", {"command": command})
