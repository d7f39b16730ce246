"""`policy serve` and the stdlib-only client: the same answers as in-process, policy edits picked up,
other versions and stale sockets falling back to in-process judging, user-only permissions."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import REPO, Sandbox
from payloads import codex

from policy_engine.hook.install import hook_command

POLICY = '{ "policies": { "p": { "defaultAction": "allow", "rules": [ { "action": "deny", "tool": "bash", "pattern": "%s" } ] } }, "defaultPolicy": "p" }'


def payload(cwd: Path, command: str) -> str:
    return json.dumps(
        {
            "session_id": "s1",
            "cwd": str(cwd),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "t1",
        }
    )


def wait_for(path: Path, present: bool = True, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while path.exists() != present:
        assert time.monotonic() < deadline, f"{path} {'never appeared' if present else 'stayed'}"
        time.sleep(0.05)


@pytest.fixture
def daemon(sandbox: Sandbox) -> Iterator[Path]:
    """A running `policy serve` for the sandbox; its socket path."""
    sandbox.write(sandbox.user_config, POLICY % "rm *")
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(sandbox.root / "state")
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "policy_engine", "serve", "--idle", "120"],
        env=sandbox.env,
        cwd=str(REPO),
    )
    path = sandbox.root / "state" / "daemon.sock"
    try:
        wait_for(path)
        yield path
    finally:
        process.terminate()
        process.wait(timeout=20)


def hook(
    sandbox: Sandbox, text: str, *, daemon: bool, importtime: bool = False, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The hook as `policy install` writes it into the agents' settings, run as they run it (in
    ``cwd``: an agent runs its hooks in its working directory)."""
    command = hook_command("claude")
    if importtime:
        command = command.replace('"$P" -S "$C"', '"$P" -S -Ximporttime "$C"')
    argv = ["/bin/sh", "-c", command]
    env = {**sandbox.env, "POLICY_ENGINE_DAEMON": "1" if daemon else "0"}
    return subprocess.run(argv, input=text, capture_output=True, text=True, env=env, timeout=60, cwd=cwd)


def test_the_daemon_answers_as_in_process_judging_does(sandbox: Sandbox, daemon: Path) -> None:
    project = sandbox.project("repo")
    for command in ("ls", "rm -rf build"):
        served = hook(sandbox, payload(project, command), daemon=True, importtime=True)
        direct = hook(sandbox, payload(project, command), daemon=False)
        assert (served.returncode, served.stdout) == (direct.returncode, direct.stdout)
        # Answered over the socket: the engine was never imported by the hook's process.
        imported = {
            line.split("|")[-1].strip() for line in served.stderr.splitlines() if "import time" in line
        }
        assert "policy_engine.version" in imported and "policy_engine.engine" not in imported
        assert "typing" not in imported and "json" not in imported
        # The client's code is imported (from its cached bytecode), not compiled as the script is.
        assert "policy_engine.hook.client" in imported
    decision = json.loads(direct.stdout)["hookSpecificOutput"]["permissionDecision"]
    assert decision == "deny"


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_confined_command_from_the_daemon_keeps_the_caller_s_secrets_out(
    sandbox: Sandbox, daemon: Path
) -> None:
    """The daemon gets the names of the caller's credential variables, never their values, and the
    sandbox it plans does not pass them in: the same confined command as in-process."""
    sandbox.write(
        sandbox.user_config,
        '{ "policies": { "p": { "defaultAction": "ask", "rules": [ { "action": "allow", "tool": "bash", '
        '"pattern": "pytest*", "sandbox": true } ] } }, "locations": { "$cwd": "p" } }',
    )
    project = sandbox.project("repo")
    sandbox.env["GITHUB_TOKEN"] = "ghp_not_for_the_daemon"
    served = hook(sandbox, payload(project, "pytest -q"), daemon=True)
    direct = hook(sandbox, payload(project, "pytest -q"), daemon=False)
    assert served.stdout == direct.stdout
    command = json.loads(served.stdout)["hookSpecificOutput"]["updatedInput"]["command"]
    assert "--unsetenv GITHUB_TOKEN" in command and "ghp_" not in command


