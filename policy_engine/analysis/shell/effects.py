"""What one simple command does, from the command knowledge: the paths it reads, writes, deletes or
runs, the commands and shell code it runs in turn, and what cannot be proven.

Everything a command does is looked up in its entry of ``commands.jsonc`` (see
``knowledge_schema.py``); the functions here only read that data. A command that is not known still
touches its working directory in an unknown way, so that no read-only rule can ever cover it.
"""

from __future__ import annotations

import os.path
import re

from ... import paths
from ...model import (
    EVERY_NAME,
    WHOLE_TREE,
    Access,
    Sense,
    TreeKind,
    Walk,
    as_walk,
    walk_excluding,
    walk_naming,
)
from ...paths import collapse, fold, mentioned_paths
from .arguments import Argument, parse_arguments
from .collect import (
    MAX_GLOB_MATCHES,
    SENSES,
    Collector,
    Context,
    Effects,
    Run,
    expand_glob,
    locate,
    path_like,
)
from .find import find_effects
from .knowledge import Knowledge
from .sedawk import awk_program, sed_script
from .words import GLOB_CHARACTERS, Word

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any


def _merged(entry: dict[str, Any], parsed: list[Argument]) -> dict[str, Any]:
    """The entry with the changes of the options present (``sed -i`` makes operands writes), in
    order, those that override the others last (``git apply --apply``)."""
    parsed = [a for a in parsed if a.option is not None]  # an operand's spec changes nothing
    for argument in sorted(parsed, key=lambda a: bool(a.spec.get("override"))):
        change = argument.spec.get("set")
        if change:
            options = {**entry.get("options", {}), **change.get("options", {})}
            entry = {**entry, **change, "options": options}
    named = [a for a in parsed if a.spec.get("names")]
    included = [a.value for a in named if a.value is not None and not a.value.text.startswith("!")]
    if any((a.spec.get("set") or {}).get("tree") == "all" for a in named):
        entry = {**entry, "tree": EVERY_NAME}  # globs matched without case (rg --iglob): every name
    elif included:  # only the files so named are read, hidden or not
        entry = {**entry, "tree": walk_naming([g.text if g.static else None for g in included])}
    skipped = [
        (a.value, a.spec.get("excludes") or "both")
        for a in parsed
        if a.value is not None
        and (a.spec.get("excludes") or (a.spec.get("names") and a.value.text.startswith("!")))
    ]
    if skipped and entry.get("tree"):  # what the walk skips is not read (grep --exclude='.env*')
        entry = {
            **entry,
            "tree": walk_excluding(
                as_walk(entry["tree"]) or WHOLE_TREE,
                [(w.text.removeprefix("!") if w.static else None, what) for w, what in skipped],
            ),
        }
    return entry


def _parse(
    entry: dict[str, Any], words: list[Word], posix: bool
) -> tuple[dict[str, Any], list[Argument], list[Word]]:
    parsed, rest = _arguments(entry, words, posix)
    changed = _merged(entry, parsed)
    if changed is not entry:
        parsed, rest = _arguments(changed, words, posix)
    return changed, parsed, rest


def _arguments(entry: dict[str, Any], words: list[Word], posix: bool) -> tuple[list[Argument], list[Word]]:
    return parse_arguments(
        words,
        entry.get("options", {}),
        posix=posix,
        old_style=entry.get("oldStyle", False),
        single_dash=entry.get("singleDash", False),
        dash_operands=entry.get("dashOperands", False),
        numeric=entry.get("numeric", False),
        plain_options=entry.get("plainOptions", False),
    )


def _unlisted(collect: Collector, parsed: list[Argument]) -> None:
    """Why the options are not proven to only read: one the knowledge does not list (a new
    option, a negation such as --no-dry-run, a long spelling it does not give), or an operand bash
    computes that may start with a dash (`sort *` where a file is named --files0-from=x)."""
    for argument in parsed:
        if argument.spec.get("unknown"):
            collect.unproven.append(f"`{argument.option}` is an option the command knowledge does not list")
        elif argument.option is None and not argument.separated and not argument.spec.get("text"):
            why = _may_be_option(argument.word, collect.context)
            if why is not None:
                collect.unproven.append(why)


def _may_be_option(word: Word, context: Context) -> str | None:
    """Why the operand ``word`` may reach the command as an option, or None: a substitution or a
    glob at its start (no literal anchor such as ./ or src/) can produce a leading dash. A glob
    matches what is there now, so it is only trusted when no earlier command of the line can have
    changed the files, and none of its matches starts with a dash."""
    raw = word.raw.lstrip("\"'")
    if word.walk is not None:  # its producer prints no name starting with - (producers.py)
        if context.settled:
            return None
        return f"`{word.raw}` lists files an earlier command of the line may have named as options"
    if not word.static:
        if raw[:1] in ("$", "`"):
            return f"`{word.raw}` is computed at run time and may start with - (an option): put -- before it"
        return None
    if not word.glob or word.text[:1] not in GLOB_CHARACTERS:
        return None
    advice = "put -- before it, or ./ in front of it"
    if not context.settled or context.cwd is None:
        return f"`{word.raw}` may match a file whose name starts with - (an option): {advice}"
    matches = expand_glob(word.text, context.cwd)
    dashed = next((m for m in matches if m.startswith("-")), None)
    if dashed is not None or len(matches) > MAX_GLOB_MATCHES:
        shown = f" (`{dashed}`)" if dashed else ""
        return f"`{word.raw}` matches a file whose name starts with -{shown}, read as an option: {advice}"
    return None


