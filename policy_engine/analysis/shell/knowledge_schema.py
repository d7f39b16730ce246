"""The schema of ``commands.jsonc``, the command knowledge (pydantic; used only when it is compiled).

A command's **operands** are its non-option arguments; each has a sense: ``read``, ``write``,
``delete``, ``exec`` (runs the file), ``unknown`` (only path-like operands count, with no known
sense) or ``text`` (not paths at all), or names a shell variable: ``variable`` (test -v, unset) or
``assigns`` (a variable the command sets: read, printf -v). Options are given GNU-style (``-o FILE``,
``-oFILE``, ``--output=FILE``, ``--output FILE``), or Go-style with ``singleDash``, and mean what
their entry says.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, field_validator

Sense = Literal["read", "write", "delete", "exec", "unknown"]
OperandKind = Literal["read", "write", "delete", "exec", "unknown", "text", "variable", "assigns"]
Takes = Literal[
    "value",
    "read",
    "write",
    "delete",
    "exec",
    "cwd",
    "into",
    "code",
    "command",
    "source",
    "module",
    "variable",
    "assigns",
    "list",
]
# How a command walks a directory it is given, as a Walk is spelt in data (model.parse_walk); all:*
# walks every file in search of names it was given but the analysis cannot read (rg --type-add).
Tree = Literal["all", "all:*", "visible", "follow"]
# A shell variable's name: bash evaluates an array subscript in it as arithmetic, running its command
# substitutions (test -v 'a[$(cmd)]' runs cmd); a command that sets a dangerous variable (read PATH)
# changes what later commands run.
VARIABLE_KINDS = (
    "a variable name (variable: test -v, unset), or a name the command sets (assigns: read, printf -v, "
    "mapfile): a subscript holding $ or a backtick, a name computed at run time, and for assigns a "
    "dangerousVariables name, are doubts"
)


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", populate_by_name=True)


class Option(_Strict):
    """What an option means, when a single word (``OptionKind``) does not say enough."""

    takes: Takes | None = Field(
        default=None,
        description="The option's argument: a plain value, a path with a sense, a directory that "
        "relative paths (cwd) or the command's effect (into) are taken from, shell code (code), "
        "a command made of the remaining words (command), a file that holds the names of the files the "
        "command reads (list: --files0-from, -T; the names are data no analysis sees, a doubt), "
        "a program in the interpreter's language "
        f"(source: python -c), a module the interpreter runs (module: python -m), or {VARIABLE_KINDS}. "
        "Absent: a flag.",
    )
    before: int = Field(
        default=0,
        description="Plain words the option takes before its argument (jq --rawfile NAME FILE: 1, "
        "--arg NAME VALUE: 1); an attached value (--opt=x) is the first of them.",
    )
    tree: Tree | None = Field(
        default=None,
        description="The option's path is walked whole, as an entry's tree (pytest --basetemp DIR "
        "deletes everything under DIR).",
    )
    override: bool = Field(
        default=False,
        description="Its set applies after every other option's, wherever it stands (git apply "
        "--apply turns applying back on, before or after --check).",
    )
    names: bool = Field(
        default=False,
        description="Its value is a glob of the file names a tree walk is limited to, hidden ones "
        "included (rg -g '*.py' reads the .py files, and -g '.env*' the hidden .env); a glob "
        "starting with ! only excludes. One that also sets tree all (rg --iglob, matched without "
        "case) keeps the walk whole.",
    )
    excludes: Literal["files", "directories", "both"] | None = Field(
        default=None,
        description="Its value is a glob of the names a tree walk skips: files (grep --exclude), "
        "directories, whose contents it skips too (grep --exclude-dir), or both. It is a pattern, "
        "never judged as a path.",
    )
    pattern: bool = Field(
        default=False,
        description="Its value is a pattern or search string (grep -e, --exclude=GLOB), not a name: "
        "it is never judged as a path, even when it spells a protected one.",
    )
    rest: bool = Field(
        default=False, description="The words after the option's argument belong to the program it names."
    )
    optional: bool = Field(default=False, description="The argument is only given attached (-i.bak, --x=y).")
    set: Entry | None = Field(
        default=None, description="Fields of the command's entry that change when the option is present."
    )
    doubt: str | None = Field(default=None, description="Why the option makes the command unprovable.")
    harmless: str | None = Field(
        default=None,
        description="A regular expression (Python, matched whole): a static value it matches makes "
        "no doubt (git -c color.ui=never sets nothing that runs).",
    )
    atFile: Sense | None = Field(
        default=None,
        description="A value @FILE, NAME@FILE (the @ before any =), NAME=@FILE or NAME=<FILE names a "
        "file touched so (curl -d @file, --data-urlencode name@file, -F field=<file).",
    )
    aliases: list[str] = Field(
        default_factory=list,
        description="The option's other spellings (git push --force: -f), read as this option by the "
        "analysis and by policy patterns alike (deny `git push --force*` matches `git push -f`). An "
        "alias must not be an option of its own beside it.",
    )

    @field_validator("aliases")
    @classmethod
    def _option_names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not re.fullmatch(r"--?[^\s=-][^\s=]*", name):
                raise ValueError(f"{name!r} is not an option name (-x, --name)")
        return value


# A single word: "flag" (no argument), or what ``Option.takes`` says the argument is.
OptionKind = Literal["flag", Takes]


def _regular_expression(value: str) -> str:
    try:
        re.compile(value)
    except re.error as error:
        raise ValueError(f"not a regular expression: {error}") from None
    return value


class DoubtWord(_Strict):
    """Words that make the command unprovable when they match a pattern (tmux's `;`, jq's `$ENV`)."""

    match: str = Field(description="A regular expression (Python syntax), searched in each word.")
    doubt: str = Field(description="Why a word it matches makes the command unprovable.")
    first: int | None = Field(
        default=None,
        description="Only the first N operands are searched (jq's filter: 1). Absent: every argument "
        "word as written and every option's value (tmux ls -a\\; and --file=- alike).",
    )

    _compiles = field_validator("match")(_regular_expression)


class ConfigCheck(_Strict):
    """Configuration files a command reads that can make it write or run something (ruff.toml with
    fix = true): found in its directory or above it, or under the trees it reads."""

    names: list[str] = Field(description="File names (ruff.toml, pyproject.toml).")
    home: list[str] = Field(
        default_factory=list, description="Files read wherever the command runs (~/.config/ruff/ruff.toml)."
    )
    match: str = Field(description="A regular expression (Python, multiline) of the settings that do.")
    doubt: str = Field(description="What such a setting makes the command do.")

    _compiles = field_validator("match")(_regular_expression)


class Wrapper(_Strict):
    """A command that runs another command given in its arguments."""

    judge: bool = Field(default=False, description="The wrapper is judged too (sudo: privilege).")
    positionals: int = Field(default=0, description="Arguments before the command (timeout's duration).")
    positionalSense: Sense | None = Field(
        default=None,
        description="How the positional arguments that name files are touched (flock's lock file, "
        "created when it is missing: write); a number (a file descriptor) names none.",
    )
    assignments: bool = Field(default=False, description="NAME=value words may come first (env).")
    stdin: bool = Field(default=False, description="The command's operands come from input (xargs).")
    listed: bool = Field(
        default=False,
        description="Input that lists paths (find . | xargs ...) gives the operands: they are appended, "
        "or put where the replace string (-I) stands; an option that reads them from elsewhere "
        "(-a) keeps them unknown.",
    )
    shellString: bool = Field(default=False, description="The remaining words are run as shell code (watch).")
    end: list[str] = Field(
        default_factory=list, description="Words after which come the command's arguments (parallel's :::)."
    )
    alone: str | None = Field(default=None, description="Why it is in doubt when it runs no command (env).")
    interpreters: bool = Field(
        default=False,
        description="Only an interpreter is looked through (uv run python -c CODE); any other command "
        "it runs is judged by the wrapper's own words (uv run pytest).",
    )


class Entry(_Strict):
    """Knowledge about one command (or subcommand)."""

    description: str | None = None
    operands: OperandKind = Field(
        default="unknown",
        description=f"What the operands are: a path with a sense, text, or {VARIABLE_KINDS}.",
    )
    skip: int = Field(default=0, description="Leading operands that are not paths (a pattern, a mode).")
    last: Sense | None = Field(
        default=None, description="Sense of the last operand when there are two or more."
    )
    implicit: Sense | None = Field(
        default=None, description="Without path operands, the command touches its directory so (ls)."
    )
    effect: Sense | None = Field(
        default=None, description="Whatever its operands, the command touches its directory so (git commit)."
    )
    withOperands: Sense | None = Field(
        default=None, description="With at least one operand, the command touches its directory so."
    )
    keyed: dict[str, Sense] = Field(default_factory=dict, description="key=PATH operands (dd's if=, of=).")
    remote: bool = Field(
        default=False,
        description="host:path operands are remote, not local (scp, rsync): the command talks to "
        "another machine, and sends it the local files when one is the destination (the last of two "
        "or more), so it is never proven to only read.",
    )
    oldStyle: bool = Field(
        default=False, description="A first argument without '-' is a cluster of options (tar xzf)."
    )
    options: dict[str, OptionKind | Option] = Field(default_factory=dict)
    subcommands: dict[str, Entry | str] | None = Field(
        default=None,
        description='The first operand names a subcommand; "*" is any other subcommand. A string '
        "value names a sibling subcommand whose entry it shares (git show is like git log).",
    )
    doubt: str | None = Field(default=None, description="Why this command can never be proven safe.")
    interactive: str | None = Field(
        default=None,
        description="What the command does with keystrokes on a terminal (a pager runs !cmd): a doubt "
        "only for an agent that can type into the commands it runs (Codex's write_stdin); where "
        "output is not a terminal, or only a person can type, the command just reads.",
    )
    unproven: str | None = Field(
        default=None,
        description="Why this command is never proven to only read, though nothing is in doubt: rules "
        "that name it still judge it, readOnly rules do not cover it (sudo runs as another user, whose "
        "files the protections do not describe; history -c changes the shell's history).",
    )
    wrapper: Wrapper | None = None
    shell: bool = Field(
        default=False, description="A shell: -c CODE, a script, or commands on standard input."
    )
    interpreter: str | None = Field(
        default=None,
        description="The language of the programs this command runs: inline (an option that takes "
        "source, or the operand at `source`), on standard input, or from a script operand.",
    )
    source: int | None = Field(
        default=None, description="Index of the operand that is a program (deno eval)."
    )
    modules: dict[str, Entry | str] = Field(
        default_factory=dict,
        description="Modules run with the interpreter's module option (python -m pytest), judged as the "
        "command named or by the entry given; any other module is in doubt.",
    )
    program: Literal["sed", "awk"] | None = Field(
        default=None, description="The first operand (or -e/-f) is a program whose effects are checked."
    )
    find: bool = Field(default=False, description="find's syntax: roots, then an expression with actions.")
    tests: list[str] = Field(
        default_factory=list,
        description="find's tests: before an action, they narrow the files it acts on, so the action "
        "no longer covers the roots' whole trees, and {} stands for files under a root.",
    )
    code: int | None = Field(default=None, description="Index of the operand that is shell code (trap).")
    aliases: bool = Field(
        default=False, description="Operands are name=value with shell code values (alias)."
    )
    variables: bool = Field(
        default=False, description="Operands name environment variables: a secret-looking one is a doubt."
    )
    bare: str | None = Field(default=None, description="Why it is in doubt without operands (printenv).")
    dashDash: Sense | None = Field(
        default=None,
        description="Sense of the operands after --, which are paths (git diff -- FILE), walked "
        "whole when the entry has a tree.",
    )
    revisions: Sense | None = Field(
        default=None,
        description="An operand REV:PATH or :PATH (:N:PATH) names a file of a git revision or of the "
        "index: PATH (./PATH alike) is touched so, taken from the working directory (git show "
        "HEAD:.env reads .env). :/TEXT, a commit message search, names no file.",
    )
    doubtWords: list[DoubtWord] = Field(
        default_factory=list,
        description="Words that make the command unprovable, each with why: an argument matching the "
        "pattern, or one computed at run time (tmux runs the commands after a `;` argument; jq's "
        "filter `$ENV` prints the environment). Checked for plain commands and, on every word, for "
        "commands with subcommands.",
    )
    posix: bool = Field(
        default=False,
        description="Options end at the first operand: the words after it belong to what it names "
        "(docker run IMAGE CMD...: the command's options are not docker's).",
    )
    singleDash: bool = Field(
        default=False,
        description="Options are whole words after one dash, as Go's flags: -name, -name=value, "
        "-name value (or with two dashes), never clusters of letters, never abbreviated.",
    )
    openOperands: bool = Field(
        default=False,
        description="Operands are opened by Perl's two-argument open (perl -n, -p): a leading or "
        "trailing | runs a command, a leading < or > is a mode; such an operand is a doubt.",
    )
    tree: Tree | None = Field(
        default=None,
        description="A directory operand is walked whole: everything under it is touched with the "
        "operand's sense (grep -r, rm -r, cp -r); visible: hidden entries are skipped (rg); follow: "
        "and where the symbolic links inside lead (grep -R, rg -L, cp -rL). The last operand, when it "
        "has a sense of its own (cp's destination), is not walked.",
    )
    responseFiles: bool = Field(
        default=False,
        description="An argument @FILE stands for the arguments written in FILE (binutils, javac): "
        "they are data no analysis sees, a doubt.",
    )
    documents: Literal["xml"] | None = Field(
        default=None,
        description="The files it reads are XML documents, which can name other files it loads "
        "(a DOCTYPE with SYSTEM or PUBLIC, an ENTITY, an XInclude): such a document is a doubt.",
    )
    configs: list[ConfigCheck] = Field(
        default_factory=list,
        description="Configuration files whose settings can make it write or run something.",
    )
    repository: bool = Field(
        default=False,
        description="git: the repository found from the working directory must be a .git "
        "directory, or a linked worktree's or submodule's under one (a .git file naming another "
        "directory, a bare repository or commondir elsewhere have a configuration no protection "
        "guards, which can run programs): otherwise a doubt.",
    )
    dashOperands: bool = Field(
        default=False,
        description="A word starting with a dash that is not one of its options is an operand, "
        "never an option (echo -x prints -x; test -f FILE is an expression).",
    )
    numeric: bool = Field(
        default=False, description="-NUM is a count, an option of its own (head -20, git log -5)."
    )
    linkTargets: bool = Field(
        default=False,
        description="Operands but the last are link targets, relative to the link (ln -s); a lone "
        "target makes a link of its own name in the working directory (ln -s ../x writes ./x).",
    )


Option.model_rebuild()
Entry.model_rebuild()


class Examples(_Strict):
    """Command lines the analysis must judge as said (tests/unit/test_knowledge.py runs each one):
    data for the tests, never compiled into the knowledge a hook loads."""

    readOnly: list[str] = Field(
        default_factory=list,
        description="Lines proven to only read: every command in them reads, with no doubt (sort data.txt).",
    )
    notReadOnly: list[str] = Field(
        default_factory=list,
        description="Lines never proven to only read: they write, delete, run a program, talk to "
        "another machine or are in doubt (sort -o out data.txt).",
    )


class CommandEntry(Entry):
    """A command's entry in ``commands``: an ``Entry`` with the examples of its use."""

    examples: Examples | None = Field(
        default=None,
        description="Lines that name this command (or an alias of it), each judged read-only or "
        "not as it says, by the tests; stripped when the knowledge is compiled.",
    )


