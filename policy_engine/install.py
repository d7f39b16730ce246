"""Putting our pre-tool-call hook into an agent's settings file, taking it out, and checking it works.

``policy install --agent NAME`` merges one entry per hook event into the agent's own settings file
and keeps everything else there as it was; ``policy uninstall`` removes exactly those entries;
``policy doctor`` reads the file back and runs the hook on a harmless and on a destructive sample
call, as the agent would. The hook command is ``<this installation's policy> hook --agent NAME``.

Where each agent reads its hooks, and in what shape (checked against the agents' own documentation
and code; see the notes in ``_AGENTS``):

=========  ===================================  ==========================================  ========
agent      project file / user file             entry                                       timeout
=========  ===================================  ==========================================  ========
claude     .claude/settings.json, ~/.claude/…   {"matcher": "*", "hooks": [{"type":         seconds
                                                "command", "command", "timeout"}]}
codex      .codex/hooks.json, $CODEX_HOME/…     the same (a Claude-compatible contract)     seconds
gemini     .gemini/settings.json, ~/.gemini/…   the same, events BeforeTool and AfterTool   ms
cursor     .cursor/hooks.json, ~/.cursor/…      {"command"} in a {"version": 1} file        (none)
copilot    .github/hooks/policy-engine.json,    {"type": "command", "bash", "timeoutSec"}   seconds
           $COPILOT_HOME/hooks/policy-engine.json
=========  ===================================  ==========================================  ========
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import stat
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .record import Record

AGENTS: tuple[str, ...] = ("claude", "codex", "gemini", "cursor", "copilot")
SCOPES = ("user", "project")

# Longer than the hook's own bound (POLICY_ENGINE_HOOK_TIMEOUT, 20 s by default), so that it is
# the hook that times out and answers in the agent's protocol, not the agent that kills it.
HOOK_TIMEOUT = 30
# How long doctor waits for one sample run of the hook.
DOCTOR_TIMEOUT = 20
DOCTOR_SESSION = "policy-doctor"

Json = dict[str, Any]
Runner = Callable[[list[str], str], tuple[int, str, str]]


class InstallResult(Record):
    path: str  # the settings file
    changed: bool  # False when it was already installed / not installed (idempotent)
    backup: str | None  # the backup written before changing an existing file


class Check(Record):
    name: str
    ok: bool
    detail: str
    fix: str | None


# --- what each agent expects ----------------------------------------------------------------------


def _claude_payload(command: str, cwd: str) -> Json:
    return {
        "session_id": DOCTOR_SESSION,
        "transcript_path": "",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": f"{DOCTOR_SESSION}-1",
    }


def _codex_payload(command: str, cwd: str) -> Json:
    # The required fields of codex-rs/hooks/schema/generated/pre-tool-use.command.input.schema.json.
    return _claude_payload(command, cwd) | {"model": "", "transcript_path": None}


def _gemini_payload(command: str, cwd: str) -> Json:
    return {
        "session_id": DOCTOR_SESSION,
        "transcript_path": "",
        "cwd": cwd,
        "hook_event_name": "BeforeTool",
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "tool_name": "run_shell_command",
        "tool_input": {"command": command},
    }


def _cursor_payload(command: str, cwd: str) -> Json:
    # Cursor names its session conversation_id; session_id is there for a hook that looks for it.
    return {
        "conversation_id": DOCTOR_SESSION,
        "generation_id": f"{DOCTOR_SESSION}-1",
        "session_id": DOCTOR_SESSION,
        "hook_event_name": "beforeShellExecution",
        "workspace_roots": [cwd],
        "command": command,
        "cwd": cwd,
    }


def _copilot_payload(command: str, cwd: str) -> Json:
    # The CLI's camelCase preToolUse payload: toolArgs is a JSON string there.
    return {
        "sessionId": DOCTOR_SESSION,
        "session_id": DOCTOR_SESSION,
        "timestamp": int(time.time() * 1000),
        "cwd": cwd,
        "toolName": "bash",
        "toolArgs": json.dumps({"command": command}),
    }


def _claude_denies(answer: Json) -> bool:
    specific = answer.get("hookSpecificOutput")
    decision = specific.get("permissionDecision") if isinstance(specific, dict) else None
    return decision == "deny" or answer.get("decision") == "block"


def _disable_all_switch(doc: Json, path: str) -> str | None:
    # Claude Code and Copilot CLI both skip a file's hooks under "disableAllHooks": true.
    return f'remove "disableAllHooks" from {path}' if doc.get("disableAllHooks") is True else None


def _gemini_switch(doc: Json, path: str) -> str | None:
    # hooksConfig.enabled today; hooks.enabled in the experimental releases.
    for table in ("hooksConfig", "hooks"):
        value = doc.get(table)
        if isinstance(value, dict) and value.get("enabled") is False:
            return f'set "{table}": {{"enabled": true}} in {path}'
    return None


def _codex_switch(doc: Json, path: str) -> str | None:
    # Hooks are on by default since Codex 0.124; `[features] hooks = false` (or the older alias
    # codex_hooks) in the config.toml of the same layer turns them off.
    config = os.path.join(os.path.dirname(path), "config.toml")
    try:
        with open(config, "rb") as handle:
            features = tomllib.load(handle).get("features")
    except (OSError, tomllib.TOMLDecodeError):
        return None
    if isinstance(features, dict) and False in (features.get("hooks"), features.get("codex_hooks")):
        return f"remove `hooks = false` (or `codex_hooks = false`) from [features] in {config}"
    return None


@dataclass(frozen=True)
class _Agent:
    project: str  # the settings file, relative to the project directory
    home: str  # the agent's directory under HOME
    home_variable: str | None  # the environment variable that moves that directory
    user: str  # the settings file, relative to that directory
    events: tuple[str, ...]
    grouped: bool  # entries are {"matcher", "hooks": [handler]} groups, not bare handlers
    command_key: str  # the handler's field that holds the command line
    handler: Callable[[str], Json]
    version: int | None  # the "version" the file must declare
    own_file: bool  # the file is ours alone (removed when uninstall leaves it empty)
    payload: Callable[[str, str], Json]
    denies: Callable[[Json], bool]
    switch: Callable[[Json, str], str | None] | None  # how hooks are turned off, as a fix
    note: str


_AGENTS: dict[str, _Agent] = {
    # Claude Code (docs.claude.com/docs/claude-code/hooks): ~/.claude/settings.json and
    # .claude/settings.json; "matcher" "*" matches every tool; "timeout" is in seconds.
    "claude": _Agent(
        ".claude/settings.json",
        ".claude",
        None,
        "settings.json",
        ("PreToolUse", "PostToolUse"),
        True,
        "command",
        lambda command: {"type": "command", "command": command, "timeout": HOOK_TIMEOUT},
        None,
        False,
        _claude_payload,
        _claude_denies,
        _disable_all_switch,
        "",
    ),
    # Codex (developers.openai.com/codex/hooks; openai/codex codex-rs/hooks/src/engine/discovery.rs,
    # codex-rs/config/src/hook_config.rs): a hooks.json beside each config layer, so
    # $CODEX_HOME/hooks.json (default ~/.codex) and <repo>/.codex/hooks.json; the same groups as
    # Claude's, "timeout" in seconds, "*" matches every tool (events/common.rs). The JSON file
    # is preferred over a [hooks] table in config.toml: the standard library cannot write TOML,
    # and Codex warns when one layer has both. Only PreToolUse: our Codex adapter answers that.
    "codex": _Agent(
        ".codex/hooks.json",
        ".codex",
        "CODEX_HOME",
        "hooks.json",
        ("PreToolUse",),
        True,
        "command",
        lambda command: {"type": "command", "command": command, "timeout": HOOK_TIMEOUT},
        None,
        False,
        _codex_payload,
        _claude_denies,
        _codex_switch,
        "Codex runs a new or changed hook only once you trust it (/hooks), and project hooks only "
        "in a trusted project",
    ),
    # Gemini CLI (geminicli.com/docs/hooks/reference; google-gemini/gemini-cli
    # packages/core/src/hooks/hookPlanner.ts, hookRunner.ts): "hooks" in settings.json; "*"
    # matches every tool; "timeout" is in milliseconds (default 60000).
    "gemini": _Agent(
        ".gemini/settings.json",
        ".gemini",
        None,
        "settings.json",
        ("BeforeTool", "AfterTool"),
        True,
        "command",
        lambda command: {"type": "command", "command": command, "timeout": HOOK_TIMEOUT * 1000},
        None,
        False,
        _gemini_payload,
        lambda answer: answer.get("decision") in ("deny", "block"),
        _gemini_switch,
        "Gemini CLI runs project hooks only in a trusted folder",
    ),
    # Cursor (cursor.com/docs/agent/hooks): <project>/.cursor/hooks.json and ~/.cursor/hooks.json,
    # {"version": 1, "hooks": {event: [{"command"}]}}; the agent's events beforeShellExecution,
    # beforeReadFile and beforeMCPExecution answer {"permission": "allow" | "deny" | "ask"}.
    "cursor": _Agent(
        ".cursor/hooks.json",
        ".cursor",
        None,
        "hooks.json",
        ("beforeShellExecution", "beforeReadFile", "beforeMCPExecution"),
        False,
        "command",
        lambda command: {"command": command},
        1,
        False,
        _cursor_payload,
        lambda answer: answer.get("permission") == "deny",
        None,
        "Cursor reads hooks.json when it starts, and project hooks only in a trusted workspace",
    ),
    # GitHub Copilot CLI (docs.github.com/copilot/reference/hooks-reference): every *.json in
    # .github/hooks/ and in the user's hooks directory (~/.copilot/hooks, or $COPILOT_HOME/hooks);
    # {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash", "timeoutSec"}]}}. A file
    # of our own, so nobody else's hooks share it.
    "copilot": _Agent(
        ".github/hooks/policy-engine.json",
        ".copilot",
        "COPILOT_HOME",
        "hooks/policy-engine.json",
        ("preToolUse", "postToolUse"),
        False,
        "bash",
        lambda command: {"type": "command", "bash": command, "timeoutSec": HOOK_TIMEOUT},
        1,
        True,
        _copilot_payload,
        lambda answer: answer.get("permissionDecision") == "deny",
        _disable_all_switch,
        "",
    ),
}


def _agent(agent: str) -> _Agent:
    spec = _AGENTS.get(agent)
    if spec is None:
        raise ValueError(f'unknown agent "{agent}": use one of {", ".join(AGENTS)}')
    return spec


# --- the command ----------------------------------------------------------------------------------


def executable() -> list[str]:
    """argv prefix that runs this installation's ``policy`` for a hook: its interpreter on the
    client module's file, by absolute paths (never a PATH lookup, never a pyenv shim:
    sys.executable is the real interpreter). Not the ``policy`` console script: pip's wrapper
    imports ``re`` and ``python -m`` imports runpy, some 4 ms of the ~14 ms a hook answered by
    the daemon costs (see client.py)."""
    # Not resolved through symlinks: a venv's bin/python links out of the venv, and must stay in it.
    interpreter = os.path.abspath(sys.executable)
    return [interpreter, os.path.join(os.path.dirname(os.path.abspath(__file__)), "client.py")]


def hook_command(agent: str) -> str:
    """The command line the agent's settings file runs (quoted for a POSIX shell)."""
    _agent(agent)
    return shlex.join([*executable(), "hook", "--agent", agent])


