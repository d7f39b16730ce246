"""`policy hook --agent NAME`: each agent's real payloads piped into the CLI as a subprocess; stdout,
stderr and the exit status checked for each of the five actions and for each failure, which must
block (exit 2, never 1: the agents run the tool on any other error)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import Sandbox
from payloads import claude, codex, copilot, cursor, gemini, pi, shell

POLICY = """
    {
      "policies": { "p": { "defaultAction": "allow", "rules": [
        { "action": "allow", "tool": "bash", "pattern": "ls*" },
        { "action": "nudge", "tool": "bash", "pattern": "grep *", "message": "use rg" },
        { "action": "log", "tool": "bash", "pattern": "make *" },
        { "action": "ask", "tool": "bash", "pattern": "npm *" },
        { "action": "deny", "tool": "bash", "pattern": "rm *" },
        { "action": "allow", "tool": "read" },
        { "action": "ask", "tool": "write" },
        { "action": "deny", "tool": "edit" },
        { "action": "nudge", "tool": "mcp__*", "message": "mind the API quota" },
      ] } },
      "defaultPolicy": "p",
      %s
    }
"""

COMMANDS = {
    "allow": "ls -la",
    "nudge": "grep -n TODO a.py",
    "log": "make test",
    "ask": "npm publish",
    "deny": "rm -rf build",
}


def file_tool(agent: str, cwd: str, kind: str) -> dict[str, Any] | None:
    """A read, write, edit or MCP call in ``agent``'s shape (None: the agent has no such hook)."""
    path = f"{cwd}/notes.txt"
    shapes: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {
        "claude": {
            "read": ("Read", {"file_path": path}),
            "write": ("Write", {"file_path": path, "content": "x"}),
            "edit": ("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}),
            "mcp": ("mcp__gh__create_issue", {"title": "x"}),
        },
        "gemini": {
            "read": ("read_file", {"file_path": path}),
            "write": ("write_file", {"file_path": path, "content": "x"}),
            "edit": ("replace", {"file_path": path, "old_string": "a", "new_string": "b"}),
            "mcp": ("mcp__gh__create_issue", {"title": "x"}),
        },
        "copilot": {
            "read": ("view", {"path": path}),
            "write": ("create", {"path": path, "file_text": "x"}),
            "edit": ("edit", {"path": path, "old_str": "a", "new_str": "b"}),
            "mcp": ("mcp__gh__create_issue", {"title": "x"}),
        },
        "pi": {
            "read": ("read", {"path": path}),
            "write": ("write", {"path": path, "content": "x"}),
            "edit": ("edit", {"path": path, "edits": [{"oldText": "a", "newText": "b"}]}),
            "mcp": ("mcp__gh__create_issue", {"title": "x"}),
        },
    }
    shapes["codex"] = {
        "read": ("Read", {"file_path": path}),  # not a Codex tool: judged by the shared names
        "write": ("apply_patch", {"command": f"*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch\n"}),
        "edit": (
            "apply_patch",
            {"command": f"*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n"},
        ),
        "mcp": ("mcp__gh__create_issue", {"title": "x"}),
    }
    if agent == "cursor":
        if kind == "read":
            return cursor(cwd, "beforeReadFile", file_path=path, content="x")
        if kind == "mcp":
            return cursor(
                cwd, "beforeMCPExecution", tool_name="mcp__gh__create_issue", tool_input='{"title": "x"}'
            )
        return None
    tool, tool_input = shapes[agent][kind]
    builder = {"claude": claude, "codex": codex, "gemini": gemini, "pi": pi}.get(agent)
    return builder(cwd, tool, tool_input) if builder else copilot(cwd, tool, tool_input)


# ---- What each agent must see -------------------------------------------------------------------


def check_answer(agent: str, action: str, result: Any, message: str | None = None) -> None:
    """The exact protocol of ``agent`` for a decision ``action``."""
    out = json.loads(result.stdout) if result.stdout.strip() else None
    blocked = {"codex": ("ask", "deny")}.get(agent, ())
    if action in blocked:
        assert result.returncode == 2 and out is None, result
        assert result.stderr.startswith("[policy-engine] ")
        if action == "ask":
            assert "Codex cannot ask" in result.stderr and "policy approve --session s1" in result.stderr
        return
    assert result.returncode == 0, result.stderr
    if action == "log" and agent != "pi":
        assert out == {}, out  # no decision: the agent's own flow decides
        return
    if agent == "claude":
        output = out["hookSpecificOutput"]
        assert output["hookEventName"] == "PreToolUse"
        assert output["permissionDecision"] == ("allow" if action == "nudge" else action)
        assert output["permissionDecisionReason"].startswith("[policy-engine] ")
        assert ("additionalContext" in output) == (action == "nudge")
        if message:
            assert output["additionalContext"] == message
    elif agent == "codex":
        if action == "nudge":
            assert out == {
                "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": message}
            }
        else:
            assert out == {}
    elif agent == "gemini":
        assert out["decision"] == ("deny" if action in ("ask", "deny") else "allow")
        assert out["reason"].startswith("[policy-engine] ")
        if action == "ask":
            assert "cannot ask" in out["reason"] and "policy approve" in out["reason"]
        if message:
            assert out["systemMessage"] == message
    elif agent == "cursor":
        assert out["permission"] == ("allow" if action == "nudge" else action)
        assert (
            out["user_message"].startswith("[policy-engine] ") and out["userMessage"] == out["user_message"]
        )
        if message:
            assert out["agent_message"] == message
    elif agent == "copilot":
        assert out["permissionDecision"] == {"nudge": "allow", "ask": "deny"}.get(action, action)
        assert out["permissionDecisionReason"].startswith("[policy-engine] ")
        if action == "ask":  # Copilot CLI cannot ask: a deny that says how to allow it
            reason = out["permissionDecisionReason"]
            assert "Copilot CLI cannot ask" in reason and "policy approve --session s1" in reason
        if message:
            assert out["additionalContext"] == message
    else:
        assert out["action"] == action and out["reason"].startswith("[policy-engine] ")
        assert out["message"] == message