def command_effects(name: str, entry: dict[str, Any] | None, words: list[Word], context: Context) -> Effects:
    """The effects of the command ``words`` (``words[0]`` is its name, resolved to ``name``)."""
    collect = Collector(context)
    if entry is None:  # nothing is known: it may do anything where it runs
        collect.directory(context.cwd, "unknown")
        for word in words[1:]:
            if not word.static:
                continue
            value = word.text.partition("=")[2] if "=" in word.text else word.text
            if path_like(value):  # an operand, --option=PATH or key=PATH
                collect.path(Word(value, True, word.glob, word.raw), "unknown", context.cwd)
        return collect.effects()
    _entry(collect, entry, words[1:], context.cwd)
    wrapper = entry.get("wrapper")
    transparent = (wrapper is not None and not wrapper.get("judge")) or bool(entry.get("shell"))
    return collect.effects(atom=not transparent)


def _entry(collect: Collector, entry: dict[str, Any], args: list[Word], cwd: str | None) -> None:
    if entry.get("wrapper") is not None:
        merged, parsed, rest = _parse(entry, args, posix=True)
        if merged.get("wrapper") is not None:
            _doubt(collect, merged)
            _wrapper(collect, merged, parsed, rest, cwd)
            return
        entry = merged  # an option made it an ordinary command (command -v)
    if (
        not entry.get("subcommands")
        and not entry.get("find")
        and not entry.get("shell")
        and not entry.get("interpreter")
    ):
        _plain(collect, entry, args, cwd)
        return
    _doubt(collect, entry)
    if entry.get("shell"):
        _shell(collect, entry, args, cwd)
    elif entry.get("find"):
        find_effects(collect, entry, args, cwd)
    elif entry.get("subcommands"):  # bun run, bun -e: the interpreter's options come first
        _subcommand(collect, entry, args, cwd)
    else:
        _interpreter(collect, entry, args, cwd)


def _doubt(collect: Collector, entry: dict[str, Any]) -> None:
    if entry.get("doubt"):
        collect.doubts.append(entry["doubt"])
    if entry.get("interactive"):
        collect.interactive.append(entry["interactive"])
    if entry.get("unproven"):  # sudo: nothing in doubt, but no readOnly rule may cover it
        collect.unproven.append(entry["unproven"])


def _option_paths(
    collect: Collector, parsed: list[Argument], cwd: str | None, language: str | None = None
) -> tuple[str | None, str | None]:
    """Accesses and doubts of the options, and the programs they give in ``language``; returns
    (working directory, directory effects land in)."""
    directory = into = cwd
    _unlisted(collect, parsed)
    for argument in parsed:
        if argument.option is None:  # an operand: accessed as the entry says, not here
            continue
        spec, value = argument.spec, argument.value
        if spec.get("doubt") and not _harmless(spec, value):
            collect.doubts.append(spec["doubt"])
        takes = spec.get("takes")
        if spec.get("unknown") and value is not None and path_like(value.text):
            collect.path(value, "unknown", directory)
        if spec.get("atFile") and value is not None:
            _at_file(collect, value, spec["atFile"], directory)
        if value is None or takes in (None, "value", "command", "module"):
            continue
        if takes in ("variable", "assigns"):
            _variable(collect, value, takes == "assigns")
        elif takes in ("cwd", "into"):
            accesses, doubt = locate(value, Sense.READ, directory)
            target = accesses[0].path if accesses else None
            if doubt:
                collect.doubts.append(doubt)
            if takes == "cwd":
                directory = into = target
            else:
                into = target
        elif takes == "code":
            collect.code(value, directory, f"the code given to {argument.option}")
        elif takes == "list":  # the names inside are data: any file at all may be read
            collect.path(value, "read", directory)
            collect.doubts.append(
                f"{argument.option} reads the names of the files to read from `{value.text}`, "
                "which this analysis does not see"
            )
        elif takes == "source":
            collect.source(value.text if value.static else None, language or "unknown", directory)
        else:
            collect.path(value, takes, directory, spec.get("tree"))
    return directory, into


def _mentions(
    collect: Collector,
    entry: dict[str, Any],
    parsed: list[Argument],
    rest: list[Word],
    directory: str | None,
) -> None:
    """The paths the command's words spell that are not its known accesses: text operands and option
    values, but not the patterns and search strings (grep's PATTERN, --exclude=GLOB). A name can
    travel as data (`printf '%s\0' ~/.ssh/id_rsa | sort --files0-from=-`), so each is checked
    against pathProtection as a touch of unknown sense."""
    if directory is None:
        return
    skip = entry.get("skip", 0)
    operand = 0
    words = []
    for argument in parsed:
        if argument.option is None:
            operand += 1
            if operand > skip:
                words.append(argument.word)
        elif argument.value is not None and not (
            argument.spec.get("pattern") or argument.spec.get("names") or argument.spec.get("excludes")
        ):
            words.append(argument.value)
    for word in [*words, *rest[max(skip - operand, 0) :]]:
        if word.static and not word.glob:
            collect.mentions += mentioned_paths(word.text, directory, collect.context.home)