def _is_policy(prefix: list[str]) -> bool:
    """Whether ``prefix`` runs some installation of policy (this one, an older one or a moved one)."""
    if prefix == executable():
        return True
    if len(prefix) == 1:
        return os.path.basename(prefix[0]) in ("policy", "policy.exe")
    if len(prefix) == 2:  # an interpreter on some installation's client module
        return prefix[1].endswith(os.path.join("policy_engine", "client.py"))
    return len(prefix) == 3 and prefix[1:] == ["-m", "policy_engine"]


def _hook_prefix(command: str, agent: str) -> list[str] | None:
    """The argv before ``hook --agent AGENT`` when ``command`` is our hook, else None."""
    if f" hook --agent {agent}" not in command:
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    tail = ["hook", "--agent", agent]
    for start in range(1, len(words) - 2):
        if words[start : start + 3] == tail and _is_policy(words[:start]):
            return words[:start]
    return None


def _is_ours(handler: Any, key: str, agent: str) -> bool:
    return (
        isinstance(handler, dict)
        and isinstance(handler.get(key), str)
        and _hook_prefix(handler[key], agent) is not None
    )


# --- where -----------------------------------------------------------------------------------------


def settings_path(agent: str, scope: str, cwd: str, env: Mapping[str, str]) -> str:
    """The settings file that holds ``agent``'s hooks for ``scope`` ("user" or "project")."""
    spec = _agent(agent)
    if scope == "project":
        return os.path.join(os.path.abspath(cwd), *spec.project.split("/"))
    if scope != "user":
        raise ValueError(f'unknown scope "{scope}": use "user" or "project"')
    return os.path.join(_agent_home(spec, env), *spec.user.split("/"))