class KnowledgeFile(_Strict):
    """``commands.jsonc``."""

    commands: dict[str, CommandEntry]
    aliases: dict[str, str] = Field(default_factory=dict, description="Command names that share an entry.")
    dangerousVariables: dict[str, list[str] | None] = Field(
        default_factory=dict,
        description="Variables that change what a command runs; a list names values that are safe. "
        'A trailing "*" matches a prefix (GIT_*).',
    )
    binDirectories: list[str] = Field(default_factory=list, description="/bin/rm is judged as rm.")
    secretVariables: list[str] = Field(
        default_factory=list, description="Globs (case-insensitive) of variable names that hold secrets."
    )


class HarmlessOptions(_Strict):
    """The options of one command (or subcommand) that its own documentation lists and that only
    change what it prints or how it reads (``harmless/*.jsonc``); anything else it lists is given
    a meaning in commands.jsonc, or in ``options`` here when it is new."""

    flags: str | list[str] = Field(
        default="", description="Options without an argument, separated by spaces (or lines of them)."
    )
    values: str | list[str] = Field(
        default="", description="Options with a plain argument (not a path), separated by spaces (or lines)."
    )
    options: dict[str, OptionKind | Option] = Field(
        default_factory=dict, description="Options with a meaning of their own, as in commands.jsonc."
    )
    source: str | None = Field(default=None, description="Where the list was checked, when not in options/.")

    @field_validator("flags", "values")
    @classmethod
    def _names(cls, value: str | list[str]) -> str:
        value = " ".join(value) if isinstance(value, list) else value
        for name in value.split():
            if not re.fullmatch(r"--?[^\s=]+", name):
                raise ValueError(f"{name!r} is not an option name (-x, --name)")
        return value


class HarmlessFile(RootModel[dict[str, HarmlessOptions]]):
    """A ``harmless/*.jsonc`` file: command path (``sort``, ``git log``) -> its harmless options."""