AGENTS = ["claude", "codex", "gemini", "cursor", "copilot", "pi"]


@pytest.fixture
def project(sandbox: Sandbox) -> Path:
    sandbox.write(sandbox.user_config, POLICY % "")
    project = sandbox.project("repo")
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(sandbox.root / "state")
    return project


def hook(sandbox: Sandbox, agent: str, payload: Any, **env: str) -> Any:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return sandbox.run("hook", "--agent", agent, stdin=text, env=env)


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("action", list(COMMANDS))
def test_shell_calls_get_each_action(sandbox: Sandbox, project: Path, agent: str, action: str) -> None:
    result = hook(sandbox, agent, shell(agent, str(project), COMMANDS[action]))
    check_answer(agent, action, result, "use rg" if action == "nudge" else None)


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize(
    ("kind", "action"), [("read", "allow"), ("write", "ask"), ("edit", "deny"), ("mcp", "nudge")]
)
def test_file_and_mcp_tools(sandbox: Sandbox, project: Path, agent: str, kind: str, action: str) -> None:
    payload = file_tool(agent, str(project), kind)
    if payload is None:
        pytest.skip(f"{agent} has no hook before a {kind}")
    result = hook(sandbox, agent, payload)
    check_answer(agent, action, result, "mind the API quota" if action == "nudge" else None)


# A hook is a new process per tool call, so what it imports is what it costs. A plain command line
# or a file tool needs neither the parser nor `typing` (record.py), nor anything the cache spares.
IMPORTS = """
import os, sys
from policy_engine.hook import client
client.hook(sys.argv[1], os.environ)
heavy = ("typing", "tree_sitter", "sqlite3", "pydantic", "json5", "pathspec", "dataclasses", "inspect")
print(sorted(name for name in heavy if name in sys.modules), file=sys.stderr)
"""


def python(sandbox: Sandbox, code: str, agent: str, payload: dict[str, Any]) -> Any:
    """``code`` run by a fresh Python process (given ``agent``) fed the agent's JSON on stdin."""
    import subprocess

    return subprocess.run(
        [sys.executable, "-c", code, agent],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        # Not in the checkout: `python -c` imports from its working directory first, and beside an
        # installed wheel the checkout is another copy (with a compiled-policy cache of its own).
        cwd=str(sandbox.root),
        env=sandbox.env,
        timeout=60,
    )


