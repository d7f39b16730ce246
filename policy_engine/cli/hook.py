"""policy hook (answer one agent hook call), policy serve (the daemon that answers them) and policy
daemon (whether one runs; stopping it)."""

from __future__ import annotations

import argparse
import os

from .common import HelpFormatter

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from .common import Commands


HOOK_EPILOG = """\
Reads the agent's hook payload on stdin and answers in its protocol: Claude Code (PreToolUse,
PostToolUse; an ask blocks in bypassPermissions mode), Codex (PreToolUse; an ask blocks, since
Codex cannot ask), Gemini CLI (BeforeTool, AfterTool, which carries a nudge to the model; an ask
blocks), Cursor (beforeShellExecution, beforeReadFile, beforeMCPExecution), GitHub Copilot CLI
(preToolUse, postToolUse; an ask blocks), pi (integrations/pi). Anything that goes wrong blocks the
call (exit 2, the reason on stderr; never 1, which some agents take as "run it") unless the policy
says "onError": "allow".
POLICY_ENGINE_HOOK_TIMEOUT (seconds, default 20) bounds the time it takes.
"""


def _add_hook(commands: Any) -> None:
    from ..agents import AGENTS

    hook = commands.add_parser(
        "hook",
        formatter_class=HelpFormatter,
        help="answer an agent's pre-tool-call hook (reads its payload on stdin)",
        description="Judge the tool call an agent's hook payload describes, and answer in its protocol.",
        epilog=HOOK_EPILOG,
    )
    hook.add_argument("--agent", required=True, choices=AGENTS, help="the agent whose protocol to speak")


def _add_serve(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        formatter_class=HelpFormatter,
        help="answer hook calls from a daemon (started on demand by the first hook call)",
        description="Serve hook calls on a unix socket in the state directory, with the engine loaded: "
        "a hook call then costs little more than starting Python. The first hook call starts it; "
        "POLICY_ENGINE_DAEMON=0 turns that off. `policy daemon status` shows it, `policy daemon stop` "
        "stops it.",
    )
    serve.add_argument(
        "--idle", type=float, default=1800, metavar="SECONDS", help="leave after this long unused"
    )
    serve.add_argument("--stop", action="store_true", help="stop the running daemon")


DAEMON_EPILOG = """\
The first hook call starts the daemon in the background (its first answer says so on stderr); it
exits after 30 minutes without a hook call. POLICY_ENGINE_DAEMON=0, in the environment the agent
starts in, keeps hook calls from starting or asking one: each call is then judged in-process
(slower, the same decisions).
exit status: status: 0 a daemon runs, 1 none does; stop: 0, whether one was running or not.
"""


def _add_daemon(commands: Any) -> None:
    daemon = commands.add_parser(
        "daemon",
        formatter_class=HelpFormatter,
        help="show whether the background daemon runs (status), or stop it (stop)",
        description="Show the daemon that answers hook calls (pid, socket, state directory, uptime, "
        "when it leaves, version), or stop it.",
        epilog=DAEMON_EPILOG,
    )
    daemon.add_argument("action", choices=("status", "stop"), help="status: show it; stop: stop it")


def run_hook(args: argparse.Namespace) -> int:
    from ..hook.client import hook

    return hook(args.agent, os.environ)


def run_serve(args: argparse.Namespace) -> int:
    from ..hook import daemon

    if args.stop:
        print("stopped" if daemon.stop(os.environ) else "no daemon was running")
        return 0
    return daemon.main(os.environ, args.idle)


def run_daemon(args: argparse.Namespace) -> int:
    from ..hook import daemon
    from ..session.statedir import socket_path, state_directory
    from ..version import __version__

    env = os.environ
    path = socket_path(env)
    if args.action == "stop":
        running = daemon.status(env)
        if running is None or not daemon.stop(env):
            print("no daemon was running")
            return 0
        _wait_gone(path)
        print(f"stopped the daemon{_pid(running)}")
        return 0
    running = daemon.status(env)
    if running is None:
        print(f"no daemon is running (nothing answers on {path})")
    else:
        version = running.get("version")
        other = (
            f" (not this version, {__version__}: it leaves at the next hook call)"
            if (version and version != __version__)
            else ""
        )
        print(f"a daemon is running{_pid(running)}, policy-engine {version or '(an older release)'}{other}")
    print(f"  socket:          {path}")
    print(f"  state directory: {state_directory(env)}")
    if running:
        print("  " + _uptime(running))
    off = env.get("POLICY_ENGINE_DAEMON", "1") in ("0", "false", "no", "off")
    if off:
        print("POLICY_ENGINE_DAEMON is off here: hook calls with this environment neither start nor ask one")
    elif running is None:
        print("the next hook call starts one; POLICY_ENGINE_DAEMON=0 keeps hook calls from starting one")
    else:
        print("stop it: policy daemon stop; POLICY_ENGINE_DAEMON=0 keeps hook calls from starting one")
    return 1 if running is None else 0


def _pid(running: dict[str, Any]) -> str:
    return f" (pid {running['pid']})" if isinstance(running.get("pid"), int) else ""


def _uptime(running: dict[str, Any]) -> str:
    """Since when it runs, the hook calls it answered, and when it leaves."""
    import time

    from ..hook.daemon import duration

    try:
        started, idle, quiet = float(running["started"]), float(running["idle"]), float(running["quiet"])
        calls = int(running["calls"])
    except (KeyError, TypeError, ValueError):
        return "an older release: it does not say how long it has run"
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started))
    up = duration(max(time.time() - started, 0))
    last = f", the last {duration(quiet)} ago" if calls else ""
    leaves = duration(max(idle - quiet, 0))
    return (
        f"started {since} (up {up}); hook calls answered: {calls}{last}; "
        f"leaves after {duration(idle)} without a call (in {leaves})"
    )


def _wait_gone(path: str, seconds: float = 5) -> None:
    """Until the daemon has removed its socket (it does as it leaves), so that what runs next finds
    none."""
    import time

    deadline = time.monotonic() + seconds
    while os.path.lexists(path) and time.monotonic() < deadline:
        time.sleep(0.02)


COMMANDS: Commands = {
    "hook": (_add_hook, run_hook),
    "serve": (_add_serve, run_serve),
    "daemon": (_add_daemon, run_daemon),
}