def _response_files(collect: Collector, words: list[Word], directory: str | None) -> None:
    """``@FILE`` arguments: the command reads more arguments from FILE, which no analysis sees."""
    for word in words:
        if not word.static and word.raw.lstrip("\"'").startswith("@"):
            collect.doubts.append(f"`{word.raw}` may name a response file, computed at run time")
        elif word.static and word.text.startswith("@") and len(word.text) > 1:
            collect.path(Word(word.text[1:], True, word.glob, word.raw), "read", directory)
            collect.doubts.append(
                f"`{word.text}` reads more arguments from {word.text[1:]}, which are not analysed"
            )


def _variable(collect: Collector, word: Word, assigns: bool) -> None:
    collect.doubts += variable_doubts(word, collect.context.knowledge, assigns)


def variable_doubts(word: Word, knowledge: Knowledge, assigns: bool) -> list[str]:
    """The doubts of a word that names a shell variable (``test -v NAME``; ``read NAME`` when
    ``assigns``): bash evaluates a subscript in the name as arithmetic, running its command
    substitutions; setting a dangerous variable changes what later commands run. ``NAME=value``
    (declare) names NAME."""
    if not word.static:
        return [f"cannot tell which variable `{word.raw}` names (it is computed at run time)"]
    name, equals, value = word.text.partition("=")
    name = name.removesuffix("+")  # declare NAME+=value
    if "[" in name and ("$" in name or "`" in name):
        return [f"bash evaluates the subscript of {name} as arithmetic, running its command substitutions"]
    if assigns and knowledge.dangerous_variable(name, value if equals else None):
        return [f"sets {name}, which changes what later commands run"]
    return []


def _at_file(collect: Collector, value: Word, sense: str, directory: str | None) -> None:
    """A value that names a file, as curl's data options read one: ``@file``, ``name@file`` (the
    ``@`` before any ``=``: ``--data-urlencode``), ``name=@file`` or ``name=<file`` (``--form``).
    Where the option takes ``name@...`` as text (``-d user@host``) this reads a file too many, never
    one too few. A form's ``;type=...`` may follow the name: both spellings are judged."""
    if not value.static:
        collect.doubts.append(f"cannot tell whether `{value.raw}` names a file (it is computed at run time)")
        return
    text = value.text
    at, equals = text.find("@"), text.find("=")
    if at >= 0 and (equals < 0 or at < equals):
        target = text[at + 1 :]
    else:
        rest = text[equals + 1 :] if equals >= 0 else ""
        target = rest[1:] if rest[:1] in ("@", "<") else ""
    if not target or target == "-":
        return
    for name in dict.fromkeys((target.split(";", 1)[0], target)):
        if name:
            collect.path(Word(name, True, False, value.raw), sense, directory)


def _plain(collect: Collector, entry: dict[str, Any], args: list[Word], cwd: str | None) -> None:
    entry, parsed, rest = _parse(entry, args, posix=bool(entry.get("posix")))
    _doubt(collect, entry)
    directory, into = _option_paths(collect, parsed, cwd)
    operands = [a.word for a in parsed if a.option is None]
    _mentions(collect, entry, parsed, rest, directory)
    if rest and entry.get("posix") and not entry.get("plainOptions"):  # printf "$f": the word that ended
        why = _may_be_option(rest[0], collect.context)  # the options may be one itself
        if why is not None:
            collect.unproven.append(why)
    _doubt_words(collect, entry, operands, [*args, *(a.value for a in parsed if a.value is not None)])
    if entry.get("dashDash"):  # operands after -- are paths (git diff -- FILE)
        separated = [a.word for a in parsed if a.option is None and a.separated]
        for word in separated:
            collect.path(word, entry["dashDash"], directory, entry.get("tree"))
        operands = [a.word for a in parsed if a.option is None and not a.separated]
    if any(a.spec.get("takes") == "command" for a in parsed):  # fd -x CMD ...: the rest is a command
        _placeholder_command(collect, rest, directory)
        rest = []
    operands += rest
    if entry.get("program"):
        operands = _program(collect, entry["program"], parsed, operands, directory)
    if "code" in entry:
        _code_operand(collect, entry["code"], operands, directory)
        operands = []
    if entry.get("aliases"):
        for word in operands:
            name, equals, value = word.text.partition("=")
            if equals:
                collect.code(Word(value, word.static, False, word.raw), directory, f"the alias {name}")
        operands = []
    if entry.get("variables"):
        secret = collect.context.knowledge.secret_variable
        collect.doubts += [f"prints ${w.text}, which looks like a secret" for w in operands if secret(w.text)]
    if entry.get("bare") and not operands:
        collect.doubts.append(entry["bare"])
    # cp/mv/ln -T: the destination is the copy itself, never a directory the sources land in.
    whole = any("--no-target-directory" in _spellings(a) for a in parsed if a.option)
    found_path = _operands(collect, entry, operands, directory, whole)
    if entry.get("tree"):  # cp -r -t DIR SRC...: the trees land in DIR, as in a last operand
        for argument in parsed:
            change = argument.spec.get("set") or {}
            if (
                argument.value is not None
                and argument.spec.get("takes") == "write"
                and change.get("last", 0) is None
            ):
                _destination(collect, argument.value, operands, "write", directory, whole)
    if entry.get("responseFiles"):
        _response_files(collect, [*operands, *(a.value for a in parsed if a.value is not None)], directory)
    if entry.get("documents") or entry.get("configs"):
        from . import contents  # reads files: only for the few commands that need it

        read = [a.path for a in collect.accesses if a.sense is Sense.READ and not a.redirect]
        if entry.get("documents"):
            collect.doubts += contents.document_doubts(read, collect.context.stdin is not None)
        for check in entry.get("configs", ()):
            collect.doubts += contents.config_doubts(check, directory, read, collect.context.home)
    if entry.get("implicit") and not found_path:
        collect.directory(directory, entry["implicit"], entry.get("tree"))
    if entry.get("effect"):
        collect.directory(into, entry["effect"])
    if entry.get("withOperands") and operands:
        collect.directory(into, entry["withOperands"])


