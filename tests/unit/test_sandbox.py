"""Sandboxed allows: a rule's "sandbox" lets its command run only confined. The hook of each agent
answers allow with the confined command; running that command (real bubblewrap) writes the project
and nothing else, hides protected paths and reaches no network; where no sandbox works, or the agent
cannot run a changed command, the rule asks. Also: the plan on its own, our wrapper recognised
when it comes back (and a forged one not), the macOS profile as text, and the settings' errors."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import Sandbox
from payloads import shell

from policy_engine import Engine, ToolCall
from policy_engine.analysis.shell.knowledge import knowledge
from policy_engine.config.compiled import Sandbox as SandboxSettings
from policy_engine.model import Action
from policy_engine.sandbox import seatbelt
from policy_engine.sandbox.backend import Backend, find
from policy_engine.sandbox.plan import Unconfinable, plan
from policy_engine.sandbox.wrap import wrapped

BACKEND = find(os.environ)
# CI installs bubblewrap and sets this: there the real sandbox must run, not be skipped.
REQUIRED = os.environ.get("POLICY_ENGINE_REQUIRE_SANDBOX") == "1"
needs_sandbox = pytest.mark.skipif(
    isinstance(BACKEND, str) and not REQUIRED, reason=f"no sandbox backend here: {BACKEND}"
)

# The project's test, written by the agent: everything it tries, and what it observed, as JSON.
ESCAPES = r"""
import json, os, pathlib, socket, sys
home = pathlib.Path(os.path.expanduser("~"))
port, outer_pid = int(sys.argv[1]), sys.argv[2]
tries = {
    "out": lambda: pathlib.Path("out.txt").write_text("made by the test"),
    "canary": lambda: os.remove(home / "canary"),
    "key": lambda: (home / ".ssh" / "id_rsa").read_text(),
    "env": lambda: pathlib.Path("sub/.env").read_text(),
    "bashrc": lambda: open(home / ".bashrc", "a").write("evil\n"),
    "hook": lambda: pathlib.Path(".git/hooks/pre-commit").write_text("evil"),
    "gitconfig": lambda: open(".git/config", "a").write("[core]\n\tfsmonitor = evil\n"),
    "claude": lambda: pathlib.Path(".claude/settings.json").write_text("{}"),
    "gemini": lambda: (pathlib.Path(".gemini").mkdir(), pathlib.Path(".gemini/settings.json").write_text("{}")),
    "dotdot": lambda: pathlib.Path("../escape.txt").write_text("x"),
    "symlink": lambda: open("rc-link", "a").write("evil\n"),
    "proc_root": lambda: open(f"/proc/self/root{home}/.bashrc", "a").write("evil\n"),
    "proc_environ": lambda: pathlib.Path(f"/proc/{outer_pid}/environ").read_bytes(),
    "network": lambda: socket.create_connection(("127.0.0.1", port), timeout=3).close(),
    "secret_env": lambda: os.environ["GITHUB_TOKEN"],
}
results = {}
for name, attempt in tries.items():
    try:
        value = attempt()
        results[name] = "did" if not isinstance(value, (str, bytes)) else f"did: {value[:40]!r}"
    except Exception as error:
        results[name] = f"blocked: {type(error).__name__}"
