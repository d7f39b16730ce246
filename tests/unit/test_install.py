"""policy install / uninstall / doctor: real settings files under a fake HOME and project."""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from payloads import shell

import policy_engine
from policy_engine.agents import agent_module
from policy_engine.hook import install as inst
from policy_engine.hook.install import AGENTS, Check, doctor, executable, hook_command, install, uninstall

SCOPES = ("user", "project")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return {"HOME": str(home)}


def expected_path(agent: str, scope: str, home: Path, project: Path) -> Path:
    """Where each agent reads its hooks, written out independently of the module's table."""
    user = {
        "claude": ".claude/settings.json",
        "codex": ".codex/hooks.json",
        "gemini": ".gemini/settings.json",
        "cursor": ".cursor/hooks.json",
        "copilot": ".copilot/hooks/policy-engine.json",
    }
    in_project = {
        "claude": ".claude/settings.json",
        "codex": ".codex/hooks.json",
        "gemini": ".gemini/settings.json",
        "cursor": ".cursor/hooks.json",
        "copilot": ".github/hooks/policy-engine.json",
    }
    return home / user[agent] if scope == "user" else project / in_project[agent]


def fresh_install(agent: str, scope: str = "user") -> dict[str, Any]:
    """The whole file install writes into an empty directory."""
    command = hook_command(agent, scope)

    def group(timeout: int) -> list[Any]:
        return [{"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": timeout}]}]

    if agent == "claude":
        return {"hooks": {"PreToolUse": group(30), "PostToolUse": group(30)}}
    if agent == "codex":
        return {"hooks": {"PreToolUse": group(30)}}
    if agent == "gemini":
        return {"hooks": {"BeforeTool": group(30000), "AfterTool": group(30000)}}
    if agent == "cursor":
        entry = [{"command": command}]
        events = ("beforeShellExecution", "beforeReadFile", "beforeMCPExecution")
        return {"version": 1, "hooks": dict.fromkeys(events, entry)}
    entry = [{"type": "command", "bash": command, "timeoutSec": 30}]
    return {"version": 1, "hooks": {"preToolUse": entry, "postToolUse": entry}}


# Settings files that already hold other hooks (of the same events and others) and other keys.
OTHERS: dict[str, dict[str, Any]] = {
    "claude": {
        "model": "opus",
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        },
        "env": {"FOO": "bär"},
    },
    "codex": {
        "description": "team hooks",
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 check.py"}]}
            ],
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "hi"}]}],
        },
    },
    "gemini": {
        "theme": "GitHub",
        "hooksConfig": {"enabled": True},
        "hooks": {
            "BeforeTool": [
                {
                    "matcher": "write_file|replace",
                    "hooks": [{"type": "command", "command": "lint.sh", "timeout": 5000}],
                }
            ],
            "SessionEnd": [{"hooks": [{"type": "command", "command": "bye"}]}],
        },
    },
    "cursor": {
        "version": 1,
        "hooks": {
            "beforeShellExecution": [{"command": "./hooks/audit.sh"}],
            "afterFileEdit": [{"command": "./hooks/format.sh"}],
        },
    },
    "copilot": {
        "version": 1,
        "hooks": {
            "preToolUse": [{"type": "command", "bash": "./scripts/check.sh", "timeoutSec": 10}],
            "sessionStart": [{"type": "command", "bash": "echo start"}],
        },
    },
}

# Each agent's pre-tool event and a reader of the first pre-tool entry's command.
PRE_EVENT = {
    "claude": "PreToolUse",
    "codex": "PreToolUse",
    "gemini": "BeforeTool",
    "cursor": "beforeShellExecution",
    "copilot": "preToolUse",
}
GROUPED = {"claude", "codex", "gemini"}
KEY = {"claude": "command", "codex": "command", "gemini": "command", "cursor": "command", "copilot": "bash"}


def commands(doc: dict[str, Any], agent: str, event: str) -> list[str]:
    """Every command of ``event`` in ``doc``, in order."""
    entries = doc.get("hooks", {}).get(event, [])
    if agent in GROUPED:
        entries = [handler for group in entries for handler in group["hooks"]]
    return [entry[KEY[agent]] for entry in entries]


def text(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".bak-*"))


# --- where ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("agent", AGENTS)
def test_settings_path(agent: str, scope: str, home: Path, project: Path, env: dict[str, str]) -> None:
    path = inst.settings_path(agent, scope, str(project), env)
    assert path == str(expected_path(agent, scope, home, project))


def test_codex_and_copilot_homes_move_with_their_variables(tmp_path: Path, env: dict[str, str]) -> None:
    moved = {**env, "CODEX_HOME": str(tmp_path / "cx"), "COPILOT_HOME": str(tmp_path / "cp")}
    assert inst.settings_path("codex", "user", "/p", moved) == str(tmp_path / "cx" / "hooks.json")
    assert inst.settings_path("copilot", "user", "/p", moved) == str(
        tmp_path / "cp" / "hooks" / "policy-engine.json"
    )


def test_unknown_agent_scope_or_home_is_refused(project: Path, env: dict[str, str]) -> None:
    with pytest.raises(ValueError, match='unknown agent "vim"'):
        install("vim", "user", str(project), env)
    with pytest.raises(ValueError, match='unknown agent "vim"'):
        hook_command("vim")
    with pytest.raises(ValueError, match='unknown scope "global"'):
        install("claude", "global", str(project), env)
    with pytest.raises(ValueError, match="HOME is not set"):
        install("claude", "user", str(project), {})