def loaded(sandbox: Sandbox, agent: str, payload: dict[str, Any]) -> tuple[Any, list[str]]:
    """The answer to a hook call made in a fresh process, and which of IMPORTS' modules it loaded."""
    result = python(sandbox, IMPORTS, agent, payload)
    return result, json.loads(result.stderr.splitlines()[-1].replace("'", '"'))


@pytest.mark.parametrize("agent", AGENTS)
def test_a_plain_call_loads_neither_the_parser_nor_typing(
    sandbox: Sandbox, project: Path, agent: str
) -> None:
    calls = [shell(agent, str(project), COMMANDS["allow"]), file_tool(agent, str(project), "read")]
    hook(sandbox, agent, calls[0])  # compiles the policy into the cache
    for payload in calls:
        assert payload is not None
        result, modules = loaded(sandbox, agent, payload)
        check_answer(agent, "allow", result)
        assert modules == [], payload
    # A line that needs the parser loads it (the probe sees it).
    assert "tree_sitter" in loaded(sandbox, agent, shell(agent, str(project), "ls | wc -l"))[1]


def blocked(agent: str, result: Any, *phrases: str) -> None:
    """A failure's answer: exit 2, the reason on stderr (and a deny on stdout where the protocol
    has one), never 1."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stderr.startswith("[policy-engine] Blocked: the policy engine could not judge this call")
    for phrase in phrases:
        assert phrase in result.stderr
    if agent in ("cursor", "copilot", "pi"):
        out = json.loads(result.stdout)
        assert {
            "cursor": out.get("permission"),
            "copilot": out.get("permissionDecision"),
            "pi": out.get("action"),
        }[agent] == "deny"
    else:
        assert result.stdout == ""


@pytest.mark.parametrize("agent", AGENTS)
def test_malformed_stdin_blocks(sandbox: Sandbox, project: Path, agent: str) -> None:
    blocked(agent, hook(sandbox, agent, "this is not json"), "stdin is not JSON")
    blocked(agent, hook(sandbox, agent, "[1, 2]"), "not a JSON object")
    blocked(agent, hook(sandbox, agent, {"unexpected": True}), "payload")


@pytest.mark.parametrize(
    ("agent", "payload"),
    [
        ("claude", {"hook_event_name": "Stop", "cwd": "/", "tool_name": "Bash", "tool_input": {}}),
        (
            "claude",
            {"hook_event_name": "PreToolUse", "cwd": "/", "tool_name": "Bash", "tool_input": "rm -rf /"},
        ),
        ("gemini", {"hook_event_name": "BeforeModel", "cwd": "/", "tool_name": "x", "tool_input": {}}),
        ("cursor", {"hook_event_name": "beforeSubmitPrompt", "prompt": "x"}),
        ("copilot", {"cwd": "/", "toolName": "bash", "toolArgs": "{not json"}),
        ("pi", {"tool": "bash", "input": {"command": 1}, "cwd": 3}),
    ],
)
def test_unknown_events_and_wrong_fields_block(
    sandbox: Sandbox, project: Path, agent: str, payload: dict[str, Any]
) -> None:
    blocked(agent, hook(sandbox, agent, payload), "payload")


@pytest.mark.parametrize("agent", AGENTS)
def test_a_policy_file_with_a_mistake_blocks_and_says_where(
    sandbox: Sandbox, project: Path, agent: str
) -> None:
    sandbox.write(sandbox.user_config, '{ "policies": { "p": { "defaultAction": "alow" } } }')
    result = hook(sandbox, agent, shell(agent, str(project), "ls"))
    blocked(agent, result, f"{sandbox.user_config}:1:", 'unknown action "alow"', "Fix the policy file")


@pytest.mark.parametrize("agent", AGENTS)
def test_a_timeout_blocks(sandbox: Sandbox, project: Path, agent: str) -> None:
    result = hook(sandbox, agent, shell(agent, str(project), "ls"), POLICY_ENGINE_HOOK_TIMEOUT="0.0001")
    blocked(agent, result, "took longer than", "POLICY_ENGINE_HOOK_TIMEOUT")


CRASH = """
import sys
from policy_engine import engine, cli
def broken(self, call):
    raise RuntimeError("injected fault")
engine.Engine.evaluate = broken
sys.exit(cli.main(["hook", "--agent", sys.argv[1]]))
"""


def crash(sandbox: Sandbox, agent: str, payload: dict[str, Any]) -> Any:
    """The real CLI with a fault injected into the engine, as a subprocess fed the agent's JSON."""
    return python(sandbox, CRASH, agent, payload)