print(json.dumps(results))
"""


@pytest.fixture(params=["home-in-tmp", "home-outside-tmp"])
def machine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Sandbox]:
    """A fake machine; its home under /tmp (which the sandbox replaces) or, as on a real machine,
    outside it."""
    if request.param == "home-in-tmp":
        yield Sandbox(tmp_path)
        return
    root = Path.home() / ".cache" / "policy-engine-tests" / uuid.uuid4().hex
    root.mkdir(parents=True)
    try:
        yield Sandbox(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _project(machine: Sandbox) -> Path:
    """A git project in the fake home whose test tries every escape; a key, a canary, a .bashrc."""
    home = machine.home
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY DATA\n")
    (home / "canary").write_text("still here\n")
    (home / ".bashrc").write_text("# rc\n")
    project = home / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".claude").mkdir()
    (project / "sub").mkdir()
    (project / "sub" / ".env").write_text("API_KEY=hunter2\n")
    (project / "escapes.py").write_text(ESCAPES)
    (project / "rc-link").symlink_to(home / ".bashrc")
    (project / "Makefile").write_text("test:\n\tpython3 escapes.py $(PORT) $(PID)\n")
    return project


def _answer(machine: Sandbox, agent: str, project: Path, command: str, **env: str) -> dict[str, Any]:
    result = machine.run(
        "hook", "--agent", agent, stdin=json.dumps(shell(agent, str(project), command)), env=env
    )
    assert result.returncode == 0, result.stderr
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def _listening() -> tuple[socket.socket, int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    threading.Thread(target=lambda: server.accept(), daemon=True).start()
    return server, server.getsockname()[1]


@needs_sandbox
@pytest.mark.parametrize("command", ["make test PORT={port} PID={pid}", "python3 escapes.py {port} {pid}"])
def test_a_test_run_is_allowed_confined_and_every_escape_fails(machine: Sandbox, command: str) -> None:
    project = _project(machine)
    server, port = _listening()
    line = command.format(port=port, pid=os.getpid())
    # The hook runs in the agent's environment: what the command gets, and what it must not pass in.
    answer = _answer(machine, "claude", project, line, GITHUB_TOKEN="ghp_secret")["hookSpecificOutput"]
    assert answer["permissionDecision"] == "allow", answer
    updated = answer["updatedInput"]
    assert updated["description"] == "x", "the whole input goes back, with only the command changed"
    confined = updated["command"]
    assert confined != line and line in confined
    env = {**machine.env, "GITHUB_TOKEN": "ghp_secret"}
    done = subprocess.run(["bash", "-c", confined], cwd=project, env=env, capture_output=True, text=True)
    server.close()
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert results["out"] == "did" and (project / "out.txt").read_text() == "made by the test"
    assert (machine.home / "canary").read_text() == "still here\n"
    assert "PRIVATE KEY" not in done.stdout and "hunter2" not in done.stdout
    assert (machine.home / ".bashrc").read_text() == "# rc\n"
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert "fsmonitor" not in (project / ".git" / "config").read_text()
    assert not (project / ".claude" / "settings.json").exists()
    assert not (project / ".gemini").exists(), "the mount point made for it is removed after the run"
    assert not (machine.home / "escape.txt").exists()
    blocked = {name for name, outcome in results.items() if outcome.startswith("blocked")}
    assert blocked == set(results) - {"out"}, results


@needs_sandbox
def test_temporary_files_are_shared_and_their_sockets_hidden(sandbox: Sandbox) -> None:
    """A report written to /tmp is there for the next command; a service's socket in /tmp (tmux,
    X11, ssh-agent: they run commands for the user unconfined) cannot be reached."""
    project = sandbox.project("p")
    report = Path(f"/tmp/policy-engine-test-report-{uuid.uuid4().hex}.txt")
    service = Path(f"/tmp/policy-engine-test-service-{uuid.uuid4().hex}")
    service.mkdir()
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(service / "sock"))
    listening.listen()
    script = (
        "import socket, sys; open(sys.argv[1], 'w').write('report')\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "try:\n    s.connect(sys.argv[2]); print('reached')\nexcept OSError as e: print('refused', e)\n"
    )
    (project / "probe.py").write_text(script)
    try:
        line = f"python3 probe.py {report} {service / 'sock'}"
        confined = _answer(sandbox, "claude", project, line)["hookSpecificOutput"]["updatedInput"]["command"]
        done = subprocess.run(
            ["bash", "-c", confined], cwd=project, env=sandbox.env, capture_output=True, text=True
        )
        assert report.read_text() == "report", done.stderr
        assert "refused" in done.stdout and "reached" not in done.stdout
    finally:
        listening.close()
        shutil.rmtree(service, ignore_errors=True)
        report.unlink(missing_ok=True)


@needs_sandbox
def test_the_engine_s_own_state_in_a_temporary_directory_stays_read_only(sandbox: Sandbox) -> None:
    """/tmp is written, but the engine's state directory there (session allows, the decision log)
    is self-protected: confined code cannot allow itself the next call."""
    project = sandbox.project("p")
    state = Path(f"/tmp/policy-engine-test-state-{uuid.uuid4().hex}")
    state.mkdir()
    try:
        env = {"POLICY_ENGINE_STATE_DIR": str(state)}
        answer = _answer(sandbox, "claude", project, f"python3 probe.py {state}", **env)["hookSpecificOutput"]
        (project / "probe.py").write_text(
            "import sys, pathlib\n"
            "for target in (pathlib.Path(sys.argv[1]) / 'state.db', pathlib.Path(sys.argv[1] + '-free')):\n"
            "    try:\n        target.write_text('x'); print('wrote', target.name)\n"
            "    except OSError as e:\n        print('refused', target.name)\n"
        )
        done = subprocess.run(
            ["bash", "-c", answer["updatedInput"]["command"]],
            cwd=project,
            env={**sandbox.env, **env},
            capture_output=True,
            text=True,
        )
        assert "refused state.db" in done.stdout and f"wrote {state.name}-free" in done.stdout, (
            done.stdout + done.stderr
        )
        assert not (state / "state.db").exists() or (state / "state.db").read_text() != "x"
    finally:
        shutil.rmtree(state, ignore_errors=True)
        Path(f"{state}-free").unlink(missing_ok=True)


@needs_sandbox
def test_the_exit_status_survives_the_wrapper(machine: Sandbox) -> None:
    project = _project(machine)
    (project / "Makefile").write_text("test:\n\texit 3\n")
    confined = _answer(machine, "claude", project, "make test")["hookSpecificOutput"]["updatedInput"][
        "command"
    ]
    done = subprocess.run(
        ["bash", "-c", confined], cwd=project, env=machine.env, capture_output=True, text=True
    )
    assert done.returncode == 2, done.stderr  # make's own status for a failed recipe
    assert "Error 3" in done.stderr
    assert sorted(p.name for p in project.iterdir() if p.name.startswith(".")) == [".claude", ".git"]


@needs_sandbox
@pytest.mark.parametrize("agent", ["codex", "gemini", "copilot", "pi"])
def test_every_agent_that_can_change_a_command_gets_the_confined_one(sandbox: Sandbox, agent: str) -> None:
    project = sandbox.project("p")
    answer = _answer(sandbox, agent, project, "pytest -q")
    if agent == "codex":
        output = answer["hookSpecificOutput"]
        assert output["permissionDecision"] == "allow"
        command = output["updatedInput"]["command"]
    elif agent == "gemini":
        assert answer["decision"] == "allow"
        replaced = answer["hookSpecificOutput"]["tool_input"]
        assert replaced["description"] == "x"
        command = replaced["command"]
    elif agent == "copilot":
        assert answer["permissionDecision"] == "allow"
        command = answer["modifiedArgs"]["command"]
    else:
        assert answer["action"] == "allow"
        command = answer["command"]
    assert command.startswith(str(BACKEND.program if isinstance(BACKEND, Backend) else "bwrap"))
    assert " -c 'pytest -q'" in command


@needs_sandbox
@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "copilot", "pi"])
def test_a_nudge_or_log_elsewhere_in_the_line_still_runs_it_confined(sandbox: Sandbox, agent: str) -> None:
    """A nudge or a log lets the call run: a line with a command allowed only confined must still
    run confined, with the nudge's message kept."""
    sandbox.write(
        sandbox.user_config,
        """{"policies": {"project": {"defaultAction": "ask", "rules": [
            {"action": "allow", "tool": "bash", "pattern": "pytest*", "sandbox": true},
            {"action": "nudge", "tool": "bash", "pattern": "grep *", "message": "use rg"},
            {"action": "log", "tool": "bash", "pattern": "tee *"},
        ]}}}""",
    )
    project = sandbox.project("p")
    for line in ("pytest -q | grep FAIL", "pytest -q | tee log.txt"):
        answer = json.dumps(_answer(sandbox, agent, project, line))
        assert "bwrap" in answer and " -c " in answer, (line, answer)
        if "grep" in line and agent in ("claude", "codex", "copilot"):
            assert "use rg" in answer