def _agent_home(spec: _Agent, env: Mapping[str, str]) -> str:
    home = env.get("HOME", "")
    moved = env.get(spec.home_variable, "").strip() if spec.home_variable else ""
    if moved:
        return home + moved[1:] if moved.startswith("~") and home else moved
    if not home:
        raise ValueError("HOME is not set: cannot find the user's settings (use --project)")
    return os.path.join(home, spec.home)


# --- reading and writing ------------------------------------------------------------------------


def _load(path: str) -> tuple[bytes | None, Json]:
    """The file's bytes (None when it does not exist) and its JSON object; ValueError otherwise."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return None, {}
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text; it was left untouched") from None
    if not text.strip():
        return raw, {}  # an empty file holds no settings: treat it as {}
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{path} is not valid JSON ({error.msg} at line {error.lineno} column {error.colno}); "
            "it was left untouched"
        ) from None
    if not isinstance(doc, dict):
        raise ValueError(f"{path} holds a JSON {type(doc).__name__}, not an object; it was left untouched")
    return raw, doc


def _dump(doc: Json) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _commit(path: str, old: bytes | None, doc: Json | None) -> str | None:
    """Back up the current file, then replace it with ``doc`` (remove it when None): the backup."""
    # Through a symlink (a dotfiles repository), so that the link stays a link.
    target = os.path.realpath(path)
    backup = mode = None
    if old is not None:
        mode = stat.S_IMODE(os.stat(target).st_mode)
        backup = _backup(path, old, mode)
    if doc is None:
        os.unlink(path)
    else:
        _atomic_write(target, _dump(doc), mode)
    return backup


def _backup(path: str, content: bytes, mode: int) -> str:
    """``<path>.bak-<YYYYmmddHHMMSS>`` (with -2, -3… when that second already has one)."""
    stem = f"{path}.bak-{time.strftime('%Y%m%d%H%M%S')}"
    for attempt in range(1, 1000):
        name = stem if attempt == 1 else f"{stem}-{attempt}"
        try:
            # Exclusive and with the original's mode: never overwrite a backup, never widen access.
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
        return name
    raise OSError(f"cannot find a free backup name for {path}")


def _atomic_write(path: str, content: bytes, mode: int | None) -> None:
    """Write aside and rename, so that an agent starting now never reads half a settings file.

    ``mode`` is the replaced file's (kept whatever the umask: a 0600 file may hold API keys); a
    new file gets 0644 less the umask.
    """
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    temporary = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644 if mode is None else mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(content)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


# --- merging ------------------------------------------------------------------------------------


class _Rewrite:
    """One pass over an event's entries: our first entry keeps ``command`` (or goes), the rest go."""

    def __init__(self, key: str, agent: str, command: str | None) -> None:
        self.key = key
        self.agent = agent
        self.command = command
        self.found = False

    def handlers(self, handlers: list[Any]) -> list[Any]:
        kept: list[Any] = []
        for handler in handlers:
            if not _is_ours(handler, self.key, self.agent):
                kept.append(handler)
                continue
            if self.command is not None and not self.found:
                # Updated in place: an older path of ours is replaced, the user's tweaks stay.
                kept.append({**handler, self.key: self.command})
            self.found = True
        return kept

    def groups(self, groups: list[Any]) -> list[Any]:
        kept: list[Any] = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not inner:
                kept.append(group)
                continue
            handlers = self.handlers(inner)
            if handlers:  # a group we emptied goes with our entry
                kept.append(group if handlers == inner else {**group, "hooks": handlers})
        return kept


