"""Putting our pre-tool-call hook into an agent's settings file, taking it out, and checking it works.

``policy install --agent NAME`` merges one entry per hook event into the agent's own settings file
and keeps everything else there as it was (what each agent reads, and where, is in its module:
``agents/<agent>.py`` ``INSTALL``); ``policy uninstall`` removes exactly those entries; ``policy
doctor`` reads the file back, runs the installed command on a harmless and on a destructive sample
call as the agent would, and compares the agent's installed version with the one it was verified
with. pi has no hook settings: its side is our extension, copied into pi's extensions directory
(``extension.py``).

Doctor checks the agents named, else those installed here (the agent's program on PATH, or its
own directory under HOME), and says which it skipped. Its sample calls carry doctor's pass
(``samplepass.py``): judged as any call, but neither logged nor counted.

The command fails closed: it is a POSIX-sh guard around this installation's interpreter and client
module by absolute path, so that when the installation is moved or deleted the agent gets exit 2
and a message ("policy-engine is not installed at ...") rather than exit 127, which every agent
takes as "run the tool"; any status of the hook other than 0 and 2 becomes 2 as well. ``install
--project`` writes a file a repository shares, so its command holds nothing of this machine: it
runs ``policy`` from PATH, behind the same guard.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..agents import AGENTS as AGENT_NAMES
from ..agents import agent_module
from ..agents.protocol import Check, Installation
from ..record import Record
from . import extension

# The agents whose hook is an entry in their settings file; then every agent install knows.
AGENTS: tuple[str, ...] = tuple(name for name in AGENT_NAMES if agent_module(name).INSTALL is not None)
INSTALLABLE: tuple[str, ...] = (*AGENTS, *extension.AGENTS)

# Longer than the hook's own bound (POLICY_ENGINE_HOOK_TIMEOUT, 20 s by default), so that it is
# the hook that times out and answers in the agent's protocol, not the agent that kills it.
HOOK_TIMEOUT = 30
# How long doctor waits for one sample run of the hook, and for an agent's --version.
DOCTOR_TIMEOUT = 20
DOCTOR_SESSION = "policy-doctor"
SHELL = "/bin/sh"  # what the agents run a hook command with (Gemini CLI: bash; both read POSIX sh)

Json = dict[str, Any]
Runner = Callable[[list[str], str], tuple[int, str, str]]


class InstallResult(Record):
    path: str  # the settings file
    changed: bool  # False when it was already installed / not installed (idempotent)
    backup: str | None  # the backup written before changing an existing file
    notes: tuple[str, ...] = ()  # what else was done (Codex's trust recorded)
    trouble: str | None = None  # what could not be done, and what the person must do instead
    manual: tuple[str, ...] = ()  # nothing was done: how to do it by hand (pi, its extension missing)


def _spec(agent: str) -> Installation:
    if agent not in AGENTS:
        raise ValueError(f'unknown agent "{agent}": use one of {", ".join(AGENTS)}')
    spec: Installation = agent_module(agent).INSTALL
    return spec


# --- the command ----------------------------------------------------------------------------------


NO_SITE = "-S"  # client.py loads site itself when a call needs more than the standard library


def executable() -> list[str]:
    """argv prefix that runs this installation's ``policy`` for a hook: its interpreter, without
    ``site`` (``-S``), on the package's ``client.py``, by absolute paths (never a PATH lookup, never
    a pyenv shim: sys.executable is the real interpreter). Not the ``policy`` console script: pip's
    wrapper imports ``re`` and ``python -m`` imports runpy, some 4 ms; ``site`` is 2–3 ms more, of
    the ~10 ms a hook answered by the daemon costs (see client.py)."""
    # Not resolved through symlinks: a venv's bin/python links out of the venv, and must stay in it.
    interpreter = os.path.abspath(sys.executable)
    return [
        interpreter,
        NO_SITE,
        os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "client.py"),
    ]


# The end of every command: a status other than 0 (the answer is on stdout) and 2 (blocked, the
# reason on stderr) would run the tool in every agent (Gemini CLI: 1 is "allow with a warning").
_TAIL = (
    '[ "$S" = 0 ] || [ "$S" = 2 ] || {{ echo "[policy-engine] Blocked: the hook failed '
    '(exit status $S); run policy doctor" >&2; S=2; }}; exit "$S"'
)  # a str.format template, as the two commands below
_GUARDED = (
    'P={python}; C={client}; if [ -x "$P" ] && [ -f "$C" ]; then "$P" -S "$C" hook --agent {agent}; S=$?; '
)
_PORTABLE = "if command -v policy >/dev/null 2>&1; then policy hook --agent {agent}; S=$?; "
_MISSING = "else {refusal}; S=2; fi; " + _TAIL
_GUARDED_FORM = re.compile(
    r'P=(?P<python>.+?); C=(?P<client>.+?); if \[ -x "\$P" \] && \[ -f "\$C" \]; then '
    r'"\$P" (?P<no_site>-S )?"\$C" hook --agent (?P<agent>[a-z]+);'  # without -S: an older release's
)
_PORTABLE_FORM = re.compile(
    r"if command -v policy >/dev/null 2>&1; then policy hook --agent (?P<agent>[a-z]+);"
)


def hook_command(agent: str, scope: str = "user") -> str:
    """The command line ``scope``'s settings file runs (POSIX sh): this installation by absolute
    path for the user's file, ``policy`` from PATH for a project's, each behind the guard, whose
    refusal is the agent's own (Copilot CLI shows the model a JSON reason, not stderr)."""
    spec = _spec(agent)
    if scope == "project":
        why = (
            "policy-engine is not installed (no policy command on PATH); install it, or remove its "
            f"hook from {spec.project}"
        )
        return _PORTABLE.format(agent=agent) + _MISSING.format(refusal=_refusal(agent, why))
    program = executable()
    python, client = program[0], program[-1]
    why = (
        f"policy-engine is not installed at {client} any more; reinstall it and run policy install "
        f"--agent {agent}, or remove this hook with policy uninstall --agent {agent}"
    )
    guard = _GUARDED.format(python=shlex.quote(python), client=shlex.quote(client), agent=agent)
    return guard + _MISSING.format(refusal=_refusal(agent, why))


