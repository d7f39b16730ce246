"""What the commands share: the help formatter, exit statuses, usage errors, the --config and --cwd
options, and the engine and tool call a command line describes."""

from __future__ import annotations

import argparse
import json
import os

from ..model import Action, ToolCall

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..engine import Engine

    # A command: (add its parser, run it). Each command module exposes COMMANDS, name -> Command.
    Command = tuple[Callable[[Any], None], Callable[[argparse.Namespace], int]]
    Commands = dict[str, Command]

EXIT_USAGE = 2
EXIT_CONFIG = 3
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: the reader of stdout left early (cli.main)
EXIT_FOR_ACTION = {Action.ALLOW: 0, Action.NUDGE: 0, Action.LOG: 0, Action.ASK: 10, Action.DENY: 20}


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, minus its ``import shutil`` (a few ms on every run, help or not)."""

    def __init__(self, prog: str) -> None:
        try:
            columns = int(os.environ["COLUMNS"])
        except (KeyError, ValueError):
            try:
                columns = os.get_terminal_size().columns
            except OSError:
                columns = 80
        super().__init__(prog, width=columns - 2)


class UsageError(Exception):
    """A command line that cannot be acted on (exit status 2)."""


def add_config_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        action="append",
        metavar="FILE",
        help="policy file to use instead of user and project discovery (repeatable; later files "
        "merge over earlier ones). Default: $POLICY_ENGINE_CONFIG, else discovery",
    )
    parser.add_argument(
        "--cwd", metavar="DIR", help="the agent's working directory (default: the current one)"
    )


def engine_for(args: argparse.Namespace, *, recording: bool = False, logged: bool = True) -> Engine:
    """The engine for a command; ``recording``: with the state store (and, if ``logged``, the
    decision log) on disk."""
    mode = getattr(args, "mode", None)
    if not recording:
        from ..engine import Engine

        return Engine(args.config, cwd=args.cwd, mode=mode)
    from ..hook.call import recording_engine

    return recording_engine(args.config, args.cwd, os.environ, mode=mode, logged=logged)


def tool_call(tool: str, command: str | None, tool_input: Any, cwd: str) -> ToolCall:
    """A ToolCall from the parts of a request; UsageError says what is missing."""
    if tool_input is None:
        tool_input = {}
    if not isinstance(tool_input, dict):
        raise UsageError("the tool input must be a JSON object")
    if command is not None:
        tool_input = {**tool_input, "command": command}
    if tool in ("bash", "Bash", "run_shell_command") and not isinstance(tool_input.get("command"), str):
        raise UsageError("a bash check needs a COMMAND (or an input with a command)")
    return ToolCall(tool, tool_input, cwd)


def input_json(text: str | None) -> Any:
    """The ``--input`` option's JSON value (None when absent)."""
    try:
        return json.loads(text) if text is not None else None
    except ValueError as error:
        raise UsageError(f"--input is not valid JSON: {error}") from None
    except RecursionError:  # json's own limit, which depends on the stack in use: no fixed number
        raise UsageError("--input is nested too deeply to read") from None