def _rewritten(doc: Json, spec: _Agent, agent: str, command: str | None, path: str) -> Json:
    """``doc`` with our entries set to ``command`` (added where missing), or removed when None."""
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError(f'{path}: "hooks" is not an object; the file was left untouched')
    hooks = dict(hooks)
    for event in spec.events:
        hooks.update(_rewritten_event(hooks, event, spec, agent, command, path))
        if event in hooks and not hooks[event] and doc.get("hooks", {}).get(event):
            del hooks[event]  # an event list we emptied goes too
    result = dict(doc)
    if spec.version is not None and command is not None and "version" not in result:
        result = {"version": spec.version, **result}
    if hooks or doc.get("hooks") == {}:
        result["hooks"] = hooks
    else:
        result.pop("hooks", None)  # a hooks object we emptied goes too
    return result


def _rewritten_event(
    hooks: Json, event: str, spec: _Agent, agent: str, command: str | None, path: str
) -> Json:
    entries = hooks.get(event, [])
    if not isinstance(entries, list):
        raise ValueError(f'{path}: "hooks.{event}" is not a list; the file was left untouched')
    rewrite = _Rewrite(spec.command_key, agent, command)
    kept = rewrite.groups(entries) if spec.grouped else rewrite.handlers(entries)
    if command is not None and not rewrite.found:
        handler = spec.handler(command)
        kept.append({"matcher": "*", "hooks": [handler]} if spec.grouped else handler)
    return {event: kept} if kept or event in hooks else {}