def _refusal(agent: str, why: str) -> str:
    """Shell code that prints the agent's blocking answer for ``why``, as the hook would."""
    reply = agent_module(agent).refuse(f"[policy-engine] Blocked: {why}")
    printed = [f"printf '%s\\n' {shlex.quote(reply.stdout.rstrip())}"] if reply.stdout else []
    return "; ".join([*printed, f"printf '%s\\n' {shlex.quote(reply.stderr.rstrip())} >&2"])


class InstalledCommand(Record):
    """A command of ours as read back from a settings file: ``guarded`` (by absolute path),
    ``portable`` (``policy`` from PATH) or ``bare`` (an older release's, without the guard: it
    runs the tool when the installation is gone); ``program`` the argv before ``hook``."""

    form: str
    program: tuple[str, ...]
    agent: str


def read_command(command: str) -> InstalledCommand | None:
    """What ``command`` runs, when it is some installation's hook of ours; else None."""
    if " hook --agent " not in command:
        return None
    guarded = _GUARDED_FORM.match(command)
    if guarded is not None:
        try:
            python, client = shlex.split(guarded["python"]), shlex.split(guarded["client"])
            program = (*python, *([NO_SITE] if guarded["no_site"] else []), *client)
        except ValueError:
            return None
        return InstalledCommand("guarded", program, guarded["agent"])
    portable = _PORTABLE_FORM.match(command)
    if portable is not None:
        return InstalledCommand("portable", ("policy",), portable["agent"])
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    start = len(words) - 3  # an older release wrote `PROGRAM... hook --agent NAME` and nothing else
    if start >= 1 and words[start : start + 2] == ["hook", "--agent"] and _is_policy(words[:start]):
        return InstalledCommand("bare", tuple(words[:start]), words[-1])
    return None