# How perl's <> opens a file operand: `cmd |` and `| cmd` run cmd, `>x` writes x.
_OPENS_A_PIPE = r"\s*[|<>+]|.*\|\s*$"  # compiled where used (re keeps it): off the hook's import


def _doubt_words(collect: Collector, entry: dict[str, Any], operands: list[Word], words: list[Word]) -> None:
    """The entry's doubtWords: among the first operands, or among all the ``words``."""
    computed: set[str] = set()  # a computed word is one doubt, whatever the rules
    for rule in entry.get("doubtWords", ()):
        first = rule.get("first")
        for word in operands[:first] if first is not None else words:
            if not word.static:
                if word.raw not in computed:
                    computed.add(word.raw)
                    collect.doubts.append(f"`{word.raw}` is computed at run time ({rule['doubt']})")
                break
            if re.search(rule["match"], word.text):
                collect.doubts.append(f"`{word.text}`: {rule['doubt']}")
                break


def _revision_path(text: str) -> str | None:
    """PATH in git's REV:PATH, :PATH or :N:PATH (./PATH: from the working directory too), else None;
    :/TEXT searches commit messages. A colon inside REV's @{...} (a date) does not count."""
    depth = 0
    for position, character in enumerate(text):
        if character == "{":
            depth += 1
        elif character == "}":
            depth = max(depth - 1, 0)
        elif character == ":" and depth == 0:
            path = text[position + 1 :]
            if position == 0 and path[:1] == "/":
                return None
            if position == 0 and path[:1] in "0123" and path[1:2] == ":":
                path = path[2:]
            path = path.removeprefix("./")
            return path or None
    return None


def _spellings(argument: Argument) -> tuple[str, ...]:
    return tuple(argument.spec.get("spellings") or (argument.option,))


def _operands(
    collect: Collector,
    entry: dict[str, Any],
    operands: list[Word],
    directory: str | None,
    whole: bool = False,
) -> bool:
    """Record the accesses of the operands; True when any operand is a path. ``whole``: the last
    operand is the destination itself, not a directory the others land in (cp -T)."""
    kind = entry.get("operands", "unknown")
    keyed = entry.get("keyed", {})
    remote = entry.get("remote", False)
    revisions = entry.get("revisions")
    opens = entry.get("openOperands")
    paths = []
    remote_sources = False  # scp host:f dir: the local destination is still the last operand
    for word in operands[entry.get("skip", 0) :]:
        if kind in ("variable", "assigns"):
            _variable(collect, word, kind == "assigns")
            continue
        key, equals, value = word.text.partition("=")
        if equals and key in keyed:
            collect.path(Word(value, word.static, word.glob, word.raw), keyed[key], directory)
            continue
        if revisions and word.static and (path := _revision_path(word.text)) is not None:
            collect.path(Word(path, True, word.glob, word.raw), revisions, directory)
            continue
        if revisions and not word.static and ":" in word.raw:  # "HEAD:$f"
            collect.doubts.append(f"cannot tell which file `{word.raw}` names (it is computed at run time)")
            continue
        if remote and word.static and ":" in word.text.split("/", 1)[0]:  # host:path: another machine
            sent = word is operands[-1] and len(operands) - entry.get("skip", 0) > 1
            what = "the local files are sent there" if sent else "the command talks to it"
            collect.unproven.append(f"`{word.text}` is on another machine: {what}")
            remote_sources = remote_sources or not sent
            continue
        if opens and (not word.static or re.match(_OPENS_A_PIPE, word.text, re.DOTALL)):
            what = "is computed at run time" if not word.static else "names a command or a mode"
            collect.doubts.append(f"`{word.raw}` {what}, and two-argument open would run or write it")
            continue
        paths.append(word)
    found = False
    last = entry.get("last")
    tree = entry.get("tree")
    targets_directory = _link_directory(paths, directory) if entry.get("linkTargets") else directory
    final = len(paths) - 1
    for index, word in enumerate(paths):
        is_last = index == final and (final > 0 or (remote_sources and word is operands[-1]))
        sense = last if last and is_last else kind
        if sense == "text" or (
            sense == "unknown" and not (word.static and path_like(word.text)) and word.static
        ):
            continue
        # A destination receives files; a destination of deletions (rsync --delete) loses any of them.
        # What a copied tree holds lands anywhere under its destination (`cp -r tpl/. .` writes
        # .git/config there): the destination is then a tree that is written ("into").
        if last == "write" and is_last and tree:
            _destination(collect, word, paths[:-1], sense, directory, whole)
            found = True
            continue
        collect.path(word, sense, directory if is_last or final == 0 else targets_directory, tree)
        found = True
    if last in ("write", "delete") and len(paths) > 1:
        _into_directory(collect, paths, last, directory)
    if entry.get("linkTargets") and len(paths) == 1 and last:  # ln -s ../x: the link is ./x
        _lone_link(collect, paths[0], last, directory)
    return found