# --- the command ----------------------------------------------------------------------------------


def test_executable_is_this_interpreter_on_the_client_module() -> None:
    argv = executable()
    client = str(Path(policy_engine.__file__).parent / "client.py")
    assert argv == [os.path.abspath(sys.executable), "-S", client]
    assert all(os.path.isabs(part) and os.path.isfile(part) for part in (argv[0], argv[-1]))


def test_hook_command_is_shell_quoted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    python = tmp_path / "my venv" / "bin" / "python"
    monkeypatch.setattr(sys, "executable", str(python))
    client = str(Path(policy_engine.__file__).parent / "client.py")
    command = hook_command("gemini")
    assert command.startswith(f"P='{python}'; C={shlex.quote(client)}; ")
    assert inst.read_command(command) == ("guarded", (str(python), "-S", client), "gemini")
    assert "hook --agent gemini" in command


def sh(command: str, stdin: str, env: dict[str, str]) -> Any:
    """``command`` run as the agents run a hook command: ``sh -c``."""
    import subprocess

    return subprocess.run(
        ["/bin/sh", "-c", command], input=stdin, text=True, capture_output=True, env=env, timeout=60
    )


def claude_call(cwd: Path, command: str) -> str:
    payload = {
        "session_id": "s",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "t",
    }
    return json.dumps(payload)


def hook_env(tmp_path: Path, path: str = "") -> dict[str, str]:
    return {
        "HOME": str(tmp_path),
        "POLICY_ENGINE_DAEMON": "0",
        "POLICY_ENGINE_MANAGED_CONFIG": "",
        "PATH": path or os.environ.get("PATH", ""),
    }


