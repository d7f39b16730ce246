"""policy hook (answer one agent hook call) and policy serve (the daemon that answers them)."""

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
        "POLICY_ENGINE_DAEMON=0 turns that off.",
    )
    serve.add_argument(
        "--idle", type=float, default=1800, metavar="SECONDS", help="leave after this long unused"
    )
    serve.add_argument("--stop", action="store_true", help="stop the running daemon")


def run_hook(args: argparse.Namespace) -> int:
    from ..client import hook

    return hook(args.agent, os.environ)


def run_serve(args: argparse.Namespace) -> int:
    from ..hook import daemon

    if args.stop:
        print("stopped" if daemon.stop(os.environ) else "no daemon was running")
        return 0
    return daemon.main(os.environ, args.idle)


COMMANDS: Commands = {
    "hook": (_add_hook, run_hook),
    "serve": (_add_serve, run_serve),
}