def _lone_link(collect: Collector, target: Word, sense: str, directory: str | None) -> None:
    """``ln -s TARGET`` alone makes the link ``./NAME`` (NAME: the target's last part)."""
    if not target.static:
        collect.doubts.append(f"cannot tell which link `{target.raw}` makes (it is computed at run time)")
        return
    name = os.path.basename(target.text.rstrip("/")) or target.text
    collect.path(Word(name, True, target.glob, target.raw), sense, directory)


def _destination(
    collect: Collector,
    destination: Word,
    sources: list[Word],
    sense: str,
    directory: str | None,
    whole: bool,
) -> None:
    """The write of a tree copy's destination. A source that is a directory lands in the
    destination whole when it does not exist yet (or with -T), as ``DEST/NAME`` inside an existing
    directory, and its contents land in it itself for ``SRC/.``, a name the analysis cannot know,
    or a trailing slash (rsync's contents): each such place is a tree written ("into"), whatever
    the copied tree holds may overwrite what is there (`cp -r tpl/. .` writes .git/config)."""
    trees = [source for source in sources if _may_be_directory(source, directory)]
    if not trees:
        collect.path(destination, sense, directory)
        return
    located, _ = locate(destination, SENSES[sense], directory)
    existing = not whole and len(located) == 1 and os.path.isdir(located[0].path)
    landing = set()
    for source in trees:
        plain = source.static and not source.glob and not source.text.endswith(("/", "/.", "/.."))
        name = os.path.basename(source.text) if plain else ""
        if existing and name and name not in (".", ".."):
            landing.add(collapse(f"{located[0].path}/{name}"))
        else:
            landing.add("")
    if "" in landing or not existing:
        collect.path(destination, sense, directory, Walk(TreeKind.INTO))
    for place in sorted(p for p in landing if p):
        collect.accesses.append(Access(place, SENSES[sense], tree=Walk(TreeKind.INTO)))


def _may_be_directory(word: Word, directory: str | None) -> bool:
    """Whether an operand may name a directory: one that is there, a name spelled as one (``x/``,
    ``x/.``), or a name the analysis cannot know (computed, a pattern)."""
    if not word.static or word.glob or word.text.endswith(("/", "/.", "/..")) or word.text in (".", ".."):
        return True
    located, _ = locate(word, Sense.READ, directory)
    return any(os.path.isdir(access.path) for access in located) or not located


def _into_directory(collect: Collector, paths: list[Word], sense: str, directory: str | None) -> None:
    """``cp a b DIR/``: what lands in an existing directory (or one spelled with a trailing slash)
    is DIR/a and DIR/b, which a protection of DIR/a must see, not DIR alone."""
    destination = paths[-1]
    located, _ = locate(destination, SENSES[sense], directory)
    if len(located) != 1 or not (destination.text.endswith("/") or os.path.isdir(located[0].path)):
        return
    for source in paths[:-1]:
        # `src/` (rsync: its contents, not itself) and patterns name no one file that lands there
        plain = source.static and not source.glob and not source.text.endswith("/")
        name = os.path.basename(source.text) if plain else ""
        if name and name not in (".", ".."):
            collect.accesses.append(Access(collapse(f"{located[0].path}/{name}"), SENSES[sense]))


def _link_directory(paths: list[Word], directory: str | None) -> str | None:
    """Where the relative target of a symbolic link is taken from: the link's own directory."""
    if len(paths) < 2 or directory is None or not paths[-1].static:
        return directory
    link = collapse(paths[-1].text if paths[-1].text.startswith("/") else f"{directory}/{paths[-1].text}")
    return link if os.path.isdir(link) else os.path.dirname(link)


def _placeholder_command(collect: Collector, words: list[Word], directory: str | None) -> None:
    """A command run on every file found (fd -x): its ``{}``-style placeholders stand for files below
    the directory searched, judged at that directory."""
    end = next((i for i, w in enumerate(words) if w.text in (";", "\\;")), len(words))
    command = tuple(
        Word(".", True, False, w.raw) if w.static and "{" in w.text and "}" in w.text else w
        for w in words[:end]
    )
    if command:
        collect.runs.append(Run(command, None, directory))