def test_an_agent_whose_hook_cannot_change_a_command_is_asked(sandbox: Sandbox) -> None:
    project = sandbox.project("p")
    answer = _answer(sandbox, "cursor", project, "pytest -q")
    assert answer["permission"] == "ask"
    assert "cannot change the command" in answer["user_message"]


def test_without_a_backend_the_rule_asks_and_says_why(sandbox: Sandbox) -> None:
    project = sandbox.project("p")
    answer = _answer(sandbox, "claude", project, "npm test", POLICY_ENGINE_SANDBOX="0")["hookSpecificOutput"]
    assert answer["permissionDecision"] == "ask"
    assert "A rule allows it in a sandbox, but" in answer["permissionDecisionReason"]
    assert "POLICY_ENGINE_SANDBOX=0" in answer["permissionDecisionReason"]
    assert "updatedInput" not in answer


@needs_sandbox
def test_what_the_line_does_beside_the_task_is_judged_as_ever(sandbox: Sandbox) -> None:
    project = sandbox.project("p")
    engine = sandbox.engine(cwd=project)
    cases = {
        "make test && cat ~/.ssh/id_rsa": Action.DENY,
        "make test; rm -rf ~": Action.ASK,
        "pytest ~/.ssh/id_rsa": Action.DENY,
        "make clean": Action.ASK,
        "npm install left-pad": Action.ASK,
        "pytest -q | tail -5": Action.ALLOW,
    }
    for command, action in cases.items():
        decision = engine.evaluate(ToolCall("bash", {"command": command}, str(project)))
        assert decision.action is action or (action is Action.ASK and decision.action > action), command
        assert (decision.sandbox is not None) == (action is Action.ALLOW), command