# --- install and uninstall --------------------------------------------------------------------------


def install(agent: str, scope: str, cwd: str, env: Mapping[str, str]) -> InstallResult:
    """Add our hook to ``agent``'s settings file for ``scope``, keeping everything else there."""
    spec = _agent(agent)
    path = settings_path(agent, scope, cwd, env)
    old, doc = _load(path)
    new = _rewritten(doc, spec, agent, hook_command(agent), path)
    if old is not None and new == doc:
        return InstallResult(path, False, None)
    return InstallResult(path, True, _commit(path, old, new))


def uninstall(agent: str, scope: str, cwd: str, env: Mapping[str, str]) -> InstallResult:
    """Remove our hook entries from ``agent``'s settings file for ``scope``, and nothing else."""
    spec = _agent(agent)
    path = settings_path(agent, scope, cwd, env)
    old, doc = _load(path)
    new = _rewritten(doc, spec, agent, None, path)
    if old is None or new == doc:
        return InstallResult(path, False, None)
    leftover = {key: value for key, value in new.items() if key != "version"}
    remove = spec.own_file and not leftover
    return InstallResult(path, True, _commit(path, old, None if remove else new))


# --- doctor -------------------------------------------------------------------------------------


def doctor(
    agents: Sequence[str],
    scope: str,
    cwd: str,
    env: Mapping[str, str],
    run: Runner | None = None,
) -> list[Check]:
    """Check each agent's installation end to end: the file, our entries, and the hook's answers.

    ``run(argv, stdin) -> (status, stdout, stderr)`` runs the hook (default: a subprocess in ``cwd``
    with a 20 s timeout).
    """
    runner = run or _subprocess_runner(cwd, env)
    checks: list[Check] = []
    for agent in agents:
        checks += _settings_checks(agent, scope, cwd, env)
        checks += _run_checks(agent, cwd, runner)
    return checks