def _is_policy(prefix: list[str]) -> bool:
    """Whether ``prefix`` runs some installation of policy (this one, an older one or a moved one)."""
    if prefix == executable():
        return True
    if len(prefix) == 1:
        return os.path.basename(prefix[0]) in ("policy", "policy.exe")
    if len(prefix) == 2 or (len(prefix) == 3 and prefix[1] == NO_SITE):  # an interpreter on the client
        return prefix[-1].endswith(os.path.join("policy_engine", "client.py"))
    return len(prefix) == 3 and prefix[1:] == ["-m", "policy_engine"]


def _is_ours(handler: Any, key: str, agent: str) -> bool:
    if not (isinstance(handler, dict) and isinstance(handler.get(key), str)):
        return False
    found = read_command(handler[key])
    return found is not None and found.agent == agent


# --- where -----------------------------------------------------------------------------------------


def settings_path(agent: str, scope: str, cwd: str, env: Mapping[str, str]) -> str:
    """The settings file that holds ``agent``'s hooks for ``scope`` ("user" or "project")."""
    spec = _spec(agent)
    if scope == "project":
        return os.path.join(os.path.abspath(cwd), *spec.project.split("/"))
    if scope != "user":
        raise ValueError(f'unknown scope "{scope}": use "user" or "project"')
    return os.path.join(agent_home(agent, env), *spec.user.split("/"))


def agent_home(agent: str, env: Mapping[str, str]) -> str:
    """The agent's own directory (``$CODEX_HOME``, else ``~/.codex``)."""
    spec = _spec(agent)
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


def _rewritten(doc: Json, spec: Installation, agent: str, command: str | None, path: str) -> Json:
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
    hooks: Json, event: str, spec: Installation, agent: str, command: str | None, path: str
) -> Json:
    entries = hooks.get(event, [])
    if not isinstance(entries, list):
        raise ValueError(f'{path}: "hooks.{event}" is not a list; the file was left untouched')
    rewrite = _Rewrite(spec.command_key, agent, command)
    kept = rewrite.groups(entries) if spec.grouped else rewrite.handlers(entries)
    if command is not None and not rewrite.found:
        handler = agent_module(agent).handler(command, HOOK_TIMEOUT)
        kept.append({"matcher": "*", "hooks": [handler]} if spec.grouped else handler)
    return {event: kept} if kept or event in hooks else {}


# --- install and uninstall --------------------------------------------------------------------------


def install(agent: str, scope: str, cwd: str, env: Mapping[str, str]) -> InstallResult:
    """Add our hook to ``agent``'s settings file for ``scope``, keeping everything else there, and
    take the agent's own step that makes it run (Codex: trust); pi: copy our extension."""
    if agent in extension.AGENTS:
        return extension.install(scope, cwd, env, extension.source())
    spec = _spec(agent)
    path = settings_path(agent, scope, cwd, env)
    old, doc = _load(path)
    new = _rewritten(doc, spec, agent, hook_command(agent, scope), path)
    result = InstallResult(path, False, None)
    if old is None or new != doc:
        result = InstallResult(path, True, _commit(path, old, new))
    after = getattr(agent_module(agent), "after_install", None)
    if after is not None:
        notes, trouble = after(path, new, _ours(agent), agent_home(agent, env), cwd, env)
        result = result._replace(notes=tuple(notes), trouble=trouble)
    return result