def test_the_installed_command_answers_a_hook(tmp_path: Path) -> None:
    result = sh(hook_command("claude"), claude_call(tmp_path, "ls"), hook_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
    denied = sh(hook_command("claude"), claude_call(tmp_path, "cat ~/.ssh/id_rsa"), hook_env(tmp_path))
    assert json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_the_project_command_runs_policy_from_path(tmp_path: Path) -> None:
    """What `install --project` writes names nothing of this machine: it finds `policy` on PATH."""
    command = hook_command("claude", "project")
    assert sys.executable not in command and str(Path(policy_engine.__file__).parent) not in command
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "policy").exists()
    result = sh(command, claude_call(tmp_path, "ls"), hook_env(tmp_path, f"{bin_dir}:/usr/bin:/bin"))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_command_whose_installation_is_gone_exits_2(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moved or deleted, the installation is not there to answer: every agent would run the tool
    on the shell's 127, so the command blocks (2) and says what to do."""
    gone = tmp_path / "gone"
    monkeypatch.setattr(inst, "executable", lambda: [str(gone / "bin" / "python"), str(gone / "client.py")])
    payload = json.dumps(agent_module(agent).sample("ls", str(tmp_path), "s"))
    result = sh(hook_command(agent), payload, hook_env(tmp_path))
    assert result.returncode == 2
    assert f"policy-engine is not installed at {gone / 'client.py'}" in result.stderr
    assert f"policy uninstall --agent {agent}" in result.stderr
    portable = sh(hook_command(agent, "project"), payload, hook_env(tmp_path, "/nonexistent"))
    assert portable.returncode == 2
    assert "no policy command on PATH" in portable.stderr
    assert agent_module(agent).INSTALL.project in portable.stderr


@pytest.mark.parametrize("status", [1, 3, 126, 127, 137])
def test_no_failure_of_the_hook_exits_other_than_2(
    status: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import error (exit 1, which Gemini CLI takes as "allow"), a crash, a kill: all block."""
    broken = tmp_path / "python"
    broken.write_text(f"#!/bin/sh\necho Traceback >&2\nexit {status}\n")
    broken.chmod(0o755)
    monkeypatch.setattr(inst, "executable", lambda: [str(broken), str(tmp_path / "python")])
    result = sh(hook_command("gemini"), "{}", hook_env(tmp_path))
    assert result.returncode == 2
    assert f"the hook failed (exit status {status})" in result.stderr


def test_an_import_error_in_the_installation_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client = tmp_path / "client.py"
    client.write_text("import policy_engine_that_is_not_there\n")
    monkeypatch.setattr(inst, "executable", lambda: [sys.executable, str(client)])
    result = sh(hook_command("gemini"), "{}", hook_env(tmp_path))
    assert result.returncode == 2
    assert "ModuleNotFoundError" in result.stderr and "exit status 1" in result.stderr


# --- install and uninstall --------------------------------------------------------------------------


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("agent", AGENTS)
def test_install_into_an_empty_directory(
    agent: str, scope: str, home: Path, project: Path, env: dict[str, str]
) -> None:
    path = expected_path(agent, scope, home, project)
    result = install(agent, scope, str(project), env)
    assert result[:3] == (str(path), True, None)
    assert path.read_text() == text(fresh_install(agent, scope))
    installed = path.read_bytes()

    again = install(agent, scope, str(project), env)
    assert again[:3] == (str(path), False, None)
    assert path.read_bytes() == installed

    removed = uninstall(agent, scope, str(project), env)
    assert removed.changed
    assert removed.backup is not None
    assert Path(removed.backup).read_bytes() == installed
    if agent == "copilot":
        assert not path.exists()  # the file was ours alone
    else:
        assert json.loads(path.read_text()) == ({"version": 1} if agent == "cursor" else {})
    assert uninstall(agent, scope, str(project), env).changed is False


@pytest.mark.parametrize("agent", AGENTS)
def test_install_merges_with_other_hooks_and_keys(
    agent: str, home: Path, project: Path, env: dict[str, str]
) -> None:
    path = expected_path(agent, "project", home, project)
    path.parent.mkdir(parents=True)
    original = text(OTHERS[agent])
    path.write_text(original)

    result = install(agent, "project", str(project), env)
    assert result.changed
    assert result.backup is not None
    assert Path(result.backup).read_text() == original
    doc = json.loads(path.read_text())
    assert list(doc) == list(OTHERS[agent])  # every key kept, in order
    for key, value in OTHERS[agent].items():
        if key != "hooks":
            assert doc[key] == value
    for event, entries in OTHERS[agent]["hooks"].items():
        ours = [hook_command(agent, "project")] if event in fresh_install(agent)["hooks"] else []
        assert commands(doc, agent, event) == commands(OTHERS[agent], agent, event) + ours
        assert doc["hooks"][event][: len(entries)] == entries
    for event in fresh_install(agent)["hooks"]:
        assert commands(doc, agent, event).count(hook_command(agent, "project")) == 1
    installed = path.read_bytes()

    assert install(agent, "project", str(project), env)[:3] == (str(path), False, None)
    assert path.read_bytes() == installed
    assert len(backups(path)) == 1

    removed = uninstall(agent, "project", str(project), env)
    assert removed.changed
    assert path.read_text() == original  # byte for byte
    assert removed.backup is not None
    assert Path(removed.backup).read_bytes() == installed
    assert len(backups(path)) == 2


@pytest.mark.parametrize("agent", AGENTS)
def test_uninstall_leaves_a_file_without_our_hook_alone(
    agent: str, home: Path, project: Path, env: dict[str, str]
) -> None:
    path = expected_path(agent, "user", home, project)
    assert uninstall(agent, "user", str(project), env)[:3] == (str(path), False, None)
    assert not path.exists()
    path.parent.mkdir(parents=True)
    original = json.dumps(OTHERS[agent])  # not indent 2: untouched all the same
    path.write_text(original)
    assert uninstall(agent, "user", str(project), env)[:3] == (str(path), False, None)
    assert path.read_text() == original
    assert backups(path) == []


def test_an_older_entry_of_ours_is_replaced_in_place(home: Path, project: Path, env: dict[str, str]) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    handlers = [
        {"type": "command", "command": "first.sh"},
        {"type": "command", "command": "/old/venv/bin/policy hook --agent claude", "timeout": 5},
        {"type": "command", "command": "other-tool hook --agent claude"},  # not ours
        {"type": "command", "command": "/usr/bin/python3 -m policy_engine hook --agent claude"},
    ]
    path.write_text(text({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]}}))

    assert install("claude", "user", str(project), env).changed
    doc = json.loads(path.read_text())
    kept = doc["hooks"]["PreToolUse"]
    assert kept == [
        {
            "matcher": "Bash",
            "hooks": [
                handlers[0],
                {"type": "command", "command": hook_command("claude"), "timeout": 5},
                handlers[2],
            ],
        }
    ]
    assert commands(doc, "claude", "PostToolUse") == [hook_command("claude")]

    assert uninstall("claude", "user", str(project), env).changed
    doc = json.loads(path.read_text())
    assert doc == {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handlers[0], handlers[2]]}]}}


def test_a_group_of_ours_alone_goes_with_it(home: Path, project: Path, env: dict[str, str]) -> None:
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir()
    stale = {"matcher": "*", "hooks": [{"type": "command", "command": "/gone/policy hook --agent gemini"}]}
    other = {"matcher": "read_file", "hooks": [{"type": "command", "command": "audit"}]}
    path.write_text(text({"hooks": {"BeforeTool": [stale, other], "AfterTool": []}}))
    assert uninstall("gemini", "user", str(project), env).changed
    assert json.loads(path.read_text()) == {"hooks": {"BeforeTool": [other], "AfterTool": []}}


@pytest.mark.parametrize("content", ["[1, 2]", '"settings"', "{not json", "null"])
@pytest.mark.parametrize("agent", AGENTS)
def test_a_settings_file_that_is_not_a_json_object_is_refused_and_untouched(
    agent: str, content: str, home: Path, project: Path, env: dict[str, str]
) -> None:
    path = expected_path(agent, "project", home, project)
    path.parent.mkdir(parents=True)
    path.write_text(content)
    for action in (install, uninstall):
        with pytest.raises(ValueError, match="left untouched"):
            action(agent, "project", str(project), env)
    assert path.read_text() == content
    assert backups(path) == []


def test_a_file_that_is_not_utf8_is_refused(home: Path, project: Path, env: dict[str, str]) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(b'{"model": "\xff"}')
    with pytest.raises(ValueError, match="not UTF-8"):
        install("claude", "user", str(project), env)
    assert path.read_bytes() == b'{"model": "\xff"}'


def test_hooks_of_the_wrong_type_are_refused(home: Path, project: Path, env: dict[str, str]) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    for doc in ({"hooks": []}, {"hooks": {"PreToolUse": {"matcher": "*"}}}):
        path.write_text(json.dumps(doc))
        with pytest.raises(ValueError, match="left untouched"):
            install("claude", "user", str(project), env)
        assert json.loads(path.read_text()) == doc


def test_an_empty_file_is_an_empty_object(home: Path, project: Path, env: dict[str, str]) -> None:
    path = home / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_text("")
    result = install("cursor", "user", str(project), env)
    assert result.changed
    assert result.backup is not None
    assert Path(result.backup).read_text() == ""
    assert json.loads(path.read_text()) == fresh_install("cursor")


def test_mode_is_kept_for_the_file_and_its_backup(home: Path, project: Path, env: dict[str, str]) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"env": {"ANTHROPIC_API_KEY": "secret"}}\n')
    path.chmod(0o600)
    result = install("claude", "user", str(project), env)
    assert result.backup is not None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(result.backup).stat().st_mode) == 0o600


def test_a_symlinked_settings_file_stays_a_link(
    tmp_path: Path, home: Path, project: Path, env: dict[str, str]
) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text('{"model": "opus"}\n')
    link = home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    result = install("claude", "user", str(project), env)
    assert link.is_symlink()
    assert json.loads(real.read_text())["model"] == "opus"
    assert commands(json.loads(real.read_text()), "claude", "PreToolUse") == [hook_command("claude")]
    assert result.backup is not None
    assert Path(result.backup).read_text() == '{"model": "opus"}\n'


# --- doctor ---------------------------------------------------------------------------------------


class FakeHook:
    """An injected ``run``: records each call and answers by the command in the payload."""

    def __init__(self, harmless: tuple[int, str, str], dangerous: tuple[int, str, str]) -> None:
        self.harmless = harmless
        self.dangerous = dangerous
        self.calls: list[tuple[list[str], dict[str, Any]]] = []

    def __call__(self, argv: list[str], stdin: str) -> tuple[int, str, str]:
        payload = json.loads(stdin)
        self.calls.append((argv, payload))
        return self.dangerous if "rm -rf /" in stdin else self.harmless


ALLOW = {
    "claude": {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}},
    "codex": {},
    "gemini": {"decision": "allow"},
    "cursor": {"permission": "allow"},
    "copilot": {"permissionDecision": "allow"},
}
DENY = {
    "claude": {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}},
    "codex": {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}},
    "gemini": {"decision": "deny", "reason": "no"},
    "cursor": {"permission": "deny"},
    "copilot": {"permissionDecision": "deny", "permissionDecisionReason": "no"},
}


def shell_command(agent: str, payload: dict[str, Any]) -> str:
    """The command a sample payload asks to run, read in the agent's own shape."""
    if agent == "cursor":
        return str(payload["command"])
    if agent == "copilot":
        return str(payload["toolArgs"]["command"])
    return str(payload["tool_input"]["command"])


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {check.name: check for check in checks}


@pytest.mark.parametrize("agent", AGENTS)
def test_doctor_on_a_good_installation(agent: str, project: Path, env: dict[str, str]) -> None:
    install(agent, "user", str(project), env)
    hook = FakeHook((0, json.dumps(ALLOW[agent]), ""), (2, "", "[policy-engine] Denied: rm -rf /"))
    every = doctor([agent], "user", str(project), env, run=hook)
    # The sandbox's own checks come last, for every agent at once (test_sandbox.py).
    checks = [
        check for check in every if check.name.startswith(f"{agent}: ") and not check.name.endswith("sandbox")
    ]
    assert [check.name for check in every[len(checks) :]][:1] == ["sandbox"]
    assert [check for check in every if not check.ok] == []
    assert all(check.fix is None for check in checks)
    names = [check.name for check in checks]
    assert names[0] == f"{agent}: settings file"
    for event in fresh_install(agent)["hooks"]:
        assert f"{agent}: {event} hook" in names
    assert names[-3:] == [
        f"{agent}: harmless call (ls) allowed",
        f"{agent}: destructive call (rm -rf /) blocked",
        f"{agent}: version",
    ]
    if agent == "codex":  # no codex on this PATH: the record in config.toml is read
        assert by_name(checks)["codex: hook trusted"].detail.startswith("trusted in ")

    # The command the settings file holds, run as the agent runs it.
    assert [argv for argv, _ in hook.calls] == [["/bin/sh", "-c", hook_command(agent)]] * 2
    for (_, payload), command in zip(hook.calls, ("ls", "rm -rf /"), strict=True):
        assert shell_command(agent, payload) == command
        assert payload["cwd"] == str(project)
        assert payload.get("session_id") or payload.get("sessionId")
    if agent in ("claude", "codex"):
        assert hook.calls[0][1]["hook_event_name"] == "PreToolUse"
        assert hook.calls[0][1]["tool_name"] == "Bash"
    if agent == "gemini":
        assert hook.calls[0][1]["tool_name"] == "run_shell_command"


@pytest.mark.parametrize("agent", AGENTS)
def test_doctor_accepts_a_deny_in_the_agents_shape(agent: str, project: Path, env: dict[str, str]) -> None:
    hook = FakeHook((0, json.dumps(ALLOW[agent]), ""), (0, json.dumps(DENY[agent]), ""))
    checks = by_name(doctor([agent], "project", str(project), env, run=hook))
    assert checks[f"{agent}: destructive call (rm -rf /) blocked"].ok
    assert checks[f"{agent}: harmless call (ls) allowed"].ok


@pytest.mark.parametrize("agent", AGENTS)
def test_doctor_on_a_missing_installation(agent: str, project: Path, env: dict[str, str]) -> None:
    hook = FakeHook((0, "{}", ""), (2, "", "blocked"))
    checks = doctor([agent], "project", str(project), env, run=hook)
    failing = [check for check in checks if not check.ok]
    assert [check.name for check in failing] == [f"{agent}: settings file"]
    assert "does not exist" in failing[0].detail
    assert failing[0].fix == f"run `policy install --agent {agent} --project`"


@pytest.mark.parametrize("agent", AGENTS)
def test_doctor_reports_bad_answers(agent: str, project: Path, env: dict[str, str]) -> None:
    install(agent, "user", str(project), env)
    crash = FakeHook((1, "", "Traceback: boom"), (0, json.dumps(ALLOW[agent]), ""))
    checks = by_name(doctor([agent], "user", str(project), env, run=crash))
    harmless = checks[f"{agent}: harmless call (ls) allowed"]
    assert not harmless.ok
    assert "exit status 1" in harmless.detail
    assert "boom" in harmless.detail
    assert harmless.fix is not None
    assert f"policy hook --agent {agent}" in harmless.fix
    dangerous = checks[f"{agent}: destructive call (rm -rf /) blocked"]
    assert not dangerous.ok
    assert dangerous.fix is not None
    assert "rm -rf /" in dangerous.fix

    not_json = FakeHook((0, "allowed", ""), (1, "", "error"))
    checks = by_name(doctor([agent], "user", str(project), env, run=not_json))
    assert "no JSON object" in checks[f"{agent}: harmless call (ls) allowed"].detail
    assert not checks[f"{agent}: destructive call (rm -rf /) blocked"].ok

    too_strict = FakeHook((0, json.dumps(DENY[agent]), ""), (2, "", "blocked"))
    harmless = by_name(doctor([agent], "user", str(project), env, run=too_strict))[
        f"{agent}: harmless call (ls) allowed"
    ]
    assert not harmless.ok
    assert "denies" in harmless.detail


def test_doctor_reports_an_entry_whose_executable_is_gone(
    home: Path, project: Path, env: dict[str, str]
) -> None:
    path = home / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_text(
        text(
            {
                "version": 1,
                "hooks": {"beforeShellExecution": [{"command": "/gone/bin/policy hook --agent cursor"}]},
            }
        )
    )
    checks = by_name(doctor(["cursor"], "user", str(project), env, run=FakeHook((0, "{}", ""), (2, "", ""))))
    shell = checks["cursor: beforeShellExecution hook"]
    assert not shell.ok
    assert "/gone/bin/policy does not exist" in shell.detail
    assert shell.fix == "run `policy install --agent cursor --user`"
    assert not checks["cursor: beforeReadFile hook"].ok
    assert checks["cursor: settings file"].ok


def test_doctor_reports_an_invalid_settings_file(home: Path, project: Path, env: dict[str, str]) -> None:
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text("{\n  // a comment\n}\n")
    checks = doctor(["gemini"], "user", str(project), env, run=FakeHook((0, "{}", ""), (2, "", "")))
    first = checks[0]
    assert (first.name, first.ok) == ("gemini: settings file", False)
    assert "not valid JSON" in first.detail
    assert first.fix is not None
    assert str(path) in first.fix
    assert path.read_text() == "{\n  // a comment\n}\n"


@pytest.mark.parametrize(
    ("agent", "switch"),
    [
        ("claude", {"disableAllHooks": True}),
        ("copilot", {"disableAllHooks": True}),
        ("gemini", {"hooksConfig": {"enabled": False}}),
    ],
)
def test_doctor_reports_hooks_switched_off(
    agent: str, switch: dict[str, Any], project: Path, env: dict[str, str]
) -> None:
    path = Path(install(agent, "user", str(project), env).path)
    path.write_text(text({**json.loads(path.read_text()), **switch}))
    check = by_name(doctor([agent], "user", str(project), env, run=FakeHook((0, "{}", ""), (2, "", ""))))[
        f"{agent}: hooks enabled"
    ]
    assert not check.ok
    assert check.fix is not None
    assert str(path) in check.fix


def test_doctor_reads_codex_feature_switch(home: Path, project: Path, env: dict[str, str]) -> None:
    install("codex", "user", str(project), env)
    (home / ".codex" / "config.toml").write_text('model = "o3"\n[features]\nhooks = false\n')
    check = by_name(doctor(["codex"], "user", str(project), env, run=FakeHook((0, "{}", ""), (2, "", ""))))[
        "codex: hooks enabled"
    ]
    assert not check.ok
    assert check.fix is not None
    assert "config.toml" in check.fix


def test_default_runner_runs_a_process_in_the_project(project: Path, env: dict[str, str]) -> None:
    run = inst._subprocess_runner(str(project), env)
    echo = [sys.executable, "-c", "import os, sys; print(os.getcwd()); print(sys.stdin.read())"]
    status, stdout, _ = run(echo, "payload")
    assert status == 0
    assert stdout.split() == [os.path.realpath(project), "payload"]
    assert run([str(project / "missing")], "")[0] == 127


# --- doctor: stale commands, versions, Codex's trust ----------------------------------------------


def test_doctor_reports_an_older_command_without_the_guard(
    home: Path, project: Path, env: dict[str, str]
) -> None:
    """An older release wrote `PYTHON CLIENT hook --agent NAME`: the tool runs when that is gone."""
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    python, client = executable()[0], executable()[-1]
    bare = shlex.join([python, client, "hook", "--agent", "claude"])
    group = [{"matcher": "*", "hooks": [{"type": "command", "command": bare}]}]
    path.write_text(text({"hooks": {"PreToolUse": group, "PostToolUse": group}}))
    checks = by_name(doctor(["claude"], "user", str(project), env, run=FakeHook((0, "{}", ""), (2, "", ""))))
    entry = checks["claude: PreToolUse hook"]
    assert not entry.ok and "older form" in entry.detail
    assert entry.fix == "run `policy install --agent claude --user`"
    install("claude", "user", str(project), env)  # replaced in place by the guarded command
    assert commands(json.loads(path.read_text()), "claude", "PreToolUse") == [hook_command("claude")]


def test_a_guarded_command_of_the_previous_release_is_still_ours(
    home: Path, project: Path, env: dict[str, str]
) -> None:
    """The previous release's guarded command ran the client with site (no -S): read as ours, it
    passes doctor with a note, answers as the new one does, and a reinstall replaces it."""
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    older = hook_command("claude").replace('"$P" -S "$C"', '"$P" "$C"')
    assert inst.read_command(older) == ("guarded", (executable()[0], executable()[-1]), "claude")
    group = [{"matcher": "*", "hooks": [{"type": "command", "command": older}]}]
    path.write_text(text({"hooks": {"PreToolUse": group, "PostToolUse": group}}))
    checks = by_name(doctor(["claude"], "user", str(project), env, run=FakeHook((0, "{}", ""), (2, "", ""))))
    entry = checks["claude: PreToolUse hook"]
    assert entry.ok and "an older release's command, slower" in entry.detail
    payload = json.dumps(shell("claude", str(project), "rm -rf ~"))
    for command in (older, hook_command("claude")):
        result = sh(command, payload, {**env, "POLICY_ENGINE_DAEMON": "0"})
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    install("claude", "user", str(project), env)  # replaced in place by this release's command
    assert commands(json.loads(path.read_text()), "claude", "PreToolUse") == [hook_command("claude")]


def test_doctor_on_a_project_file(home: Path, project: Path, env: dict[str, str], tmp_path: Path) -> None:
    """A project's command runs `policy` from PATH: doctor says whether PATH has one."""
    install("gemini", "project", str(project), env)
    hook = FakeHook((0, json.dumps(ALLOW["gemini"]), ""), (2, "", "blocked"))
    without = by_name(doctor(["gemini"], "project", str(project), {**env, "PATH": str(tmp_path)}, run=hook))
    assert not without["gemini: BeforeTool hook"].ok
    assert "PATH has none" in without["gemini: BeforeTool hook"].detail
    with_policy = {**env, "PATH": str(Path(sys.executable).parent)}
    found = by_name(doctor(["gemini"], "project", str(project), with_policy, run=hook))
    assert found["gemini: BeforeTool hook"].ok
    assert [argv for argv, _ in hook.calls][-1] == ["/bin/sh", "-c", hook_command("gemini", "project")]


def test_doctor_warns_of_this_machine_s_paths_in_a_project_file(
    home: Path, project: Path, env: dict[str, str]
) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    group = [{"matcher": "*", "hooks": [{"type": "command", "command": hook_command("claude")}]}]
    path.write_text(text({"hooks": {"PreToolUse": group, "PostToolUse": group}}))
    check = by_name(
        doctor(["claude"], "project", str(project), env, run=FakeHook((0, "{}", ""), (2, "", "")))
    )["claude: PreToolUse hook"]
    assert check.ok and check.warning and "this machine's paths" in check.detail


@pytest.mark.parametrize(
    ("said", "warning", "detail"),
    [
        ("2.1.197 (Claude Code)", False, "Claude Code 2.1.197 (verified with 2.1.197)"),
        ("2.0.1 (Claude Code)", False, "Claude Code 2.0.1 (verified with 2.1.197)"),
        ("2.2.0 (Claude Code)", True, "Claude Code 2.2.0 is newer than 2.1.197"),
        ("something else", True, "--version said something else"),
    ],
)
def test_doctor_compares_the_agent_s_version_with_the_verified_one(
    said: str, warning: bool, detail: str, project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text("#!/bin/sh\n")
    (bin_dir / "claude").chmod(0o755)

    def run(argv: list[str], stdin: str) -> tuple[int, str, str]:
        return (0, said, "") if argv[-1] == "--version" else (2, "", "")

    check = by_name(doctor(["claude"], "user", str(project), {**env, "PATH": str(bin_dir)}, run=run))[
        "claude: version"
    ]
    assert check.ok and check.warning is warning
    assert detail in check.detail


def test_doctor_without_the_agent_says_what_it_was_verified_with(project: Path, env: dict[str, str]) -> None:
    check = by_name(
        doctor(
            ["codex"],
            "user",
            str(project),
            {**env, "PATH": "/nonexistent"},
            run=FakeHook((0, "{}", ""), (2, "", "")),
        )
    )["codex: version"]
    assert check.ok and not check.warning and check.detail == "codex is not on PATH (verified with 0.171.0)"


def test_codex_hash_is_the_one_codex_computes() -> None:
    """Observed from Codex 0.171.0's own hooks/list (currentHash) for this handler."""
    from policy_engine.agents.codex_trust import hook_hash

    handler = {"type": "command", "command": "/bin/true x", "timeout": 30}
    assert (
        hook_hash("*", handler) == "sha256:53902cfac549236761718113c283e19a375102d5b1958e5208e080aa22b82b78"
    )


def test_codex_install_records_the_trust_codex_reads(home: Path, project: Path, env: dict[str, str]) -> None:
    """Without codex on PATH, install writes hooks.state.<key>.trusted_hash into config.toml,
    keeps what else is there, re-trusts a changed command, and doctor reads it back."""
    import tomllib

    from policy_engine.agents.codex_trust import hook_hash

    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o3"  # mine\n\n[features]\nweb_search = true\n')
    env = {**env, "PATH": "/nonexistent"}
    result = install("codex", "user", str(project), env)
    assert result.trouble is None and any("config.toml" in note for note in result.notes)
    hooks = home / ".codex" / "hooks.json"
    key = f"{hooks}:pre_tool_use:0:0"
    handler = json.loads(hooks.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    data = tomllib.loads(config.read_text())
    assert data["hooks"]["state"][key]["trusted_hash"] == hook_hash("*", handler)
    assert config.read_text().startswith('model = "o3"  # mine\n\n[features]\nweb_search = true\n')
    hook = FakeHook((0, "{}", ""), (2, "", ""))
    assert by_name(doctor(["codex"], "user", str(project), env, run=hook))["codex: hook trusted"].ok

    # The command changes (another installation): Codex would skip it until trusted again.
    changed = hooks.read_text().replace("any more", "anymore")
    hooks.write_text(changed)
    stale = by_name(doctor(["codex"], "user", str(project), env, run=hook))["codex: hook trusted"]
    assert not stale.ok and "a record for another content" in stale.detail
    install("codex", "user", str(project), env)
    handler = json.loads(hooks.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    assert tomllib.loads(config.read_text())["hooks"]["state"][key]["trusted_hash"] == hook_hash("*", handler)
    assert config.read_text().count("[hooks.state.") == 1


def test_codex_trust_that_cannot_be_written_is_said(home: Path, project: Path, env: dict[str, str]) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('[hooks]\nstate = { other = { trusted_hash = "x" } }\n')  # an inline table
    result = install("codex", "user", str(project), {**env, "PATH": "/nonexistent"})
    assert result.trouble is not None and "nothing is guarded" in result.trouble
    assert config.read_text() == '[hooks]\nstate = { other = { trusted_hash = "x" } }\n'


# --- pi: our extension in pi's extensions directory -----------------------------------------------

PI_SOURCE = Path(policy_engine.__file__).resolve().parent.parent / "integrations" / "pi" / "index.ts"


@pytest.fixture
def pi_source(tmp_path: Path) -> Path:
    """The extension as a checkout has it (a copy: this test must not depend on where it runs)."""
    path = tmp_path / "integrations" / "pi" / "index.ts"
    path.parent.mkdir(parents=True)
    path.write_text(
        "/**\n * policy-engine for pi: every tool call the agent makes is judged\n */\nexport {};\n"
    )
    return path


def test_pi_install_copies_the_extension(
    home: Path, project: Path, env: dict[str, str], pi_source: Path
) -> None:
    from policy_engine.hook import extension

    copy = home / ".pi" / "agent" / "extensions" / "policy-engine.ts"
    result = extension.install("user", str(project), env, str(pi_source))
    assert (result.path, result.changed, result.backup) == (str(copy), True, None)
    assert copy.read_bytes() == pi_source.read_bytes()
    again = extension.install("user", str(project), env, str(pi_source))
    assert (again.changed, again.backup) == (False, None)
    # Another release's copy is replaced, after a backup pi does not load (not a .ts name).
    copy.write_text("/**\n * policy-engine for pi: an older release\n */\n")
    newer = extension.install("user", str(project), env, str(pi_source))
    assert newer.changed and newer.backup is not None
    assert Path(newer.backup).read_text().endswith("an older release\n */\n")
    assert not newer.backup.endswith(".ts")
    assert copy.read_bytes() == pi_source.read_bytes()
    # $PI_CODING_AGENT_DIR moves it; --project puts it in the project's .pi/extensions.
    moved = extension.install(
        "user", str(project), {**env, "PI_CODING_AGENT_DIR": str(home / "pi")}, str(pi_source)
    )
    assert moved.path == str(home / "pi" / "extensions" / "policy-engine.ts")
    shared = extension.install("project", str(project), env, str(pi_source))
    assert shared.path == str(project / ".pi" / "extensions" / "policy-engine.ts")


def test_pi_install_leaves_a_file_that_is_not_ours(
    home: Path, project: Path, env: dict[str, str], pi_source: Path
) -> None:
    from policy_engine.hook import extension

    copy = home / ".pi" / "agent" / "extensions" / "policy-engine.ts"
    copy.parent.mkdir(parents=True)
    copy.write_text("export default function mine() {}\n")
    with pytest.raises(ValueError, match="is not policy-engine's pi extension; it was left untouched"):
        extension.install("user", str(project), env, str(pi_source))
    assert copy.read_text() == "export default function mine() {}\n"
    assert extension.uninstall("user", str(project), env).changed is False
    assert copy.exists()


def test_pi_linked_directory_counts_and_no_second_copy_is_made(
    home: Path, project: Path, env: dict[str, str], pi_source: Path
) -> None:
    """The README's other way, a link to integrations/pi: pi would judge every call twice beside a copy."""
    from policy_engine.hook import extension

    extensions = home / ".pi" / "agent" / "extensions"
    extensions.mkdir(parents=True)
    link = extensions / "policy-engine"
    link.symlink_to(pi_source.parent)
    result = extension.install("user", str(project), env, str(pi_source))
    assert (result.path, result.changed) == (str(link), False)
    assert sorted(p.name for p in extensions.iterdir()) == ["policy-engine"]
    removed = extension.uninstall("user", str(project), env)
    assert (removed.path, removed.changed) == (str(link), True)
    assert not link.exists() and pi_source.exists()  # the link went, never what it points to


def test_pi_without_the_extension_says_how_and_changes_nothing(
    home: Path, project: Path, env: dict[str, str]
) -> None:
    from policy_engine.hook import extension

    result = extension.install("user", str(project), env, None)
    target = home / ".pi" / "agent" / "extensions" / "policy-engine.ts"
    assert (result.path, result.changed) == (str(target), False)
    assert "not part of this installation" in result.manual[0]
    assert result.manual[1] == f"then: mkdir -p {target.parent} && cp integrations/pi/index.ts {target}"
    assert not (home / ".pi").exists()


def test_pi_uninstall_removes_the_copy(
    home: Path, project: Path, env: dict[str, str], pi_source: Path
) -> None:
    from policy_engine.hook import extension

    extension.install("user", str(project), env, str(pi_source))
    removed = extension.uninstall("user", str(project), env)
    assert removed.changed and not Path(removed.path).exists()
    assert extension.uninstall("user", str(project), env).changed is False


def test_doctor_runs_pi_s_engine_as_its_extension_does(
    home: Path, project: Path, env: dict[str, str], pi_source: Path, tmp_path: Path
) -> None:
    from policy_engine.hook import extension

    engine = tmp_path / "bin" / "policy"
    engine.parent.mkdir()
    engine.write_text("#!/bin/sh\n")
    engine.chmod(0o755)
    env = {**env, "POLICY_ENGINE_BIN": str(engine), "PATH": "/nonexistent"}
    hook = FakeHook((0, '{"action": "allow"}', ""), (0, '{"action": "deny", "reason": "no"}', ""))
    missing = by_name(doctor(["pi"], "user", str(project), env, run=hook))
    assert not missing["pi: extension"].ok
    assert missing["pi: extension"].fix == "run `policy install --agent pi --user`"
    extension.install("user", str(project), env, str(pi_source))
    checks = by_name(doctor(["pi"], "user", str(project), env, run=hook))
    assert [name for name in checks if name.startswith("pi: ")] == [
        "pi: extension",
        "pi: engine",
        "pi: harmless call (ls) allowed",
        "pi: destructive call (rm -rf /) blocked",
        "pi: version",
    ]
    assert all(check.ok for check in checks.values())
    assert checks["pi: engine"].detail == f"POLICY_ENGINE_BIN={engine}"
    # The extension's own request, to the program it runs, without a shell.
    (argv, payload), _ = hook.calls[-2:]
    assert argv == [str(engine), "hook", "--agent", "pi"]
    assert (
        payload["tool"] == "bash" and payload["input"] == {"command": "ls"} and payload["cwd"] == str(project)
    )
    denied = FakeHook((0, '{"action": "deny"}', ""), (0, '{"action": "allow"}', ""))
    wrong = by_name(doctor(["pi"], "user", str(project), env, run=denied))
    assert (
        not wrong["pi: harmless call (ls) allowed"].ok
        and not wrong["pi: destructive call (rm -rf /) blocked"].ok
    )
    # Neither $POLICY_ENGINE_BIN nor policy on PATH: the extension would block every call.
    bare = {key: value for key, value in env.items() if key != "POLICY_ENGINE_BIN"}
    lost = by_name(doctor(["pi"], "user", str(project), bare, run=hook))["pi: engine"]
    assert not lost.ok and "would block every call" in lost.detail and lost.fix


def test_this_installation_s_pi_extension_is_found_as_ours() -> None:
    """A checkout's integrations/pi, or the copy an installed package ships (pyproject's package-dir):
    either way, the repository's extension."""
    from policy_engine.hook import extension

    shipped = Path(policy_engine.__file__).resolve().parent / "pi_extension" / "index.ts"
    expected = shipped if shipped.exists() else PI_SOURCE
    assert extension.source() == str(expected)
    checkout = Path(__file__).resolve().parents[2] / "integrations" / "pi" / "index.ts"
    assert Path(str(extension.source())).read_bytes() == checkout.read_bytes()