def _code_operand(collect: Collector, index: int, operands: list[Word], directory: str | None) -> None:
    """The operand that is shell code (trap's first), or all of them joined (eval)."""
    if index < 0:
        if operands and all(w.static for w in operands):
            collect.code(" ".join(w.text for w in operands), directory, "the evaluated string")
        elif operands:
            collect.doubts.append("the evaluated string is computed at run time")
    elif index < len(operands) and not operands[index].text.startswith("-"):
        collect.code(operands[index], directory, "the code")


def _program(
    collect: Collector, language: str, parsed: list[Argument], operands: list[Word], directory: str | None
) -> list[Word]:
    """Check a sed or awk program; returns the operands that remain (the input files)."""
    scripts = [
        a.value
        for a in parsed
        if a.spec.get("takes") == "value" and a.option in ("-e", "--expression", "--source")
    ]
    if any(a.spec.get("takes") == "read" and a.option in ("-f", "--file") for a in parsed):
        collect.doubts.append(f"the {language} program comes from a file this analysis does not read")
    elif not scripts and operands:
        scripts, operands = [operands[0]], operands[1:]
    for script in scripts:
        if script is None or not script.static:
            collect.doubts.append(f"the {language} program is computed at run time")
            continue
        effects = sed_script(script.text) if language == "sed" else awk_program(script.text)
        for target in effects.reads:
            collect.path(Word(target, True, False, target), "read", directory)
        for target in effects.writes:
            collect.path(Word(target, True, False, target), "write", directory)
        for command in effects.commands:
            collect.code(command, directory, "the command")
        collect.doubts.extend(effects.doubts)
    if language == "awk":  # NAME=value operands are variable assignments, not files
        operands = [
            w for w in operands if not (w.static and "=" in w.text and w.text.split("=")[0].isidentifier())
        ]
    return operands


def _subcommand(collect: Collector, entry: dict[str, Any], args: list[Word], cwd: str | None) -> None:
    merged, parsed, rest = _parse(entry, args, posix=True)
    _doubt_words(collect, entry, [], args)  # on every word: those of the subcommand too (tmux ls \;)
    directory, into = _option_paths(collect, parsed, cwd, entry.get("interpreter"))
    if entry.get("repository") and directory is not None:
        from .contents import repository_doubts

        collect.doubts += repository_doubts(directory)
    if any(a.spec.get("takes") == "source" for a in parsed):  # bun -e CODE ARGS: no subcommand follows
        _handed(collect, rest, directory)
        return
    if merged is not entry:  # an option before the subcommand changed the command (git --no-pager...)
        if merged.get("doubt") and merged.get("doubt") != entry.get("doubt"):
            collect.doubts.append(merged["doubt"])
        if merged.get("effect"):
            collect.directory(into, merged["effect"])
    if not rest:
        base = {k: v for k, v in merged.items() if k not in ("subcommands", "doubt")}
        if parsed and all(a.option in _VERSION for a in parsed):  # tmux -V prints and starts nothing
            base.pop("bare", None)
        _plain(collect, base, [], directory)
        return
    name = rest[0]
    subcommands = entry["subcommands"]
    sub = subcommands.get(name.text) if name.static else None
    if sub is None:
        sub = subcommands.get("*")
        if sub is not None and sub.get("interpreter"):  # bun x.ts: the word is the script
            _entry(collect, sub, rest, directory)
            return
    if sub is None:
        collect.directory(directory, "unknown")
        for word in rest[1:]:
            if word.static and path_like(word.text):
                collect.path(word, "unknown", directory)
        return
    _entry(collect, sub, rest[1:], directory)


def _wrapper(
    collect: Collector, entry: dict[str, Any], parsed: list[Argument], rest: list[Word], cwd: str | None
) -> None:
    wrapper = entry["wrapper"]
    directory, _ = _option_paths(collect, parsed, cwd)
    if entry.get("effect"):  # uv run syncs the project's environment before it runs the command
        collect.directory(directory, entry["effect"])
    knowledge = collect.context.knowledge
    if wrapper.get("assignments"):
        while rest and rest[0].static and "=" in rest[0].text and rest[0].text.split("=")[0].isidentifier():
            name, _, value = rest[0].text.partition("=")
            if knowledge.dangerous_variable(name, value):
                collect.doubts.append(f"sets {name}, which changes what the command runs")
            rest = rest[1:]
    if wrapper.get("positionals"):  # options may follow them too (flock FILE -c CODE)
        sense = wrapper.get("positionalSense")
        for word in rest[: wrapper["positionals"]] if sense else ():
            if not (word.static and word.text.isdigit()):  # flock 9: a file descriptor, no file
                collect.path(word, sense, directory)
        rest = rest[wrapper["positionals"] :]
        more, rest = parse_arguments(rest, entry.get("options", {}), posix=True)
        directory, _ = _option_paths(collect, more, directory)
    ends = wrapper.get("end", [])
    cut = next((i for i, w in enumerate(rest) if w.static and w.text in ends), None)
    inputs = [w for w in rest[cut + 1 :] if not (w.static and w.text in ends)] if cut is not None else []
    rest = rest[:cut] if cut is not None else rest
    if cut is not None and not rest:  # parallel ::: 'cmd1' 'cmd2': every input is a command
        for word in inputs:
            collect.code(word, directory, "the command")
        return
    if not rest:
        runs_code = any(argument.spec.get("takes") == "code" for argument in parsed)  # env -S 'cmd'
        if wrapper.get("alone") and not runs_code:
            collect.doubts.append(wrapper["alone"])
        return
    if wrapper.get("interpreters"):
        name, is_file = resolve_name(rest[0], knowledge) if rest[0].static else ("", True)
        target = None if is_file else knowledge.entry(name)
        if target is None or not target.get("interpreter"):
            return
    unknown_input = wrapper.get("stdin") and cut is None
    if unknown_input and wrapper.get("listed"):
        given = _listed_operands(collect.context, parsed, rest)
        if given is not None:
            unknown_input, rest = False, given
    doubts = ("its arguments come from standard input, so what it runs is unknown",) if unknown_input else ()
    rest = rest + inputs  # parallel CMD ::: ARGS: the arguments are known
    if wrapper.get("shellString"):
        if all(w.static for w in rest):
            collect.code(" ".join(w.text for w in rest), directory, "the command")
        else:
            collect.doubts.append("the command it runs is computed at run time")
        return
    collect.runs.append(Run(tuple(rest), None, directory, doubts))