def uninstall(agent: str, scope: str, cwd: str, env: Mapping[str, str]) -> InstallResult:
    """Remove our hook entries from ``agent``'s settings file for ``scope``, and nothing else; pi:
    our extension."""
    if agent in extension.AGENTS:
        return extension.uninstall(scope, cwd, env)
    spec = _spec(agent)
    path = settings_path(agent, scope, cwd, env)
    old, doc = _load(path)
    new = _rewritten(doc, spec, agent, None, path)
    if old is None or new == doc:
        return InstallResult(path, False, None)
    leftover = {key: value for key, value in new.items() if key != "version"}
    remove = spec.own_file and not leftover
    return InstallResult(path, True, _commit(path, old, None if remove else new))


def _ours(agent: str) -> Callable[[Any], bool]:
    key = _spec(agent).command_key
    return lambda handler: _is_ours(handler, key, agent)


# --- doctor -------------------------------------------------------------------------------------


def doctor(
    agents: Sequence[str],
    scope: str,
    cwd: str,
    env: Mapping[str, str],
    run: Runner | None = None,
) -> list[Check]:
    """Check each agent's installation end to end: the file, our entries, the agent's own switches
    and trust, the installed command's answers, and the agent's version.

    ``run(argv, stdin) -> (status, stdout, stderr)`` runs a program (default: a subprocess in
    ``cwd`` with a 20 s timeout, carrying doctor's pass); the hook is run as the agent runs it,
    ``/bin/sh -c COMMAND`` (pi: the program its extension runs).
    """
    from .samplepass import sample_pass

    checks: list[Check] = []
    with sample_pass(env) as passed:
        runner = run or _subprocess_runner(cwd, {**env, **passed})
        for agent in agents:
            if agent in extension.AGENTS:
                found, argv = extension.checks(scope, cwd, env)
            else:
                found, command = _settings_checks(agent, scope, cwd, env)
                argv = [SHELL, "-c", command or hook_command(agent, scope)]
            checks += found
            checks += _run_checks(agent, argv, cwd, runner)
            checks.append(_version_check(agent, env, runner))
    return checks + _sandbox_checks(agents, env)


def installed(agent: str, env: Mapping[str, str]) -> str | None:
    """Why ``agent`` counts as installed here (its program on PATH, or its own directory under
    HOME), or None: what doctor checks when no agent is named."""
    module = agent_module(agent)
    program = shutil.which(module.PROGRAM, path=env.get("PATH", os.defpath))
    if program is not None:
        return f"{module.PROGRAM} on PATH ({program})"
    try:
        home = agent_home(agent, env) if agent in AGENTS else extension.agent_directory(env)
    except ValueError:  # no HOME
        return None
    return f"{home} exists" if os.path.isdir(home) else None


def _sandbox_checks(agents: Sequence[str], env: Mapping[str, str]) -> list[Check]:
    """Whether rules that allow a command only in a sandbox (the default's $project-tasks) can run
    it confined here, and under which of ``agents`` they ask instead. Never a failure: without a
    sandbox those rules ask, which is safe, only slower."""
    from ..agents.catalog import REWRITES
    from ..sandbox.backend import find

    found = find({**os.environ, **env})
    if isinstance(found, str):
        fix = "install bubblewrap (apt install bubblewrap)" if sys.platform.startswith("linux") else None
        detail = f"{found}: commands allowed only in a sandbox (tests, builds: $project-tasks) are asked"
        checks = [Check("sandbox", True, detail, fix, warning=True)]
    else:
        detail = (
            f"{found.name} ({found.program}) runs here: $project-tasks and other sandboxed rules run confined"
        )
        checks = [Check("sandbox", True, detail, None)]
    for agent in agents:
        if agent not in REWRITES:
            detail = f"{agent}'s hook cannot change a command: commands allowed only in a sandbox are asked"
            checks.append(Check(f"{agent}: sandbox", True, detail, None, warning=True))
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


