"""policy install / uninstall / doctor: the hook in an agent's settings, and whether it answers."""

from __future__ import annotations

import argparse
import os
import sys

from .common import HelpFormatter, UsageError

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from .common import Commands


def _add_install(commands: Any, name: str, text: str) -> None:
    from ..hook.install import AGENTS

    parser = commands.add_parser(
        name, formatter_class=HelpFormatter, help=text, description=text[0].upper() + text[1:] + "."
    )
    if name == "doctor":
        parser.add_argument(
            "--agent", action="append", choices=AGENTS, help="check this agent (repeatable; default: all)"
        )
    else:
        parser.add_argument("--agent", required=True, choices=AGENTS, help="the agent")
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
    from ..hook import install

    cwd = os.path.abspath(args.cwd or os.getcwd())
    try:
        checks = install.doctor(args.agent or list(install.AGENTS), args.scope or "user", cwd, os.environ)
    except ValueError as error:
        raise UsageError(str(error)) from None
    for check in checks:
        mark = "FAIL" if not check.ok else "warn" if check.warning else "ok  "
        print(f"{mark} {check.name}: {check.detail}")
        if (not check.ok or check.warning) and check.fix:
            print(f"     fix: {check.fix}")
    return 0 if all(check.ok for check in checks) else 1


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