# xargs options that say where the replace string stands (-i and --replace default to {}), and
# that take the arguments from somewhere else than the input.
_REPLACE = {"-I": None, "-i": "{}", "--replace": "{}"}
_ELSEWHERE = frozenset(("-a", "--arg-file"))


def _listed_operands(context: Context, parsed: list[Argument], rest: list[Word]) -> list[Word] | None:
    """The command xargs runs, with the paths its input lists (a producer such as ``find .``, see
    producers.py) where they go, or None when they stay unknown: no listing, an earlier command
    of the line that may have renamed files, arguments read from a file, or a replace string
    inside a longer word."""
    listing = context.stdin.listing if context.stdin is not None else ()
    if not listing or not context.settled or not rest or any(a.option in _ELSEWHERE for a in parsed):
        return None
    replace = None
    for argument in parsed:
        if argument.option in _REPLACE:
            value = argument.value
            if value is not None and not value.static:
                return None
            replace = value.text if value is not None else _REPLACE[argument.option]
    if replace is None:
        return [*rest, *listing]
    given: list[Word] = []
    for word in rest:
        if word.static and word.text == replace:
            given += listing
        elif replace in word.text or not word.static:
            return None
        else:
            given.append(word)
    return given


def _shell(collect: Collector, entry: dict[str, Any], args: list[Word], cwd: str | None) -> None:
    words = []
    skip = False
    for word in args:  # +o option / +O option: bash's "unset" spellings take a value
        if skip:
            skip = False
        elif word.static and word.text.startswith("+"):
            skip = word.text in ("+o", "+O")
        else:
            words.append(word)
    _, parsed, rest = _parse(entry, words, posix=True)
    _option_paths(collect, parsed, cwd)
    if any(a.option == "-c" for a in parsed):
        if rest:
            collect.code(rest[0], cwd, "the shell code")
        return
    if rest and rest[0].static and rest[0].text == "-":  # `bash -` reads its commands from input
        rest = rest[1:]
        parsed.append(Argument("-s", {}, None, Word("-s")))
    stdin = collect.context.stdin
    if rest and not any(a.option == "-s" for a in parsed):
        collect.path(rest[0], "exec", cwd)
        collect.doubts.append(f"runs the script `{rest[0].raw}`, whose commands are not analysed")
    elif stdin is not None and stdin.kind != "file" and stdin.text is not None:
        collect.doubts.append(f"a shell reads commands from a {_INPUT_NAMES[stdin.kind]}")
        collect.code(stdin.text, cwd, "the shell input")
    elif stdin is not None:
        what = _INPUT_NAMES[stdin.kind]
        collect.doubts.append(f"a shell reads commands from a {what}, which this analysis cannot see")
    else:
        collect.doubts.append("starts an interactive shell")


_INPUT_NAMES = {"heredoc": "heredoc", "herestring": "here-string", "pipe": "pipe", "file": "file"}


# Options that only print and exit (python3 --version): the interpreter runs no program.
_VERSION = frozenset({"--version", "-V", "-VV", "--help", "-h", "-v", "-version", "--help-all"})