def _settings_checks(
    agent: str, scope: str, cwd: str, env: Mapping[str, str]
) -> tuple[list[Check], str | None]:
    """The checks of the settings file, and the command of ours it holds (None: none)."""
    spec = _spec(agent)
    module = agent_module(agent)
    path = settings_path(agent, scope, cwd, env)
    install_fix = f"run `policy install --agent {agent} --{scope}`"
    name = f"{agent}: settings file"
    try:
        old, doc = _load(path)
    except ValueError as error:
        fix = f"repair {path} (or move it away), then {install_fix}"
        return [Check(name, False, str(error), fix)], None
    if old is None:
        return [Check(name, False, f"{path} does not exist", install_fix)], None
    note = f" ({spec.note})" if spec.note else ""
    checks = [Check(name, True, f"{path} is a JSON object{note}", None)]
    commands = []
    for event in spec.events:
        check, command = _entry_check(agent, spec, doc, event, path, scope, env, install_fix)
        checks.append(check)
        commands.append(command)
    if module.switch is not None:
        checks.append(_switch_check(agent, module.switch, doc, path))
    trust = getattr(module, "trust_checks", None)
    if trust is not None:
        checks += trust(path, doc, _ours(agent), agent_home(agent, env), cwd, env)
    return checks, next((command for command in commands if command), None)


def _our_handlers(doc: Json, spec: Installation, agent: str, event: str) -> list[Json]:
    hooks = doc.get("hooks")
    entries = hooks.get(event) if isinstance(hooks, dict) else None
    if not isinstance(entries, list):
        return []
    if spec.grouped:
        groups = [group.get("hooks") for group in entries if isinstance(group, dict)]
        entries = [handler for inner in groups if isinstance(inner, list) for handler in inner]
    return [handler for handler in entries if _is_ours(handler, spec.command_key, agent)]


def _entry_check(
    agent: str,
    spec: Installation,
    doc: Json,
    event: str,
    path: str,
    scope: str,
    env: Mapping[str, str],
    fix: str,
) -> tuple[Check, str | None]:
    """Our entry for ``event``, and whether its command would still run this engine."""
    name = f"{agent}: {event} hook"
    handlers = _our_handlers(doc, spec, agent, event)
    if not handlers:
        return Check(name, False, f"no policy hook for {event} in {path}", fix), None
    command = handlers[0][spec.command_key]
    found = read_command(command)
    assert found is not None  # _our_handlers read it
    if found.form == "portable":
        program = shutil.which("policy", path=env.get("PATH", os.defpath))
        if program is None:
            return Check(
                name, False, "it runs policy from PATH, and PATH has none", "install policy-engine"
            ), command
        return Check(name, True, f"policy from PATH ({program}), failing closed without it", None), command
    missing = [part for part in found.program if os.path.isabs(part) and not os.path.exists(part)]
    if not os.path.isabs(found.program[0]):
        return Check(name, False, f"{command} depends on PATH to find {found.program[0]}", fix), command
    if missing:
        detail = f"{command}: {missing[0]} does not exist (the installation was moved or removed)"
        return Check(name, False, detail, fix), command
    if not os.access(found.program[0], os.X_OK):
        return Check(name, False, f"{command}: {found.program[0]} cannot run", fix), command
    if found.form == "bare":
        detail = f"{command} is an older form that lets the tool run when the installation is gone"
        return Check(name, False, detail, fix), command
    if scope == "project":
        detail = "the project's file names this machine's paths, which its other users do not have"
        return Check(name, True, detail, fix, warning=True), command
    this = executable()
    if list(found.program) == this:
        other = ""
    elif [part for part in found.program if part != NO_SITE] == [part for part in this if part != NO_SITE]:
        other = " (an older release's command, slower: policy install again writes this one's)"
    else:
        other = f" (not this installation: {shlex.join(this)})"
    return Check(name, True, f"{shlex.join(found.program)}, failing closed without it{other}", None), command


def _switch_check(agent: str, switch: Callable[[Json, str], str | None], doc: Json, path: str) -> Check:
    name = f"{agent}: hooks enabled"
    fix = switch(doc, path)
    if fix is None:
        return Check(name, True, "hooks are not switched off", None)
    return Check(name, False, "the agent's hooks are switched off", fix)


