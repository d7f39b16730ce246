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
    from collections.abc import Iterable, Sequence
    from typing import Any

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
    "daemon": "hook",
    "install": "install",
    "uninstall": "install",
    "doctor": "install",
    "completions": "completions",
}
_ALIASES = {"status": "config"}

# What `policy` alone lists: the commands to start with (`policy --help` lists every one).
_COMMON = ("check", "install", "doctor", "config", "init", "approve", "log", "lint")

_EPILOG = """\
colour: on a terminal; NO_COLOR=1 or --no-color turns it off, FORCE_COLOR=1 forces it. Hook answers
and --json output are never coloured.
shell completion: policy completions bash|zsh|fish (its --help says how to load it).
"""


def _command(name: str) -> Command:
    """(add its parser, run it) of command ``name`` (not an alias), importing its module."""
    commands: Commands = importlib.import_module(f"{__name__}.{_MODULES[name]}").COMMANDS
    return commands[name]


class Parser(argparse.ArgumentParser):
    """argparse's parser with what it lacks: ``--no-color`` on every command (argparse makes a
    command's parser of its parent's class), and, once parsing has failed, the known word closest
    to a mistyped command, choice or option ("did you mean check?")."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # On every command, so that it may come anywhere on the line. SUPPRESS: a command's parser
        # leaves the main parser's value alone unless the flag is given to it.
        self.add_argument(
            "--no-color",
            action="store_true",
            default=argparse.SUPPRESS,
            help="never colour the output (as NO_COLOR=1 does)",
        )

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        """argparse's, but what is not recognised is a usage error here, at the command it was given
        to (argparse reports it at the main parser, with its usage and none of the command's)."""
        namespace, extras = super().parse_known_args(*args, **kwargs)
        if extras:
            known = [flag for action in self._actions for flag in action.option_strings]
            words = []
            for extra in extras:
                hint = _did_you_mean(extra.split("=", 1)[0], known) if extra.startswith("-") else None
                words.append(f"{extra} (did you mean {hint}?)" if hint else extra)
            self.error(f"unrecognized arguments: {' '.join(words)}")
        return namespace, extras

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        # argparse's one check of a command or a choice (its own suggestions come in Python 3.14).
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as error:
            hint = _did_you_mean(str(value), [str(choice) for choice in action.choices or ()])
            if hint is None:
                raise
            message = f"invalid choice: {value!r} (did you mean {hint}?)"
            raise argparse.ArgumentError(action, message) from error


def _did_you_mean(word: str, known: Iterable[str]) -> str | None:
    """The known words closest to a mistyped ``word`` ("approve or approvals"), or None."""
    import difflib  # here, on a failed command line only

    return " or ".join(difflib.get_close_matches(word, list(dict.fromkeys(known)), n=3, cutoff=0.7)) or None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, just that command's (every run pays for what it builds)."""
    parser = Parser(
        prog="policy",
        formatter_class=HelpFormatter,
        description="Declarative, location-scoped allow / nudge / log / ask / deny for AI agent tool calls.",
        epilog=_EPILOG,
    )
    parser.add_argument("-V", "--version", action="version", version=f"policy-engine {__version__}")
    parser.set_defaults(no_color=False)
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
    if not arguments:
        # On stderr, with the usage error's status: to a script whose arguments went missing, 0
        # would read as `policy check`'s allow.
        print(_usage(), file=sys.stderr)
        return EXIT_USAGE
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


def _usage() -> str:
    """What ``policy`` alone prints: how to call it, and the commands to start with."""
    import textwrap

    from .completions import command_tree, summary

    parser = build_parser()
    helps = {command.path[-1]: command.help for command in command_tree(parser).commands}
    width = max(map(len, _COMMON)) + 2
    lines = "\n".join(f"  {name.ljust(width)}{summary(helps[name], 78 - width)}" for name in _COMMON)
    return (
        f"{parser.format_usage()}\n{textwrap.fill(parser.description or '', 79)}\n\n"
        f"common commands:\n{lines}\n\n"
        "`policy --help` lists every command; `policy COMMAND --help` describes one."
    )
