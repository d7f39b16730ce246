"""The ``policy`` command: check a tool call, show the configuration, trust a project file.

Each command lives in the module ``_MODULES`` names, with its parser and what runs it; what several
share is in ``common.py``. A run imports the module of its command only (``policy check`` is on an
agent's path: every module it imports costs start-up time).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from ..errors import ApprovalError, ConfigError
from ..version import __version__
from .common import EXIT_BROKEN_PIPE, EXIT_CONFIG, EXIT_USAGE, HelpFormatter, UsageError

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .common import Command, Commands

# The module of each command, in the order `policy --help` lists them.
_MODULES = {
    "check": "check",
    "config": "check",
    "init": "init",
    "presets": "init",
    "trust": "trust",
    "untrust": "trust",
    "approve": "approve",
    "approvals": "approve",
    "revoke": "approve",
    "log": "log",
    "hook": "hook",
    "test": "files",
    "lint": "files",
    "schema": "files",
    "diff": "files",
    "serve": "hook",
    "install": "install",
    "uninstall": "install",
    "doctor": "install",
}
_ALIASES = {"status": "config"}


def _command(name: str) -> Command:
    """(add its parser, run it) of command ``name`` (not an alias), importing its module."""
    commands: Commands = importlib.import_module(f"{__name__}.{_MODULES[name]}").COMMANDS
    return commands[name]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, just that command's (every run pays for what it builds)."""
    parser = argparse.ArgumentParser(
        prog="policy",
        formatter_class=HelpFormatter,
        description="Declarative, location-scoped allow / nudge / log / ask / deny for AI agent tool calls.",
    )
    parser.add_argument("--version", action="version", version=f"policy-engine {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in _MODULES:
        if only is None or name == only:
            add, _ = _command(name)
            add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); its exit status.

    A reader that leaves early (``policy log tail | head``) closes the pipe: what it did not read
    it does not want, so the command stops without a traceback and exits 141 (128 + SIGPIPE, what
    a shell reports for a command the signal ended). Python ignores SIGPIPE, so the write raises."""
    try:
        try:
            return _main(argv)
        finally:
            sys.stdout.flush()  # here, where a closed pipe is caught, not at exit where it is printed
    except BrokenPipeError:
        # As the signal module's documentation advises: what is still buffered goes to devnull,
        # so that the interpreter's own flush at exit does not fail on the closed pipe again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    # A tool input may hold a lone surrogate ("\ud800" in JSON): written escaped, never a crash.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    arguments = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in arguments if not a.startswith("-")), None)
    command = _ALIASES.get(first or "", first)
    args = build_parser(command if command in _MODULES else None).parse_args(arguments)
    _, run = _command(_ALIASES.get(args.command, args.command))
    try:
        return run(args)
    except UsageError as error:
        print(f"policy {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ApprovalError as error:
        print(f"policy {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ConfigError as error:
        print(error.render(), file=sys.stderr)  # first: a reader of stdout that leaves cannot lose it
        if getattr(args, "json", False):
            print(json.dumps({"error": "config", "problems": [str(p) for p in error.problems]}, indent=2))
        return EXIT_CONFIG