def _run_checks(agent: str, argv: list[str], cwd: str, run: Runner) -> list[Check]:
    module = agent_module(agent)
    harmless = run(argv, json.dumps(module.sample("ls", cwd, DOCTOR_SESSION)))
    dangerous = run(argv, json.dumps(module.sample("rm -rf /", cwd, DOCTOR_SESSION)))
    return [
        _harmless_check(agent, module.denies, harmless),
        _dangerous_check(agent, module.denies, dangerous),
    ]


def _answer(stdout: str) -> Json | None:
    """The hook's stdout as a JSON object, or None."""
    try:
        value = json.loads(stdout)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _harmless_check(agent: str, denies: Callable[[Json], bool], result: tuple[int, str, str]) -> Check:
    name = f"{agent}: harmless call (ls) allowed"
    status, stdout, stderr = result
    answer = _answer(stdout)
    see = f"run `policy hook --agent {agent}` with an {agent} payload on stdin to see the error"
    if status != 0:
        return Check(name, False, f"exit status {status}: {_excerpt(stderr or stdout)}", see)
    if answer is None:
        return Check(name, False, f"exit 0 but no JSON object on stdout: {_excerpt(stdout)}", see)
    if denies(answer):
        fix = "see why with `policy check --explain ls`"
        return Check(name, False, f"the hook denies `ls`: {_excerpt(stdout)}", fix)
    return Check(name, True, f"exit 0, {_excerpt(stdout)}", None)


def _dangerous_check(agent: str, denies: Callable[[Json], bool], result: tuple[int, str, str]) -> Check:
    name = f"{agent}: destructive call (rm -rf /) blocked"
    status, stdout, stderr = result
    answer = _answer(stdout)
    if status == 2:
        return Check(name, True, f"exit 2: {_excerpt(stderr)}", None)
    if status == 0 and answer is not None and denies(answer):
        return Check(name, True, f"exit 0, denied: {_excerpt(stdout)}", None)
    detail = f"exit status {status}, stdout {_excerpt(stdout)}, stderr {_excerpt(stderr)}"
    fix = "`rm -rf /` must be denied: see what the policy says with `policy check --explain 'rm -rf /'`"
    return Check(name, False, detail, fix)


def _version_check(agent: str, env: Mapping[str, str], run: Runner) -> Check:
    """The agent's installed version beside the one its module was verified with: a newer agent
    may send what the module does not read, so it is worth a look (and `tests/e2e` a run)."""
    module = agent_module(agent)
    name = f"{agent}: version"
    verified = module.VERIFIED
    program = shutil.which(module.PROGRAM, path=env.get("PATH", os.defpath))
    if program is None:
        basis = f"verified with {verified}" if verified else "not verified with a real CLI"
        return Check(name, True, f"{module.PROGRAM} is not on PATH ({basis})", None)
    _, stdout, stderr = run([program, "--version"], "")
    found = re.search(r"\d+(?:\.\d+)+", stdout or stderr)
    installed = found.group(0) if found else None
    if verified is None:
        detail = (
            f"{module.NAME} {installed or '(version unknown)'}; this agent was not verified with a real CLI"
        )
        return Check(name, True, detail, None, warning=True)
    if installed is None:
        return Check(name, True, f"{program} --version said {_excerpt(stdout or stderr)}", None, warning=True)
    if _version(installed) > _version(verified):
        detail = (
            f"{module.NAME} {installed} is newer than {verified}, the version policy-engine was verified with"
        )
        fix = "check the agent table in docs/agents.md, or upgrade policy-engine"
        return Check(name, True, detail, fix, warning=True)
    return Check(name, True, f"{module.NAME} {installed} (verified with {verified})", None)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _excerpt(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    if not flat:
        return "(empty)"
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