def test_a_policy_edit_takes_effect_on_the_next_call(sandbox: Sandbox, daemon: Path) -> None:
    project = sandbox.project("repo")
    first = hook(sandbox, payload(project, "curl https://x"), daemon=True)
    assert json.loads(first.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
    sandbox.write(sandbox.user_config, POLICY % "curl *")
    second = hook(sandbox, payload(project, "curl https://x"), daemon=True)
    assert json.loads(second.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_the_socket_is_the_users_alone(sandbox: Sandbox, daemon: Path) -> None:
    assert stat.S_IMODE(daemon.stat().st_mode) == 0o600
    assert stat.S_IMODE(daemon.parent.stat().st_mode) == 0o700


def test_another_version_is_refused_and_judged_in_process(
    sandbox: Sandbox, daemon: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policy_engine import version
    from policy_engine.hook import client

    text = payload(sandbox.project("repo"), "ls")
    assert client.ask_daemon("claude", text, sandbox.env, 10) is not None
    monkeypatch.setattr(version, "__version__", "0.0.0-another")
    assert client.ask_daemon("claude", text, sandbox.env, 10) is None
    wait_for(daemon, present=False)  # the old daemon left, for the new version's to start


def test_a_stale_socket_falls_back_and_starts_a_daemon(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, POLICY % "rm *")
    state = sandbox.root / "state"
    state.mkdir(mode=0o700)
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(state)
    path = state / "daemon.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stale:
        stale.bind(str(path))  # bound, never listening: what a crashed daemon leaves behind
    project = sandbox.project("repo")
    try:
        result = hook(sandbox, payload(project, "rm -rf x"), daemon=True)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
        # The call started a daemon, which replaced the stale socket: the next call is served.
        deadline = time.monotonic() + 20
        from policy_engine.hook import client

        while client.ask_daemon("claude", payload(project, "ls"), sandbox.env, 5) is None:
            assert time.monotonic() < deadline, "no daemon was started"
            time.sleep(0.1)
    finally:
        stopped = sandbox.run("serve", "--stop")
        assert stopped.returncode == 0
    wait_for(path, present=False)


def test_a_policy_engine_directory_in_the_project_is_never_the_daemon(sandbox: Sandbox) -> None:
    """The daemon a hook call starts is our package, whatever the agent's working directory holds:
    a repository (or the agent) that puts a ``policy_engine`` package there does not get its code
    run as the engine that answers every later call."""
    sandbox.write(sandbox.user_config, POLICY % "rm *")
    state = sandbox.root / "state"
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(state)
    project = sandbox.project("repo")
    marker = sandbox.root / "planted-code-ran"
    planted = project / "policy_engine"
    planted.mkdir()
    (planted / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (planted / "__main__.py").write_text("")
    try:
        result = hook(sandbox, payload(project, "rm -rf x"), daemon=True, cwd=project)
        assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
        from policy_engine.hook import client

        deadline = time.monotonic() + 20
        while (reply := client.ask_daemon("claude", payload(project, "rm -rf y"), sandbox.env, 5)) is None:
            assert not marker.exists(), "the project's policy_engine package was imported"
            assert time.monotonic() < deadline, "no daemon was started"
            time.sleep(0.1)
        assert not isinstance(reply, str), reply
        assert json.loads(reply.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert not marker.exists()
    finally:
        sandbox.run("daemon", "stop")


def test_stop_and_idle(sandbox: Sandbox) -> None:
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(sandbox.root / "state")
    path = sandbox.root / "state" / "daemon.sock"
    idle = subprocess.Popen(
        [sys.executable, "-m", "policy_engine", "serve", "--idle", "0.5"], env=sandbox.env
    )
    assert idle.wait(timeout=30) == 0  # left by itself
    assert not path.exists()
    running = subprocess.Popen(
        [sys.executable, "-m", "policy_engine", "serve", "--idle", "120"], env=sandbox.env
    )
    wait_for(path)
    assert sandbox.run("serve", "--stop").stdout.strip() == "stopped"
    assert running.wait(timeout=30) == 0
    assert not path.exists()
    assert sandbox.run("serve", "--stop").stdout.strip() == "no daemon was running"


def test_a_second_daemon_leaves_the_first_alone(sandbox: Sandbox, daemon: Path) -> None:
    second = subprocess.run(
        [sys.executable, "-m", "policy_engine", "serve", "--idle", "5"], env=sandbox.env, timeout=30
    )
    assert second.returncode == 0
    assert os.path.exists(daemon)
    from policy_engine.hook import client

    assert client.ask_daemon("claude", payload(sandbox.project("repo"), "ls"), sandbox.env, 5) is not None


def test_a_stuck_daemon_costs_half_the_budget_at_most(sandbox: Sandbox) -> None:
    import threading

    sandbox.write(sandbox.user_config, POLICY % "rm *")
    state = sandbox.root / "state"
    state.mkdir(mode=0o700)
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(state)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(state / "daemon.sock"))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept_and_hang() -> None:  # a daemon that takes the call and never answers
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept_and_hang, daemon=True)
    thread.start()
    try:
        argv = ["/bin/sh", "-c", hook_command("claude")]
        env = {**sandbox.env, "POLICY_ENGINE_DAEMON": "1", "POLICY_ENGINE_HOOK_TIMEOUT": "4"}
        started = time.monotonic()
        result = subprocess.run(
            argv,
            input=payload(sandbox.project("repo"), "rm -rf x"),
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        elapsed = time.monotonic() - started
    finally:
        stop.set()
        thread.join()
        server.close()
        for connection in held:
            connection.close()
        subprocess.run(
            [sys.executable, "-m", "policy_engine", "serve", "--stop"], env=sandbox.env, timeout=30
        )
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert 2 <= elapsed < 4, elapsed  # waited half the budget for the daemon, then judged in-process


def test_an_engine_spells_its_directories_again_at_least_every_minute(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine remembers how its directories are spelled (symlinks resolved) for
    SPELLINGS_LIFETIME seconds; the daemon keeps it while the files are unchanged, and a working
    directory replaced by a symlink into a stricter location is then judged there."""
    from policy_engine import engine as engines
    from policy_engine.hook import daemon
    from policy_engine.model import ToolCall

    sandbox.write(
        sandbox.user_config,
        """
        {
          "policies": { "open": { "defaultAction": "allow" }, "vault": { "defaultAction": "deny" } },
          "locations": { "~/vault": "vault" },
          "defaultPolicy": "open",
        }
        """,
    )
    (sandbox.home / "vault").mkdir()
    link = sandbox.root / "work" / "link"
    link.mkdir(parents=True)
    server = daemon.Daemon(sandbox.env)
    call = ToolCall("bash", {"command": "echo hi"}, str(link))  # no path: judged where it runs
    first = server.engine(call, sandbox.env)
    assert str(first.evaluate(call).action) == "allow"
    assert server.engine(call, sandbox.env) is first  # kept while the files are unchanged
    link.rmdir()
    link.symlink_to(sandbox.home / "vault")
    assert str(first.evaluate(call).action) == "allow"  # within the minute
    monkeypatch.setattr(engines, "SPELLINGS_LIFETIME", 0.0)
    assert server.engine(call, sandbox.env) is first
    assert str(first.evaluate(call).action) == "deny"


BREAKER_POLICY = (
    '{ "policies": { "p": { "defaultAction": "allow", "rules": [ { "action": "deny", "tool": "bash", '
    '"pattern": "rm *" } ] } }, "defaultPolicy": "p", "agentTimeout": { "maxDenies": 5, "windowSeconds": 600 } }'
)


def test_a_lone_surrogate_is_judged_and_counted_once(sandbox: Sandbox, daemon: Path) -> None:
    """A payload holding a lone surrogate (a JSON escape, as an agent may send it) is answered by
    the daemon, which stays up: one decision logged per call, and the deny escalates to an ask at
    the 5th call of maxDenies 5, as docs/sessions-and-log.md says, not earlier (counted twice, it was the 3rd)."""
    sandbox.write(sandbox.user_config, BREAKER_POLICY)
    project = sandbox.project("repo")
    decisions = []
    for call in range(1, 7):
        text = json.dumps(
            {
                "session_id": "s-surrogate",
                "cwd": str(project),
                "hook_event_name": "PreToolUse",
                "permission_mode": "default",  # where Claude Code asks the person
                "tool_name": "Bash",
                "tool_input": {"command": "rm -rf x \ud800"},
                "tool_use_id": f"t{call}",
            }
        )
        assert "\\ud800" in text  # written as an escape: the payload itself is plain ASCII
        result = hook(sandbox, text, daemon=True)
        assert result.returncode == 0, result.stderr
        decisions.append(json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"])
    assert decisions == ["deny"] * 4 + ["ask"] * 2
    log = (daemon.parent / "decisions.jsonl").read_text().splitlines()
    assert len(log) == 6
    assert daemon.exists()  # the daemon is still there, and still answers
    from policy_engine.hook import client

    assert isinstance(client.ask_daemon("claude", payload(project, "ls"), sandbox.env, 10), client.Reply)


@pytest.mark.parametrize("value", ["abc", "nan", "inf", "-inf", "-1", "0", "601"])
@pytest.mark.parametrize("served", [True, False], ids=["daemon", "in-process"])
def test_a_bad_hook_timeout_is_named_and_the_call_still_judged(
    sandbox: Sandbox, daemon: Path, value: str, served: bool
) -> None:
    sandbox.env["POLICY_ENGINE_HOOK_TIMEOUT"] = value
    project = sandbox.project("repo")
    said = (
        f"policy-engine: POLICY_ENGINE_HOOK_TIMEOUT={value} is not a number of seconds "
        "(above 0, at most 600); using 20"
    )
    for command, decision in (("rm -rf x", "deny"), ("ls", "allow")):
        result = hook(sandbox, payload(project, command), daemon=served)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == decision
        assert said in result.stderr.splitlines()
    if served:  # and it was the daemon that answered
        imported = hook(sandbox, payload(project, "ls"), daemon=True, importtime=True).stderr
        assert "policy_engine.engine" not in imported


def test_a_good_hook_timeout_is_taken_silently(sandbox: Sandbox, daemon: Path) -> None:
    sandbox.env["POLICY_ENGINE_HOOK_TIMEOUT"] = "7.5"
    result = hook(sandbox, payload(sandbox.project("repo"), "rm -rf x"), daemon=True)
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "POLICY_ENGINE_HOOK_TIMEOUT" not in result.stderr


# --- policy daemon status | stop, and what a new daemon says ---------------------------------------


def test_daemon_status_and_stop(sandbox: Sandbox) -> None:
    from policy_engine.version import __version__

    state = sandbox.root / "state"
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(state)
    path = state / "daemon.sock"
    none = sandbox.run("daemon", "status")
    assert none.returncode == 1
    assert none.stdout.splitlines()[:3] == [
        f"no daemon is running (nothing answers on {path})",
        f"  socket:          {path}",
        f"  state directory: {state}",
    ]
    assert "POLICY_ENGINE_DAEMON is off here" in none.stdout  # as the sandbox sets it
    sandbox.write(sandbox.user_config, POLICY % "rm *")
    running = subprocess.Popen(
        [sys.executable, "-m", "policy_engine", "serve", "--idle", "120"], env=sandbox.env
    )
    try:
        wait_for(path)
        shown = sandbox.run("daemon", "status")
        assert shown.returncode == 0
        assert (
            shown.stdout.splitlines()[0]
            == f"a daemon is running (pid {running.pid}), policy-engine {__version__}"
        )
        assert "hook calls answered: 0;" in shown.stdout
        assert "leaves after 2 minutes without a call" in shown.stdout
        hook(sandbox, payload(sandbox.project("repo"), "ls"), daemon=True)
        assert "hook calls answered: 1, the last " in sandbox.run("daemon", "status").stdout
    finally:
        stopped = sandbox.run("daemon", "stop")
    assert (stopped.returncode, stopped.stdout) == (0, f"stopped the daemon (pid {running.pid})\n")
    assert running.wait(timeout=30) == 0
    assert not path.exists()  # gone when `stop` returns: what runs next finds no daemon
    assert sandbox.run("daemon", "status").returncode == 1
    again = sandbox.run("daemon", "stop")
    assert (again.returncode, again.stdout) == (0, "no daemon was running\n")


def test_asking_for_the_status_does_not_keep_the_daemon_up(sandbox: Sandbox) -> None:
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(sandbox.root / "state")
    path = sandbox.root / "state" / "daemon.sock"
    idle = subprocess.Popen([sys.executable, "-m", "policy_engine", "serve", "--idle", "2"], env=sandbox.env)
    wait_for(path)
    started = time.monotonic()
    while idle.poll() is None:  # a status request every few tenths of a second, more often than idle
        assert time.monotonic() - started < 30, "the status requests kept the daemon up"
        sandbox.run("daemon", "status")
    assert idle.returncode == 0
    assert not path.exists()


def started_line(pid: int, idle: str) -> str:
    return (
        f"policy-engine: started a background daemon (policy serve, pid {pid}) that answers hook calls "
        f"with the engine loaded; it exits after {idle} without a call. `policy daemon stop` stops it; "
        "POLICY_ENGINE_DAEMON=0 keeps hook calls from starting one."
    )


def test_the_hook_call_that_starts_a_daemon_leads_to_one_line_saying_so(sandbox: Sandbox) -> None:
    """The call that starts it is judged in-process; the daemon's first answer says, once, on
    stderr, that it runs and how to stop it; stdout is the answer alone, as without it."""
    sandbox.write(sandbox.user_config, POLICY % "rm *")
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(sandbox.root / "state")
    project = sandbox.project("repo")
    try:
        first = hook(sandbox, payload(project, "ls"), daemon=True)
        assert first.returncode == 0 and "background daemon" not in first.stderr
        wait_for(sandbox.root / "state" / "daemon.sock")
        shown = sandbox.run("daemon", "status", env={"POLICY_ENGINE_DAEMON": "1"})
        pid = int(shown.stdout.split("(pid ", 1)[1].split(")", 1)[0])
        answers = [hook(sandbox, payload(project, command), daemon=True) for command in ("ls", "rm -rf x")]
        assert answers[0].stderr.splitlines() == [started_line(pid, "30 minutes")]
        assert answers[1].stderr == ""
        direct = hook(sandbox, payload(project, "ls"), daemon=False)
        assert answers[0].stdout == direct.stdout  # exactly the answer: one JSON object
        assert json.loads(answers[1].stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    finally:
        sandbox.run("daemon", "stop")


def test_a_blocking_answer_does_not_carry_the_line(sandbox: Sandbox, daemon: Path) -> None:
    """Exit 2 puts stderr before the model as the reason: the line waits for the next answer."""
    project = sandbox.project("repo")
    command = hook_command("codex")
    env = {**sandbox.env, "POLICY_ENGINE_DAEMON": "1"}
    blocked = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(codex(str(project), "Bash", {"command": "rm -rf x"})),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert blocked.returncode == 2
    assert "background daemon" not in blocked.stderr
    assert "hook calls answered: 1," in sandbox.run("daemon", "status").stdout  # the daemon's answer
    allowed = hook(sandbox, payload(project, "ls"), daemon=True)
    (line,) = [line for line in allowed.stderr.splitlines() if "background daemon" in line]
    assert line.endswith(
        "it exits after 2 minutes without a call. `policy daemon stop` stops it; "
        "POLICY_ENGINE_DAEMON=0 keeps hook calls from starting one."
    )