@needs_sandbox
def test_code_given_on_the_command_line_of_a_task_runs_confined_too(machine: Sandbox) -> None:
    """make -E, a variable that runs $(shell ...): the task runs code the line names, and that code is
    as confined as the project's."""
    project = _project(machine)
    for line in (
        "make -E '$(shell rm -f ~/canary)' test PORT=1 PID=1",
        "make 'X=$(shell rm -f ~/canary)' -n test",
    ):
        answer = _answer(machine, "claude", project, line)["hookSpecificOutput"]
        assert answer["permissionDecision"] == "allow", answer
        subprocess.run(
            ["bash", "-c", answer["updatedInput"]["command"]],
            cwd=project,
            env=machine.env,
            capture_output=True,
        )
        assert (machine.home / "canary").read_text() == "still here\n", line


@needs_sandbox
def test_a_project_that_holds_the_home_directory_is_not_confined(sandbox: Sandbox) -> None:
    decision = sandbox.engine(cwd=sandbox.home).evaluate(
        ToolCall("bash", {"command": "make"}, str(sandbox.home))
    )
    assert decision.action is Action.ASK
    assert "is the home directory" in decision.reason


@needs_sandbox
def test_our_wrapper_coming_back_runs_as_it_is_and_a_forged_one_is_asked(sandbox: Sandbox) -> None:
    project = sandbox.project("p")
    engine = sandbox.engine(cwd=project)
    first = engine.evaluate(ToolCall("bash", {"command": "cargo test"}, str(project)))
    assert first.sandbox is not None and not first.sandbox.applied
    again = engine.evaluate(ToolCall("bash", {"command": first.sandbox.command}, str(project)))
    assert again.action is Action.ALLOW and again.sandbox is not None and again.sandbox.applied
    answer = _answer(sandbox, "claude", project, first.sandbox.command)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "allow" and "updatedInput" not in answer
    forged = [
        first.sandbox.command.replace(" --unshare-all", ""),  # the network and the PID namespace shared
        first.sandbox.command.replace("'cargo test'", "'cargo test; rm -rf ~'"),
        first.sandbox.command.replace(f"--bind {project} {project}", f"--bind {sandbox.home} {sandbox.home}"),
    ]
    for command in forged:
        decision = engine.evaluate(ToolCall("bash", {"command": command}, str(project)))
        assert decision.action >= Action.ASK, command
        assert decision.sandbox is None