def _interpreter(collect: Collector, entry: dict[str, Any], args: list[Word], cwd: str | None) -> None:
    """An interpreter runs a program given inline (``-c``), a module (``-m``), a script, or what it
    reads on standard input. With interpreterAnalysis off, none of it is in doubt: the command is
    judged by its rules alone, as pi-control does."""
    language = entry["interpreter"]
    first_doubt = len(collect.doubts)
    entry, parsed, rest = _parse(entry, args, posix=True)
    directory, _ = _option_paths(collect, parsed, cwd, language)
    module = next((a for a in parsed if a.spec.get("takes") == "module"), None)
    command = _module_command(collect, entry, module)
    if any(a.spec.get("takes") == "source" for a in parsed):
        # perl -ne CODE FILE reads FILE; python -c CODE ARGS hands ARGS to the program (_handed).
        if entry.get("operands", "text") == "text":
            _handed(collect, rest, directory)
        else:
            _operands(collect, entry, rest, directory)
    elif command is not None:  # python3 -m pip: judged as pip, its doubts kept whatever the setting
        if language == "python" and module is not None and module.value is not None:
            _shadowed(collect, module.value.text, directory)
        _entry(collect, command, rest, directory)
        first_doubt = len(collect.doubts)
    elif module is not None:
        shown = module.value.raw if module.value is not None else ""
        collect.doubts.append(f"runs the module `{shown}`, whose code is not analysed")
        collect.directory(directory, "exec")
    elif entry.get("source") is not None:  # deno eval CODE
        index = entry["source"]
        program = rest[index] if index < len(rest) else None
        if program is not None:
            collect.source(program.text if program.static else None, language, directory)
            _handed(collect, rest[index + 1 :], directory)
    elif rest and rest[0].text != "-":
        collect.path(rest[0], "exec", directory)
        collect.doubts.append(f"runs the script `{rest[0].raw}`, whose code is not analysed")
    elif collect.context.stdin is not None or not (parsed and all(a.option in _VERSION for a in parsed)):
        _input_program(collect, language, directory)
        _handed(collect, rest[1:], directory)  # python3 - ARGS <<EOF: ARGS go to the program
    if collect.context.code is None:
        del collect.doubts[first_doubt:]


def _handed(collect: Collector, words: list[Word], directory: str | None) -> None:
    """The words an inline program is given (``python -c CODE ARGS``): it may open any of them
    (``open(sys.argv[1])``), a bare name such as ``.env`` or the value of ``--file=.env`` as much as
    ``./x``, so each is touched, how is not known (a ``file:`` URL: the file it names)."""
    from ..interpreters.findings import file_url_path

    for word in words:
        if not word.static:
            collect.path(word, "unknown", directory)
            continue
        for text in dict.fromkeys((word.text, word.text.partition("=")[2])):
            text = file_url_path(text) or text if text[:5].lower() == "file:" else text
            if text and not text.startswith("-") and "://" not in text and (directory or path_like(text)):
                collect.path(Word(text, True, word.glob, word.raw), "unknown", directory)


def _harmless(spec: dict[str, Any], value: Word | None) -> bool:
    """Whether the option's value is one its knowledge says is harmless (``harmless``)."""
    pattern: str | None = spec.get("harmless")
    if not pattern or value is None or not value.static:
        return False
    return re.fullmatch(pattern, value.text) is not None


def _shadowed(collect: Collector, module: str, directory: str | None) -> None:
    """``python -m json.tool`` imports from the working directory first: a ``json/`` there runs
    instead of the standard library's (interpreters/modules.py)."""
    from ..interpreters.modules import shadowing

    for shadow in shadowing(directory, [module], collect.context.settled):
        if shadow.path is None:
            collect.doubts.append(shadow.why)
        else:
            collect.path(Word(shadow.path, True, False, shadow.path), "exec", directory)


def _module_command(
    collect: Collector, entry: dict[str, Any], module: Argument | None
) -> dict[str, Any] | None:
    """``python -m NAME``: the entry of the command the module is known as (``python -m pytest``
    is judged as pytest), or None for a module whose code is not known."""
    name = module.value if module is not None else None
    if name is None or not name.static:
        return None
    target = entry.get("modules", {}).get(name.text)
    if isinstance(target, str):
        return collect.context.knowledge.entry(target)
    return target  # type: ignore[no-any-return]


def _input_program(collect: Collector, language: str, cwd: str | None) -> None:
    """The program an interpreter reads on standard input: a heredoc, a here-string or a pipe from
    ``echo`` is read like inline code; another pipe or a file cannot be seen; without either, the
    interpreter is interactive."""
    from ..interpreters.inline import language_name

    stdin = collect.context.stdin
    name = language_name(language)
    # A heredoc or here-string is read even when computed (then in doubt); a pipe when it is known.
    known = stdin is not None and stdin.kind == "pipe" and stdin.text is not None
    if stdin is not None and (stdin.kind in ("heredoc", "herestring") or known):
        collect.source(stdin.text, language, cwd)
    elif stdin is not None:
        what = _INPUT_NAMES[stdin.kind]
        collect.doubts.append(f"reads a {name} program from a {what}, which this analysis cannot see")
    else:
        collect.doubts.append(f"starts an interactive {name} interpreter")


def resolve_name(word: Word, knowledge: Knowledge) -> tuple[str, bool]:
    """(the name a command is judged by, whether it names a file to run rather than a command).

    ``/bin/rm`` and ``/usr/bin/git`` are ``rm`` and ``git``; ``./git`` and ``/tmp/evil/git`` stay paths.
    Where the file system ignores case (macOS, Windows), ``Git`` and ``RM`` find git and rm: the name
    is judged in lower case.
    """
    text = word.text
    if "/" not in text:
        return (text.lower() if paths.CASE_INSENSITIVE else text), False
    directory, base = os.path.split(collapse(text) if text.startswith("/") else text)
    if fold(directory) in {fold(d) for d in knowledge.bin_directories}:
        return (base.lower() if paths.CASE_INSENSITIVE else base), False
    return text, True
