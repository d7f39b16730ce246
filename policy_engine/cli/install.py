"""policy install / uninstall / doctor: the hook in an agent's settings (pi: our extension), and
whether it answers."""

from __future__ import annotations

import argparse
import os
import sys

from .common import HelpFormatter, UsageError

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ..agents.protocol import Check
    from .common import Commands


DOCTOR_EPILOG = """\
Without --agent, doctor checks the agents installed here: the agent's program on PATH (claude,
codex, gemini, cursor-agent, copilot, pi) or its own directory under HOME (~/.claude, ~/.codex or
$CODEX_HOME, ~/.gemini, ~/.cursor, ~/.copilot or $COPILOT_HOME, ~/.pi/agent or
$PI_CODING_AGENT_DIR), and names those it skipped. It runs the installed hook on two sample calls
(ls, rm -rf /), which are neither logged nor counted; they start the background daemon if none
runs (see policy daemon).
exit status: 0 every agent checked is guarded; 1 one is not (each failure says what to fix), or no
agent is installed here and none was named: nothing was checked, so nothing is known to be guarded.
"""
INSTALL_EPILOG = """\
pi has no hook settings: install copies our extension (integrations/pi/index.ts) into pi's
extensions directory (~/.pi/agent/extensions/ or $PI_CODING_AGENT_DIR/extensions/; --project:
.pi/extensions/ in the project) as policy-engine.ts, and uninstall removes it (or a link to
integrations/pi); an installation without the extension (it ships in the package) says how to
install it by hand.
"""


def _add_install(commands: Any, name: str, text: str) -> None:
    from ..hook.install import INSTALLABLE

    epilog = DOCTOR_EPILOG if name == "doctor" else INSTALL_EPILOG
    parser = commands.add_parser(
        name,
        formatter_class=HelpFormatter,
        help=text,
        description=text[0].upper() + text[1:] + ".",
        epilog=epilog,
    )
    if name == "doctor":
        parser.add_argument(
            "--agent",
            action="append",
            choices=INSTALLABLE,
            help="check this agent (repeatable; default: the agents installed here)",
        )
    else:
        parser.add_argument("--agent", required=True, choices=INSTALLABLE, help="the agent")
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument(
        "--user", dest="scope", action="store_const", const="user", help="the user's settings (default)"
    )
    scope.add_argument(
        "--project",
        dest="scope",
        action="store_const",
        const="project",
        help="the project's settings (in --cwd)",
    )
    parser.add_argument("--cwd", metavar="DIR", help="the project directory (default: the current one)")


def run_install(args: argparse.Namespace) -> int:
    from ..hook import install

    cwd = os.path.abspath(args.cwd or os.getcwd())
    change = install.install if args.command == "install" else install.uninstall
    try:
        result = change(args.agent, args.scope or "user", cwd, os.environ)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if result.manual:  # nothing this installation can do itself: how to, by hand
        print(f"nothing installed in {result.path}")
        for line in result.manual:
            print(line)
        return 0
    done = {"install": "installed in", "uninstall": "removed from"}[args.command]
    print(f"{done if result.changed else 'nothing to change in'} {result.path}")
    if result.backup:
        print(f"backup: {result.backup}")
    for note in result.notes:
        print(note)
    if result.trouble:
        print(f"policy: {result.trouble}", file=sys.stderr)
        return 1
    return 0


def run_doctor(args: argparse.Namespace) -> int:
    from ..hook import daemon, install

    cwd = os.path.abspath(args.cwd or os.getcwd())
    agents = args.agent or _installed_agents()
    if not agents:
        return 1
    running = daemon.status(os.environ)
    try:
        checks = install.doctor(agents, args.scope or "user", cwd, os.environ)
    except ValueError as error:
        raise UsageError(str(error)) from None
    for check in checks:
        _print_check(check)
    if running is None:
        _say_started(os.environ)
    return 0 if all(check.ok for check in checks) else 1


def _print_check(check: Check) -> None:
    mark = "FAIL" if not check.ok else "warn" if check.warning else "ok  "
    print(f"{mark} {check.name}: {check.detail}")
    if (not check.ok or check.warning) and check.fix:
        print(f"     fix: {check.fix}")


def _installed_agents() -> list[str]:
    """The agents installed here, having said which and which were skipped; none: said as a failure."""
    from ..agents import agent_module
    from ..agents.protocol import Check
    from ..hook import install

    found = {agent: why for agent in install.INSTALLABLE if (why := install.installed(agent, os.environ))}
    for agent, why in found.items():
        print(f"checking {agent}: {why}")
    skipped = [agent for agent in install.INSTALLABLE if agent not in found]
    if found and skipped:
        print(f"skipped, not installed: {', '.join(skipped)} (--agent NAME checks one anyway)")
    if not found:
        programs = ", ".join(agent_module(agent).PROGRAM for agent in install.INSTALLABLE)
        detail = f"none of {programs} is on PATH, and no agent's directory is under HOME: nothing is guarded"
        _print_check(Check("agents", False, detail, "name the agent to check: policy doctor --agent NAME"))
    return list(found)


def _say_started(env: Mapping[str, str]) -> None:
    """Say so when doctor's sample calls started the background daemon (they start it as an
    agent's first call does; it binds its socket a moment later)."""
    import time

    from ..hook import daemon

    if env.get("POLICY_ENGINE_DAEMON", "1") in ("0", "false", "no", "off"):
        return
    deadline = time.monotonic() + 5  # a busy machine takes a while to start Python
    while (running := daemon.status(env)) is None:
        if time.monotonic() > deadline:
            return
        time.sleep(0.05)
    pid = f" (pid {running['pid']})" if isinstance(running.get("pid"), int) else ""
    idle = running.get("idle")
    leaves = f"after {daemon.duration(idle)} without a call" if isinstance(idle, int | float) else "when idle"
    print(
        f"note: the sample calls started the background daemon{pid}, which answers hook calls with the "
        f"engine loaded and leaves {leaves}: `policy daemon status` shows it, `policy daemon stop` stops "
        "it, POLICY_ENGINE_DAEMON=0 keeps hook calls from starting one"
    )


COMMANDS: Commands = {
    "install": (
        lambda c: _add_install(c, "install", "add the policy hook to an agent's settings"),
        run_install,
    ),
    "uninstall": (
        lambda c: _add_install(c, "uninstall", "remove the policy hook from an agent's settings"),
        run_install,
    ),
    "doctor": (
        lambda c: _add_install(
            c, "doctor", "check that the hook is installed and answers, and say what to fix"
        ),
        run_doctor,
    ),
}