def _subprocess_runner(cwd: str, env: Mapping[str, str]) -> Runner:
    environment = {**os.environ, **env}

    def run(argv: list[str], stdin: str) -> tuple[int, str, str]:
        try:
            done = subprocess.run(
                argv,
                input=stdin,
                capture_output=True,
                text=True,
                cwd=cwd,
                env=environment,
                timeout=DOCTOR_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return 124, "", f"no answer within {DOCTOR_TIMEOUT} s"
        except OSError as error:
            return 127, "", str(error)
        return done.returncode, done.stdout, done.stderr

    return run


def _settings_checks(agent: str, scope: str, cwd: str, env: Mapping[str, str]) -> list[Check]:
    spec = _agent(agent)
    path = settings_path(agent, scope, cwd, env)
    install_fix = f"run `policy install --agent {agent} --{scope}`"
    name = f"{agent}: settings file"
    try:
        old, doc = _load(path)
    except ValueError as error:
        fix = f"repair {path} (or move it away), then {install_fix}"
        return [Check(name, False, str(error), fix)]
    if old is None:
        return [Check(name, False, f"{path} does not exist", install_fix)]
    note = f" ({spec.note})" if spec.note else ""
    checks = [Check(name, True, f"{path} is a JSON object{note}", None)]
    checks += [_entry_check(agent, spec, doc, event, path, install_fix) for event in spec.events]
    if spec.switch is not None:
        checks.append(_switch_check(agent, spec.switch, doc, path))
    return checks


def _our_handlers(doc: Json, spec: _Agent, agent: str, event: str) -> list[Json]:
    hooks = doc.get("hooks")
    entries = hooks.get(event) if isinstance(hooks, dict) else None
    if not isinstance(entries, list):
        return []
    if spec.grouped:
        groups = [group.get("hooks") for group in entries if isinstance(group, dict)]
        entries = [handler for inner in groups if isinstance(inner, list) for handler in inner]
    return [handler for handler in entries if _is_ours(handler, spec.command_key, agent)]


def _entry_check(agent: str, spec: _Agent, doc: Json, event: str, path: str, fix: str) -> Check:
    name = f"{agent}: {event} hook"
    handlers = _our_handlers(doc, spec, agent, event)
    if not handlers:
        return Check(name, False, f"no policy hook for {event} in {path}", fix)
    command = handlers[0][spec.command_key]
    prefix = _hook_prefix(command, agent) or []
    program = prefix[0] if prefix else ""
    if not os.path.isabs(program):
        return Check(name, False, f"{command} depends on PATH to find {program}", fix)
    if not (os.path.isfile(program) and os.access(program, os.X_OK)):
        return Check(name, False, f"{command}: {program} does not exist or cannot run", fix)
    other = "" if prefix == executable() else f" (not this installation: {shlex.join(executable())})"
    return Check(name, True, f"{command}{other}", None)


def _switch_check(agent: str, switch: Callable[[Json, str], str | None], doc: Json, path: str) -> Check:
    name = f"{agent}: hooks enabled"
    fix = switch(doc, path)
    if fix is None:
        return Check(name, True, "hooks are not switched off", None)
    return Check(name, False, "the agent's hooks are switched off", fix)


def _run_checks(agent: str, cwd: str, run: Runner) -> list[Check]:
    spec = _agent(agent)
    argv = [*executable(), "hook", "--agent", agent]
    harmless = run(argv, json.dumps(spec.payload("ls", cwd)))
    dangerous = run(argv, json.dumps(spec.payload("rm -rf /", cwd)))
    return [_harmless_check(agent, spec, harmless), _dangerous_check(agent, spec, dangerous)]


def _answer(stdout: str) -> Json | None:
    """The hook's stdout as a JSON object, or None."""
    try:
        value = json.loads(stdout)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _harmless_check(agent: str, spec: _Agent, result: tuple[int, str, str]) -> Check:
    name = f"{agent}: harmless call (ls) allowed"
    status, stdout, stderr = result
    answer = _answer(stdout)
    see = f"run `policy hook --agent {agent}` with an {agent} payload on stdin to see the error"
    if status != 0:
        return Check(name, False, f"exit status {status}: {_excerpt(stderr or stdout)}", see)
    if answer is None:
        return Check(name, False, f"exit 0 but no JSON object on stdout: {_excerpt(stdout)}", see)
    if spec.denies(answer):
        fix = "see why with `policy check --explain ls`"
        return Check(name, False, f"the hook denies `ls`: {_excerpt(stdout)}", fix)
    return Check(name, True, f"exit 0, {_excerpt(stdout)}", None)


def _dangerous_check(agent: str, spec: _Agent, result: tuple[int, str, str]) -> Check:
    name = f"{agent}: destructive call (rm -rf /) blocked"
    status, stdout, stderr = result
    answer = _answer(stdout)
    if status == 2:
        return Check(name, True, f"exit 2: {_excerpt(stderr)}", None)
    if status == 0 and answer is not None and spec.denies(answer):
        return Check(name, True, f"exit 0, denied: {_excerpt(stdout)}", None)
    detail = f"exit status {status}, stdout {_excerpt(stdout)}, stderr {_excerpt(stderr)}"
    fix = "`rm -rf /` must be denied: see what the policy says with `policy check --explain 'rm -rf /'`"
    return Check(name, False, detail, fix)


def _excerpt(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    if not flat:
        return "(empty)"
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
