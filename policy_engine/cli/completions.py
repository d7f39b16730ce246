"""policy completions SHELL: the completion script of bash, zsh or fish, written from the parser.

Nothing in a script is written by hand: ``command_tree`` reads the real argument parser (every
command, alias and subcommand, each one's options, which take a value, their choices, such as
``--agent``'s agents), and each shell's writer turns that tree into the shell's own terms. A script
is therefore as current as the ``policy`` that printed it; printing it again after an upgrade
renews it. The scripts complete from their own tables and never run ``policy``, so a Tab costs no
Python start. A value nothing lists (a file, a command, an id) is left to the shell's file name
completion; a directory (``DIR``) to its directory completion.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys

from ..record import Record
from ..version import __version__
from .common import HelpFormatter

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from .common import Commands

SHELLS = ("bash", "zsh", "fish")


class Value(Record):
    """What an option or an operand takes: one of ``choices``, a directory, or anything (a file)."""

    metavar: str
    choices: tuple[str, ...] = ()
    directory: bool = False


class Option(Record):
    """An option of a command: its spellings (``-n``, ``--lines``), what it takes (None: a flag)."""

    flags: tuple[str, ...]
    help: str
    value: Value | None
    repeatable: bool


class Command(Record):
    """A command at ``path`` (``()``: ``policy`` itself; ``("log", "tail")``), its options, its
    operands (the first one's Value: what completes them), and its subcommands."""

    path: tuple[str, ...]
    aliases: tuple[str, ...]
    help: str
    options: tuple[Option, ...]
    operand: Value | None
    commands: tuple[Command, ...]

    def walk(self) -> Iterator[Command]:
        """This command and every command under it, parents first."""
        yield self
        for command in self.commands:
            yield from command.walk()

    def names(self) -> tuple[str, ...]:
        """The subcommands' names, aliases included, in the parser's order."""
        return tuple(name for command in self.commands for name in (command.path[-1], *command.aliases))


def command_tree(parser: argparse.ArgumentParser) -> Command:
    """The commands ``parser`` knows, read from it (argparse's actions are the one source of truth:
    what they accept is what completes)."""
    return _read(parser, (), (), "")


def _read(
    parser: argparse.ArgumentParser, path: tuple[str, ...], aliases: tuple[str, ...], help: str
) -> Command:
    options: list[Option] = []
    operand: Value | None = None
    commands: list[Command] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            commands.extend(_subcommands(action, path))
        elif action.option_strings:
            if action.help != argparse.SUPPRESS:
                options.append(
                    Option(
                        tuple(action.option_strings),
                        _help(action.help),
                        None if action.nargs == 0 else _value(action),
                        isinstance(action, (argparse._AppendAction, argparse._CountAction)),
                    )
                )
        elif operand is None:
            operand = _value(action)
    return Command(path, aliases, help, tuple(options), operand, tuple(commands))


def _subcommands(action: argparse._SubParsersAction[Any], path: tuple[str, ...]) -> Iterator[Command]:
    """The commands of a subparsers action; an alias maps to its command's parser, after its name."""
    helps = {choice.dest: choice.help for choice in action._choices_actions}
    names: dict[int, tuple[argparse.ArgumentParser, list[str]]] = {}
    for name, parser in action.choices.items():
        names.setdefault(id(parser), (parser, []))[1].append(name)
    for parser, (name, *aliases) in names.values():
        yield _read(parser, (*path, name), tuple(aliases), _help(helps.get(name)))


def _value(action: argparse.Action) -> Value:
    metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
    choices = tuple(str(choice) for choice in action.choices or ())
    return Value(metavar, choices, metavar == "DIR")


def _help(text: str | None) -> str:
    """A help text on one line (argparse's own, with ``%%`` for ``%``); none when suppressed."""
    if not text or text == argparse.SUPPRESS:
        return ""
    return " ".join(text.replace("%%", "%").split())


def summary(help: str, limit: int = 60) -> str:
    """A help text's first clause, within ``limit`` characters: a completion menu (and ``policy``
    alone) shows one short line per item."""
    text = re.split(r" \(|; |\. |: |, e\.g\. ", help, maxsplit=1)[0].rstrip(".")
    if len(text) > limit:
        text = text[: limit - 1].rsplit(" ", 1)[0] + "…"
    return text


# ---- bash -----------------------------------------------------------------------------------------
# Tables as `case` statements (bash 3.2, macOS's, has no associative arrays); the helpers set
# `reply`, a local of _policy (bash scoping is dynamic), rather than print into a subshell.


def bash_script(tree: Command) -> str:
    commands, canonical, options, values, operands = [], [], [], [], []
    for command in tree.walk():
        # The tables know each command by its path of names: _policy maps an alias to its
        # command's name as it reads the line.
        path = " ".join(command.path)
        pattern = shlex.quote(path)
        if command.commands:
            commands.append(f"        {pattern}) reply={shlex.quote(' '.join(command.names()))} ;;")
            for sub in command.commands:
                at = "|".join(shlex.quote(f"{path}:{name}") for name in (sub.path[-1], *sub.aliases))
                canonical.append(f"        {at}) reply={shlex.quote(sub.path[-1])} ;;")
        flags = " ".join(flag for option in command.options for flag in option.flags)
        options.append(f"        {pattern}) reply={shlex.quote(flags)} ;;")
        for option in command.options:
            if option.value is not None:
                at = "|".join(shlex.quote(f"{path}:{flag}") for flag in option.flags)
                values.append(f"        {at}) reply={shlex.quote(_bash_kind(option.value))} ;;")
        if command.operand is not None and not command.commands:
            operands.append(f"        {pattern}) reply={shlex.quote(_bash_kind(command.operand))} ;;")
    return _BASH.format(
        version=__version__,
        commands="\n".join(commands),
        canonical="\n".join(canonical),
        options="\n".join(options),
        values="\n".join(values),
        operands="\n".join(operands),
    )


def _bash_kind(value: Value) -> str:
    """A value's kind in the bash tables: ``=`` and its choices, ``/`` a directory, ``*`` anything."""
    if value.choices:
        return "=" + " ".join(value.choices)
    return "/" if value.directory else "*"


_BASH = """\
# bash completion for policy (policy-engine {version}), printed by `policy completions bash`.
# Load it in ~/.bashrc with: eval "$(policy completions bash)"

_policy_commands() {{  # the subcommands at command path $1
    case $1 in
{commands}
        *) reply='' ;;
    esac
}}

_policy_command() {{  # the command word $2 names at command path $1 (an alias's command), or ''
    case $1:$2 in
{canonical}
        *) reply='' ;;
    esac
}}

_policy_options() {{  # the options of command path $1
    case $1 in
{options}
        *) reply='' ;;
    esac
}}

_policy_value() {{  # what option $2 of command path $1 takes: =choices, / a directory, * anything; '' a flag
    case $1:$2 in
{values}
        *) reply='' ;;
    esac
}}

_policy_operand() {{  # what the operands of command path $1 are, as _policy_value says
    case $1 in
{operands}
        *) reply='' ;;
    esac
}}

_policy() {{
    local reply path='' word i cur=${{COMP_WORDS[COMP_CWORD]}} prev=
    COMPREPLY=()
    ((COMP_CWORD > 0)) && prev=${{COMP_WORDS[COMP_CWORD-1]}}
    # The command path the words before the cursor spell ("log tail"): options and their values skipped.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${{COMP_WORDS[i]}}
        case $word in
            --) break ;;
            -*=*) ;;
            -*)
                _policy_value "$path" "$word"
                # Its value is the next word (bash splits `--mode=x` into --mode, =, x).
                [[ -n $reply ]] && ((i++))
                [[ ${{COMP_WORDS[i]}} == = ]] && ((i++)) ;;
            *)
                _policy_command "$path" "$word"
                [[ -n $reply ]] && path=${{path:+$path }}$reply ;;
        esac
    done
    if [[ $cur == = ]]; then
        cur=''
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${{COMP_WORDS[COMP_CWORD-2]}}
    fi
    if [[ $prev == -* ]]; then
        _policy_value "$path" "$prev"
        if [[ -n $reply ]]; then
            _policy_complete "$reply"
            return
        fi
    fi
    if [[ $cur == -* ]]; then
        _policy_options "$path"
        COMPREPLY=($(compgen -W "$reply" -- "$cur"))
        return
    fi
    _policy_commands "$path"
    if [[ -n $reply ]]; then
        COMPREPLY=($(compgen -W "$reply" -- "$cur"))
        return
    fi
    _policy_operand "$path"
    _policy_complete "$reply"
}}

_policy_complete() {{  # complete $cur as a value of kind $1; nothing for `*` (the shell's default: files)
    case $1 in
        =*) COMPREPLY=($(compgen -W "${{1#=}}" -- "$cur")) ;;
        /) COMPREPLY=($(compgen -d -- "$cur")) ;;
    esac
}}

complete -o default -F _policy policy
"""


# ---- zsh ------------------------------------------------------------------------------------------
# One function per command, each an _arguments call; a command with subcommands describes them and
# hands the rest of the line to the chosen one's function, as zsh's own completions do.


def zsh_script(tree: Command) -> str:
    functions = [_zsh_function(command) for command in tree.walk()]
    return _ZSH.format(version=__version__, functions="\n\n".join(functions))


def _zsh_name(path: tuple[str, ...]) -> str:
    return "_".join(("_policy", *(re.sub(r"\W", "_", word) for word in path)))


def _zsh_function(command: Command) -> str:
    specs = [_zsh_quote(spec) for option in command.options for spec in _zsh_option(option)]
    lines = [f"{_zsh_name(command.path)}() {{"]
    if not command.commands:
        if command.operand is not None:
            operand = f"*:{_zsh_escape(command.operand.metavar)}:{_zsh_action(command.operand)}"
            specs.append(_zsh_quote(operand))
        arguments = " \\\n        ".join(("_arguments -S", *specs))
        return "\n".join((*lines, f"    {arguments}", "}"))
    words = " ".join((*command.path, "command"))
    described = [
        _zsh_quote(name.replace(":", "\\:") + ":" + summary(sub.help))
        for sub in command.commands
        for name in (sub.path[-1], *sub.aliases)
    ]
    branches = [
        f"                ({'|'.join((sub.path[-1], *sub.aliases))}) {_zsh_name(sub.path)} ;;"
        for sub in command.commands
    ]
    lines += [
        "    local curcontext=$curcontext state state_descr line",
        "    typeset -A opt_args",
        "    _arguments -C -S \\",
        *(f"        {spec} \\" for spec in specs),
        "        ': :->command' \\",
        "        '*:: :->argument' && return",
        "    case $state in",
        "        (command)",
        "            local -a commands",
        "            commands=(",
        *(f"                {item}" for item in described),
        "            )",
        f"            _describe -t commands {_zsh_quote('policy ' + words)} commands ;;",
        "        (argument)",
        "            case $words[1] in",
        *branches,
        "            esac ;;",
        "    esac",
        "}",
    ]
    return "\n".join(lines)


def _zsh_option(option: Option) -> Iterator[str]:
    """The _arguments specs of an option, one per spelling, each excluding the others (unless the
    option may be repeated)."""
    exclusion = f"({' '.join(option.flags)})" if len(option.flags) > 1 and not option.repeatable else ""
    star = "*" if option.repeatable else ""
    for flag in option.flags:
        if option.value is None:
            suffix = value = ""
        else:
            suffix = "=" if flag.startswith("--") else "+"
            value = f":{_zsh_escape(option.value.metavar)}:{_zsh_action(option.value)}"
        yield f"{exclusion}{star}{flag}{suffix}[{_zsh_escape(summary(option.help))}]{value}"


def _zsh_action(value: Value) -> str:
    if value.choices:
        return "(" + " ".join(re.sub(r"([\\() ])", r"\\\1", choice) for choice in value.choices) + ")"
    return "_files -/" if value.directory else "_files"


def _zsh_escape(text: str) -> str:
    """Text inside an _arguments spec, where ``[``, ``]`` and ``:`` delimit."""
    return re.sub(r"([\\\[\]:])", r"\\\1", text)


def _zsh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


_ZSH = """\
#compdef policy
# zsh completion for policy (policy-engine {version}), printed by `policy completions zsh`.
# Load it in ~/.zshrc, after compinit, with: source <(policy completions zsh)
# or save it as _policy in a directory of $fpath.

{functions}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _policy "$@"
else
    compdef _policy policy
fi
"""


# ---- fish -----------------------------------------------------------------------------------------
# fish completes by conditions: each line applies where __policy_at says the command path is the
# line's. The path is read from the command line the way bash's _policy reads it.


def fish_script(tree: Command) -> str:
    canonical, values, lines = [], [], []
    for command in tree.walk():
        path = " ".join(command.path)  # by names alone: __policy_path maps an alias to its command
        at = f"-n {_fish_quote('__policy_at ' + _fish_quote(path))}"
        for sub in command.commands:
            patterns = " ".join(_fish_quote(f"{path}:{name}") for name in (sub.path[-1], *sub.aliases))
            canonical.append(
                f"        case {patterns}\n            echo {_fish_quote(sub.path[-1])}\n            return 0"
            )
            for name in (sub.path[-1], *sub.aliases):
                lines.append(
                    f"complete -c policy {at} -a {_fish_quote(name)} -d {_fish_quote(summary(sub.help))}"
                )
        for option in command.options:
            if option.value is not None:
                patterns = " ".join(_fish_quote(f"{path}:{flag}") for flag in option.flags)
                values.append(f"        case {patterns}\n            return 0")
            lines.append(f"complete -c policy {at} {_fish_option(option)}")
        if command.operand is not None and not command.commands:
            lines.append(f"complete -c policy {at} {_fish_takes(command.operand)}")
    return _FISH.format(
        version=__version__,
        canonical="\n".join(canonical),
        values="\n".join(values),
        lines="\n".join(lines),
    )


def _fish_option(option: Option) -> str:
    parts = []
    for flag in option.flags:
        if flag.startswith("--"):
            parts.append(f"-l {_fish_quote(flag[2:])}")
        elif len(flag) == 2:
            parts.append(f"-s {_fish_quote(flag[1:])}")
        else:
            parts.append(f"-o {_fish_quote(flag[1:])}")
    if option.value is not None:
        parts.append(_fish_takes(option.value))
    parts.append(f"-d {_fish_quote(summary(option.help))}")
    return " ".join(parts)


def _fish_takes(value: Value) -> str:
    """The completion of a value: its choices, directories, or (``-F``) files."""
    if value.choices:
        return f"-x -a {_fish_quote(' '.join(value.choices))}"
    return "-x -a '(__fish_complete_directories)'" if value.directory else "-r -F"


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


_FISH = """\
# fish completion for policy (policy-engine {version}), printed by `policy completions fish`.
# Install it with: policy completions fish > ~/.config/fish/completions/policy.fish

function __policy_command --argument-names path word --description 'the command word names at path'
    switch "$path:$word"
{canonical}
    end
    return 1
end

function __policy_takes_value --argument-names path option --description 'whether option takes a value'
    switch "$path:$option"
{values}
    end
    return 1
end

function __policy_path --description 'the policy command path before the cursor ("log tail")'
    set -l path
    set -l skip 0
    set -l words (commandline -opc)
    set -e words[1]
    for word in $words
        if test $skip = 1
            set skip 0
            continue
        end
        switch $word
            case --
                break
            case '-*=*'
                continue
            case '-*'
                __policy_takes_value "$path" $word; and set skip 1
                continue
        end
        set -l name (__policy_command "$path" $word)
        and set path (string trim -- "$path $name")
    end
    echo $path
end

function __policy_at --argument-names path --description 'whether the command path is path'
    set -l here (__policy_path)
    test "$here" = "$path"
end

complete -c policy -f
{lines}
"""


WRITERS: dict[str, Callable[[Command], str]] = {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}


def _add_completions(commands: Any) -> None:
    parser = commands.add_parser(
        "completions",
        formatter_class=HelpFormatter,
        help="print the shell completion script of bash, zsh or fish",
        description="Print the completion script of SHELL, written from this policy's commands and\n"
        "options: print it again after an upgrade.",
        epilog="load it:\n"
        '  bash: eval "$(policy completions bash)"      in ~/.bashrc\n'
        "  zsh:  source <(policy completions zsh)       in ~/.zshrc, after compinit (or save it as\n"
        "                                               _policy in a directory of $fpath)\n"
        "  fish: policy completions fish > ~/.config/fish/completions/policy.fish\n",
    )
    parser.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")


def run_completions(args: argparse.Namespace) -> int:
    from . import build_parser

    sys.stdout.write(WRITERS[args.shell](command_tree(build_parser())))
    return 0


COMMANDS: Commands = {"completions": (_add_completions, run_completions)}