@pytest.mark.parametrize("agent", AGENTS)
def test_an_internal_error_blocks(sandbox: Sandbox, project: Path, agent: str) -> None:
    blocked(
        agent,
        crash(sandbox, agent, shell(agent, str(project), "ls")),
        "internal error RuntimeError: injected fault",
    )


@pytest.mark.parametrize("agent", AGENTS)
def test_on_error_allow_lets_the_agent_decide(sandbox: Sandbox, project: Path, agent: str) -> None:
    sandbox.write(sandbox.user_config, POLICY % '"onError": "allow",')
    result = crash(sandbox, agent, shell(agent, str(project), "ls"))
    assert result.returncode == 0, result.stderr
    assert "(onError is allow: not blocked)" in result.stderr
    out = json.loads(result.stdout)
    assert out == ({"action": "log", "reason": out.get("reason"), "message": None} if agent == "pi" else {})


def test_an_untrusted_project_cannot_set_on_error(sandbox: Sandbox, project: Path) -> None:
    sandbox.write(project / ".policy-engine" / "policy.jsonc", '{ "onError": "allow" }')
    blocked("claude", crash(sandbox, "claude", shell("claude", str(project), "ls")), "injected fault")


def test_claude_post_tool_use_records_the_outcome(sandbox: Sandbox, project: Path) -> None:
    assert hook(sandbox, "claude", shell("claude", str(project), "npm test")).returncode == 0
    post = claude(str(project), "Bash", {"command": "npm test"}, "PostToolUse")
    post["tool_response"] = {"stdout": "ok", "stderr": "", "interrupted": False}
    result = hook(sandbox, "claude", post)
    assert (result.returncode, json.loads(result.stdout)) == (0, {})
    lines = [
        json.loads(line) for line in (sandbox.root / "state" / "decisions.jsonl").read_text().splitlines()
    ]
    assert [
        (line["event"], line["tool_call"], line["agent"] if line["event"] == "decision" else line["ran"])
        for line in lines
    ] == [
        ("decision", "toolu_01ABC", "claude"),
        ("outcome", "toolu_01ABC", True),
    ]


def test_hook_calls_of_a_session_trip_the_breaker(sandbox: Sandbox, project: Path) -> None:
    sandbox.write(sandbox.user_config, POLICY % '"agentTimeout": { "maxDenies": 2, "windowSeconds": 60 },')
    first = hook(sandbox, "claude", shell("claude", str(project), "rm -rf a"))
    second = hook(sandbox, "claude", shell("claude", str(project), "rm -rf b"))
    decisions = [json.loads(r.stdout)["hookSpecificOutput"]["permissionDecision"] for r in (first, second)]
    assert decisions == ["deny", "ask"]


@pytest.mark.parametrize("agent", AGENTS)
def test_stdin_that_is_not_utf8_blocks(sandbox: Sandbox, project: Path, agent: str) -> None:
    import subprocess

    raw = json.dumps(shell(agent, str(project), "ls")).encode().replace(b"ls", b"l\xff")
    result = subprocess.run(
        [sys.executable, "-m", "policy_engine", "hook", "--agent", agent],
        input=raw,
        capture_output=True,
        env=sandbox.env,
        timeout=60,
    )
    assert result.returncode == 2
    assert b"stdin is not UTF-8" in result.stderr


# ---- Pagers: a doubt only where the agent can type into them unseen -----------------------------


@pytest.mark.parametrize("agent", AGENTS)
def test_a_pager_is_judged_by_who_can_type_into_it(sandbox: Sandbox, agent: str) -> None:
    """less copies a file where its output is not a terminal, and on Gemini's terminal only the
    person types; Codex's write_stdin types into a running command without the hook: there the
    pager's !cmd would run unjudged, so it asks (Codex then blocks, saying how to approve)."""
    project = sandbox.project("repo")
    (project / "README.md").write_text("# hello\n")
    result = hook(sandbox, agent, shell(agent, str(project), "less README.md"))
    check_answer(agent, "ask" if agent == "codex" else "allow", result)
    if agent == "codex":
        assert "an interactive pager runs commands typed into it" in result.stderr
