"""policy doctor as a person runs it: which agents it checks (installed here, or named), its exit
status, and its sample calls kept out of the decision log and the state store (doctor's pass)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import Sandbox
from payloads import claude

from policy_engine.hook import samplepass
from policy_engine.hook.extension import source
from policy_engine.hook.install import hook_command

OTHERS = ("codex", "gemini", "cursor", "copilot", "pi")


def only_claude(sandbox: Sandbox, *, program: bool = True) -> Path:
    """A machine where Claude Code alone is installed: a `claude` on a PATH that holds nothing else
    (else its `~/.claude` directory); the state directory, where the log is."""
    bin_dir = sandbox.root / "bin"
    bin_dir.mkdir()
    if program:
        claude = bin_dir / "claude"
        claude.write_text('#!/bin/sh\necho "2.1.197 (Claude Code)"\n')
        claude.chmod(0o755)
    else:
        (sandbox.home / ".claude").mkdir()
    sandbox.env["PATH"] = str(bin_dir)
    return sandbox.home / ".local" / "state" / "policy-engine"


def agent_call(sandbox: Sandbox, command: str, **env: str) -> subprocess.CompletedProcess[str]:
    """One call through the command `policy install` wrote, as Claude Code runs it."""
    return subprocess.run(
        ["/bin/sh", "-c", hook_command("claude")],
        input=json.dumps(claude(str(sandbox.project("repo")), "Bash", {"command": command})),
        capture_output=True,
        text=True,
        env={**sandbox.env, **env},
        timeout=60,
    )


def state_files(state: Path) -> dict[str, bytes]:
    """What the state directory holds that a call writes: the log, and the state store (its
    database and write-ahead log; not SQLite's shared-memory index, which readers change too)."""
    return {
        path.name: path.read_bytes()
        for path in sorted(state.iterdir())
        if path.name.startswith(("decisions.jsonl", "state.db")) and not path.name.endswith("-shm")
    }


@pytest.mark.parametrize("daemon", [False, True], ids=["in-process", "daemon"])
def test_doctor_with_only_claude_installed_exits_0_and_logs_nothing(sandbox: Sandbox, daemon: bool) -> None:
    state = only_claude(sandbox)
    sandbox.env["POLICY_ENGINE_DAEMON"] = "1" if daemon else "0"
    try:
        before = sandbox.run("doctor")
        assert before.returncode == 1
        assert "FAIL claude: settings file" in before.stdout
        assert "fix: run `policy install --agent claude --user`" in before.stdout
        # Its samples started the daemon, as an agent's first call would, and it says so.
        assert ("note: the sample calls started the background daemon (pid " in before.stdout) is daemon
        assert sandbox.run("install", "--agent", "claude").returncode == 0
        call = agent_call(sandbox, "cat ~/.ssh/id_rsa")  # an agent's call: logged
        assert json.loads(call.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
        logged = state_files(state)
        assert logged["decisions.jsonl"].count(b"\n") >= 1
        for _ in range(2):  # and again: nothing accumulates
            result = sandbox.run("doctor")
            assert result.returncode == 0, result.stdout + result.stderr
            lines = result.stdout.splitlines()
            assert lines[0] == f"checking claude: claude on PATH ({sandbox.root / 'bin' / 'claude'})"
            assert lines[1] == f"skipped, not installed: {', '.join(OTHERS)} (--agent NAME checks one anyway)"
            assert not any(line.startswith("FAIL") for line in lines)
            assert "ok   claude: destructive call (rm -rf /) blocked" in result.stdout
            assert "note:" not in result.stdout  # the daemon ran already
            # Its samples were judged, but neither logged nor counted.
            assert state_files(state) == logged
            assert not list(state.glob("doctor-pass-*"))  # the pass went with it
        if daemon:  # and it was the daemon that judged them
            answered = sandbox.run("daemon", "status").stdout.split("hook calls answered: ", 1)[1]
            assert int(answered.split(",", 1)[0]) >= 5
    finally:
        sandbox.run("daemon", "stop")


def test_the_agent_s_own_calls_are_logged_whatever_its_environment_says(sandbox: Sandbox) -> None:
    """Doctor's variable without doctor's file (a command that sets it for a nested agent) hides
    nothing: the pass is a secret named by a file only doctor can write."""
    state = only_claude(sandbox)
    assert sandbox.run("install", "--agent", "claude").returncode == 0
    agent_call(sandbox, "ls")
    first = state_files(state)["decisions.jsonl"]
    forged = agent_call(sandbox, "ls", POLICY_ENGINE_DOCTOR_PASS=os.urandom(32).hex())
    assert forged.returncode == 0
    assert state_files(state)["decisions.jsonl"].count(b"\n") == first.count(b"\n") + 1


def test_a_pass_counts_only_while_doctor_holds_it(sandbox: Sandbox) -> None:
    state = Path(sandbox.env["HOME"]) / "state"
    env = {**sandbox.env, "POLICY_ENGINE_STATE_DIR": str(state)}
    assert not samplepass.honoured(env)
    with samplepass.sample_pass(env) as passed:
        secret = passed[samplepass.VARIABLE]
        assert samplepass.honoured({**env, **passed})
        assert not samplepass.honoured({**env, samplepass.VARIABLE: os.urandom(32).hex()})
        other = secret[:-1] + ("1" if secret[-1] == "0" else "0")
        assert not samplepass.honoured({**env, samplepass.VARIABLE: other})
        (file,) = state.glob("doctor-pass-*")
        assert secret not in file.name  # the directory's listing does not give it away
        assert oct(file.stat().st_mode & 0o777) == "0o600"
        state.chmod(0o755)  # a state directory others can read is not trusted with a pass
        assert not samplepass.honoured({**env, **passed})
        state.chmod(0o700)
        old = time.time() - samplepass.LIFETIME - 1
        os.utime(file, (old, old))  # left behind by a doctor that was killed long ago
        assert not samplepass.honoured({**env, **passed})
    assert not list(state.glob("doctor-pass-*"))
    assert not samplepass.honoured({**env, **passed})


def test_a_state_directory_open_to_others_gets_no_pass(sandbox: Sandbox) -> None:
    state = Path(sandbox.env["HOME"]) / "open"
    state.mkdir(mode=0o777)
    state.chmod(0o777)
    env = {**sandbox.env, "POLICY_ENGINE_STATE_DIR": str(state)}
    with samplepass.sample_pass(env) as passed:
        assert passed == {}
    assert list(state.iterdir()) == []


def test_claude_s_directory_alone_counts_as_installed(sandbox: Sandbox) -> None:
    only_claude(sandbox, program=False)
    result = sandbox.run("doctor")
    assert result.stdout.splitlines()[0] == f"checking claude: {sandbox.home / '.claude'} exists"
    assert result.returncode == 1  # installed, not guarded: the settings file is missing
    assert "fix: run `policy install --agent claude --user`" in result.stdout


def test_no_agent_installed_is_said_and_fails(sandbox: Sandbox) -> None:
    empty = sandbox.root / "empty"
    empty.mkdir()
    result = sandbox.run("doctor", env={"PATH": str(empty)})
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        "FAIL agents: none of claude, codex, gemini, cursor-agent, copilot, pi is on PATH"
    )
    assert lines[1] == "     fix: name the agent to check: policy doctor --agent NAME"
    assert len(lines) == 2  # nothing else was checked


def test_a_named_agent_is_checked_though_not_installed(sandbox: Sandbox) -> None:
    empty = sandbox.root / "empty"
    empty.mkdir()
    result = sandbox.run("doctor", "--agent", "codex", env={"PATH": str(empty)})
    assert result.returncode == 1
    assert "skipped" not in result.stdout and "checking" not in result.stdout
    assert "FAIL codex: settings file" in result.stdout
    assert "ok   codex: version: codex is not on PATH" in result.stdout


@pytest.mark.skipif(source() is None, reason="this installation has no pi extension (a wheel)")
def test_pi_install_doctor_and_uninstall_agree(sandbox: Sandbox, tmp_path: Path) -> None:
    launcher = tmp_path / "policy"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} -P -m policy_engine "$@"\n')
    launcher.chmod(0o755)
    env = {"POLICY_ENGINE_BIN": str(launcher)}
    copy = Path(sandbox.env["PI_CODING_AGENT_DIR"]) / "extensions" / "policy-engine.ts"
    missing = sandbox.run("doctor", "--agent", "pi", env=env)
    assert missing.returncode == 1
    assert "FAIL pi: extension: no policy-engine extension in" in missing.stdout
    installed = sandbox.run("install", "--agent", "pi", env=env)
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.splitlines()[0] == f"installed in {copy}"
    assert copy.read_bytes() == Path(str(source())).read_bytes()
    checked = sandbox.run("doctor", "--agent", "pi", env=env)
    assert checked.returncode == 0, checked.stdout
    assert f"ok   pi: engine: POLICY_ENGINE_BIN={launcher}" in checked.stdout
    assert 'ok   pi: harmless call (ls) allowed: exit 0, {"action": "allow"' in checked.stdout
    assert "ok   pi: destructive call (rm -rf /) blocked" in checked.stdout
    removed = sandbox.run("uninstall", "--agent", "pi", env=env)
    assert (removed.returncode, removed.stdout.splitlines()[0]) == (0, f"removed from {copy}")
    assert not copy.exists()
    assert sandbox.run("doctor", "--agent", "pi", env=env).returncode == 1