@needs_sandbox
def test_every_wrapper_made_is_recognised_when_it_comes_back(sandbox: Sandbox) -> None:
    """The engine checks a wrapper it makes only by reading its script back (engine._recognised):
    judging it again would repeat this call's own judgement. Each one comes back allowed as it is."""
    project = sandbox.project("p")
    engine = sandbox.engine(cwd=project)
    lines = [
        "npm test",
        "make",
        "cargo test -- --nocapture",
        "pytest -k 'a and not b'",
        'make MSG="it\'s" check',
        "npm run build -- --out='dist dir'",
        "go test ./... && npm test",
    ]
    for line in lines:
        first = engine.evaluate(ToolCall("bash", {"command": line}, str(project)))
        assert first.action is Action.ALLOW and first.sandbox is not None, (line, first.reason)
        again = engine.evaluate(ToolCall("bash", {"command": first.sandbox.command}, str(project)))
        assert again.action is Action.ALLOW, (line, again.reason)
        assert again.sandbox == first.sandbox._replace(applied=True), line


@needs_sandbox
def test_a_wrapper_that_would_not_be_recognised_is_not_made(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should its script not read back, the wrapper would be judged as a command of its own when the
    agent sends it again: the rule asks instead, and says why."""
    from policy_engine.sandbox import wrap

    monkeypatch.setattr(wrap, "script_in", lambda command: None)
    project = sandbox.project("p")
    decision = sandbox.engine(cwd=project).evaluate(ToolCall("bash", {"command": "npm test"}, str(project)))
    assert decision.action is Action.ASK and decision.sandbox is None
    assert "did not pass its own check (it would not be recognised)" in decision.reason


def test_a_command_proven_to_only_read_needs_no_sandbox(sandbox: Sandbox) -> None:
    project = sandbox.project("p")
    engine = sandbox.engine(cwd=project)
    for command in ("tsc --version", "python3 -c 'import sys; print(sys.version)'"):
        decision = engine.evaluate(ToolCall("bash", {"command": command}, str(project)))
        assert decision.action is Action.ALLOW and decision.sandbox is None, decision.reason
        assert "no sandbox needed" in decision.reason


def test_doctor_says_whether_a_sandbox_runs_and_under_which_agent_it_cannot(sandbox: Sandbox) -> None:
    project = sandbox.project("p")
    off = sandbox.run(
        "doctor", "--agent", "cursor", "--cwd", str(project), env={"POLICY_ENGINE_SANDBOX": "0"}
    )
    assert "warn sandbox: sandboxes are turned off (POLICY_ENGINE_SANDBOX=0)" in off.stdout
    assert "warn cursor: sandbox: cursor's hook cannot change a command" in off.stdout
    if isinstance(BACKEND, Backend):
        on = sandbox.run("doctor", "--agent", "claude", "--cwd", str(project))
        assert f"ok   sandbox: bwrap ({BACKEND.program}) runs here" in on.stdout
        assert "claude: sandbox" not in on.stdout
    # Why there is none elsewhere (this machine has no sandbox-exec, and no backend for other systems).
    assert find({}, platform="darwin") == "/usr/bin/sandbox-exec is missing"
    assert find({}, platform="sunos5").startswith("no sandbox backend for sunos5")


def test_check_json_and_the_decision_log_show_the_sandbox(sandbox: Sandbox) -> None:
    project = sandbox.project("p")
    data = sandbox.check_json("--cwd", str(project), "pytest", env={"POLICY_ENGINE_SANDBOX": "0"})
    assert data["action"] == "ask" and "sandbox" not in data
    if isinstance(BACKEND, str):
        return
    data = sandbox.check_json("--cwd", str(project), "pytest")
    assert data["action"] == "allow"
    assert data["sandbox"]["backend"] == "bwrap" and data["sandbox"]["network"] is False
    assert data["sandbox"]["writable"] == [str(project)]
    assert " -c pytest" in data["sandbox"]["command"]
    text = sandbox.run("check", "--cwd", str(project), "--explain", "pytest").stdout
    assert "runs: " in text and "sandbox: bwrap, no network" in text and f"writes  {project}" in text
    sandbox.run("check", "--cwd", str(project), "--session", "s1", "pytest")
    log = sandbox.home / ".local" / "state" / "policy-engine" / "decisions.jsonl"
    record = json.loads(log.read_text().splitlines()[-1])
    assert record["sandbox"]["backend"] == "bwrap" and " -c pytest" in record["sandbox"]["command"]


# ---- the plan on its own -------------------------------------------------------------------------


def _plan(machine: Sandbox, project: Path, sandbox: SandboxSettings | None = None, **kwargs: Any) -> Any:
    engine = machine.engine(cwd=project)
    guards = tuple(g for judge in engine._judges for g in judge.placed(_context(engine, project)))
    return plan(
        sandbox or SandboxSettings(),
        guards,
        project=str(project),
        cwd=str(project),
        home=str(machine.home),
        env=machine.env | {"AWS_SECRET_ACCESS_KEY": "x"},
        secret=knowledge().secret_variable,
        **kwargs,
    )


def test_the_client_forwards_every_name_the_knowledge_calls_secret() -> None:
    """The hook client (standard library only) names credential variables to the daemon by the same
    words as the command knowledge's secretVariables, which decide what a sandbox leaves out."""
    from policy_engine.analysis.shell.knowledge import DATA
    from policy_engine.config.jsonc import parse
    from policy_engine.hook.wire import SECRET_WORDS, secret_name

    globs = parse(Path(DATA).read_text(encoding="utf-8"), DATA).data["secretVariables"]
    assert sorted(glob.strip("*") for glob in globs) == sorted(SECRET_WORDS)
    for name in ("OPENAI_API_KEY", "github_token", "SSH_PRIVATE", "DB_PASSWD", "X_AUTH"):
        assert secret_name(name) and knowledge().secret_variable(name), name


def _context(engine: Engine, project: Path) -> Any:
    from policy_engine.decide.judge import Context
    from policy_engine.decide.protect import Search
    from policy_engine.paths import spellings

    return Context(str(project), engine.home, str(project), spellings, Search())


def test_the_plan_keeps_protected_places_read_only_hidden_or_uncreated(sandbox: Sandbox) -> None:
    project = sandbox.project("p")
    (project / ".git").mkdir()
    (project / "deep" / "er").mkdir(parents=True)
    (project / "deep" / "er" / ".env.local").write_text("x")
    (project / ".env.example").write_text("NAME=")
    (sandbox.home / ".aws").mkdir()
    made = _plan(sandbox, project)
    assert made.writable == (str(project),)
    assert str(project / ".git") in made.read_only
    assert str(project / ".claude") in made.blocked and str(project / ".github") in made.blocked
    assert str(project / ".claude") in made.created
    assert str(project / "deep" / "er" / ".env.local") in made.hidden_files
    assert str(project / ".env.example") not in made.hidden_files
    assert str(sandbox.home / ".aws") in made.hidden_directories
    assert "AWS_SECRET_ACCESS_KEY" in made.unset and made.network is False
    assert _plan(sandbox, project, SandboxSettings(network=True)).network is True


def test_the_plan_refuses_what_it_cannot_hold(sandbox: Sandbox) -> None:
    with pytest.raises(Unconfinable, match="is the home directory"):
        _plan(sandbox, sandbox.home)
    with pytest.raises(Unconfinable, match="holds the home directory"):
        _plan(sandbox, sandbox.root)
    project = sandbox.project("big")
    for index in range(30):
        (project / f"f{index}").write_text("")
    with pytest.raises(Unconfinable, match="more than 20 entries"):
        _plan(sandbox, project, limit=20)


def test_the_plan_lists_again_only_the_directories_that_changed(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk of the project keeps each directory's listing while the directory is unchanged (its
    inode and times, looked at each time): a second plan lists nothing, and after a change only the
    directory that changed is listed, and what it holds now is hidden."""
    import time

    from policy_engine import trees
    from policy_engine.sandbox import plan as plans

    monkeypatch.setattr(trees, "RACY_NS", 50_000_000)  # "changed just before" is 50 ms here
    project = sandbox.project("kept")
    for name in ("a", "b/c", "d/e/f"):
        (project / name).mkdir(parents=True)
        (project / name / "x.txt").write_text("x")
    listed: list[str] = []
    real = plans._list

    def spy(directory: str, *args: Any) -> Any:
        listed.append(directory)
        return real(directory, *args)

    monkeypatch.setattr(plans, "_list", spy)
    time.sleep(0.06)
    first = _plan(sandbox, project)
    assert str(project / "d" / "e" / "f") in listed
    listed.clear()
    assert _plan(sandbox, project) == first and listed == []
    (project / "d" / "e" / ".env").write_text("SECRET=1")
    time.sleep(0.06)
    changed = _plan(sandbox, project)
    assert listed == [str(project / "d" / "e")]
    assert str(project / "d" / "e" / ".env") in changed.hidden_files
    listed.clear()
    # A directory changed just before the plan (here: within a minute) is listed, and not kept.
    monkeypatch.setattr(trees, "RACY_NS", 60_000_000_000)
    (project / "d" / "e" / ".env").unlink()
    (project / "a" / ".git").mkdir()
    assert str(project / "a" / ".git") in _plan(sandbox, project).read_only
    assert sorted(listed) == [str(project / "a"), str(project / "d" / "e")]
    listed.clear()
    _plan(sandbox, project)
    assert sorted(listed) == [str(project / "a"), str(project / "d" / "e")]


def test_the_listings_kept_are_bounded(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    from policy_engine import trees
    from policy_engine.sandbox import plan as plans

    monkeypatch.setattr(trees, "RACY_NS", 0)
    monkeypatch.setattr(plans, "LISTINGS", 5)
    monkeypatch.setattr(plans, "PROTECTION_SETS", 1)
    project = sandbox.project("many")
    for index in range(12):
        (project / f"d{index}").mkdir()
    plans._LISTED.clear()
    first = _plan(sandbox, project)
    assert 0 < sum(len(kept) for _, kept in plans._LISTED.values()) <= 5
    assert _plan(sandbox, project) == first
    plans._walk((str(project),), [], [], 100)  # another set of protections: the first one's dropped
    assert len(plans._LISTED) == 1


def test_the_macos_profile_says_the_same_as_text(sandbox: Sandbox) -> None:
    project = sandbox.project("p")
    (project / ".git").mkdir()
    made = _plan(sandbox, project)
    text = seatbelt.profile(made)
    lines = text.splitlines()
    assert lines[:3] == ["(version 1)", "(allow default)", "(deny network*)"]
    # Later rules win: every write denied, then the project and temporary directories allowed, then
    # the protected places in them denied again, and last the hidden ones unreadable.
    order = [
        next(i for i, line in enumerate(lines) if line.startswith(start))
        for start in (
            "(deny file-write*)",
            "(allow file-write*",
            "(deny file-write* (subpath",
            "(deny file-read*",
        )
    ]
    assert order == sorted(order)
    assert f'(subpath "{os.path.realpath(project)}")' in text
    assert f'(subpath "{os.path.realpath(project / ".git")}")' in text
    assert '(regex #"(^|/)\\.env[^/]*(/|$)")' in text
    assert "(deny network*)" not in seatbelt.profile(made._replace(network=True))
    command = wrapped(Backend("sandbox-exec", "/usr/bin/sandbox-exec"), made, "make test")
    assert command.startswith("/usr/bin/sandbox-exec -p ") and command.endswith("-c 'make test'")
    assert "-uAWS_SECRET_ACCESS_KEY" in command


# ---- the settings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (
            '{"action": "deny", "tool": "bash", "pattern": "x *", "sandbox": true}',
            "only applies to allow rules",
        ),
        ('{"action": "allow", "tool": "read", "sandbox": true}', "is not bash"),
        (
            '{"action": "allow", "tool": "bash", "pattern": "x", "sandbox": "offlne"}',
            'unknown sandbox "offlne"',
        ),
        (
            '{"action": "allow", "tool": "bash", "pattern": "x", "sandbox": {"write": ["rel"]}}',
            "not an absolute path",
        ),
        (
            '{"action": "allow", "tool": "bash", "pattern": "x", "sandbox": {"netwrk": true}}',
            'unknown key "netwrk"',
        ),
    ],
)
def test_a_sandbox_setting_that_cannot_apply_is_an_error_at_its_line(
    sandbox: Sandbox, rule: str, message: str
) -> None:
    policy = sandbox.write(
        "p.jsonc",
        f'{{"policies": {{"p": {{"defaultAction": "ask", "rules": [\n{rule}\n]}}}}, "defaultPolicy": "p"}}',
    )
    result = sandbox.run("lint", str(policy))
    assert result.returncode == 1
    assert f"{policy}:2:" in result.stdout and message in result.stdout, result.stdout


@needs_sandbox
def test_a_rule_of_ones_own_with_network_and_a_further_directory(sandbox: Sandbox) -> None:
    cache = sandbox.root / "shared-cache"
    cache.mkdir()
    project = sandbox.project(
        "p",
        f"""{{"policies": {{"p": {{"defaultAction": "ask", "rules": [
            {{"action": "allow", "tool": "bash", "pattern": "npm ci", "sandbox": {{"network": true, "write": ["{cache}"]}}}},
            {{"action": "allow", "tool": "bash", "pattern": "npm test", "sandbox": "network"}},
        ]}}}}, "locations": {{"$cwd": "p"}}}}""",
    )
    assert sandbox.run("trust", str(project)).returncode == 0
    engine = sandbox.engine(cwd=project)
    ci = engine.evaluate(ToolCall("bash", {"command": "npm ci"}, str(project)))
    assert ci.sandbox is not None, ci.reason
    assert ci.sandbox.plan.network and ci.sandbox.plan.writable == (str(project), str(cache))
    both = engine.evaluate(ToolCall("bash", {"command": "npm ci && npm test"}, str(project)))
    assert both.sandbox is not None and both.sandbox.plan.writable == (str(project),), "only what both allow"


def test_the_default_runs_project_tasks_confined_where_it_can(sandbox: Sandbox) -> None:
    project = sandbox.project("p")
    engine = sandbox.engine(cwd=project)
    for command in (
        "pytest",
        "python3 -m pytest -q",
        "npm test",
        "npm run build",
        "cargo test",
        "go test ./...",
        "make",
        "python repro.py",
    ):
        decision = engine.evaluate(ToolCall("bash", {"command": command}, str(project)))
        if isinstance(BACKEND, str):
            assert decision.action is Action.ASK, command
        else:
            assert decision.action is Action.ALLOW and decision.sandbox is not None, (
                command,
                decision.reason,
            )
    elsewhere = sandbox.project("other")
    # Run elsewhere (Gemini CLI's dir_path): not the project's code, and not the project's policy.
    outside = engine.evaluate(ToolCall("bash", {"command": "pytest"}, str(project), workdir=str(elsewhere)))
    assert outside.action is Action.ASK and outside.sandbox is None


if sys.platform != "linux":  # pragma: no cover - the suite runs on Linux
    pytestmark = pytest.mark.skip("the sandbox tests run on Linux")


def test_the_script_of_a_wrapper_is_read_back_from_any_quoting() -> None:
    """The engine recognises its own wrapper by reading the script after `-c` and wrapping it again
    (engine.py compares the two): reading must give back any script shlex.quote wrote, with or
    without the status suffix, and nothing for a line that goes on after the script."""
    import shlex

    from policy_engine.sandbox.wrap import STATUS, script_in

    suffix = f"; {STATUS}=$?; rmdir -- /a 2>/dev/null; (exit ${STATUS})"
    scripts = ["ls", "", "echo hi; ls", "it's", "bash -c 'ls' -c x", "a'b'c", "x\ny", "é", "--x"]
    for script in scripts:
        for end in ("", suffix):
            line = f"bwrap --bind '/a -c b' /x -- bash -c {shlex.quote(script)}{end}"
            assert script_in(line) == script, line
    assert script_in("bwrap -- bash -c 'x' && rm -rf /") is None
    assert script_in("bwrap -- bash -c 'x") is None
    assert script_in("bash -c 'x'") is None  # not one of our backends' programs
