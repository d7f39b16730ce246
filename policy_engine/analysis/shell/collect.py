"""What one command touches, gathered: the accesses, doubts and runs that the reading of a command
(effects.py, find.py) collects, and how a word is located as a path.

A word is judged as spelled and as what it expands to now (a glob's matches); what cannot be told
(a computed name, a directory unknown after a cd) is a doubt, never a guess.
"""

from __future__ import annotations

from ...config.compiled import InterpreterSettings
from ...model import WHOLE_TREE, Access, Sense, TreeKind, Walk, as_walk
from ...paths import PROCESS_CWD, absolute, collapse, glob_root, opaque, pseudo_file
from ...record import Record
from .knowledge import Knowledge
from .words import GLOB_CHARACTERS, Word

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from .walk import Stdin

SENSES = {s.value: s for s in Sense}


class Run(Record):
    """Something a command runs in turn: another command's words, or shell code."""

    words: tuple[Word, ...] = ()
    code: str | None = None
    cwd: str | None = None
    doubts: tuple[str, ...] = ()


class Effects(Record):
    """The accesses and doubts of a command, what it runs, and whether it is an atom of its own
    (a transparent wrapper such as ``nice`` is not: the command it runs is judged, with the
    wrapper's own accesses)."""

    accesses: list[Access]
    doubts: list[str]
    runs: list[Run]
    atom: bool = True
    unproven: tuple[str, ...] = ()
    mentions: tuple[str, ...] = ()
    interactive: tuple[str, ...] = ()


class Context(Record):
    """Where the command runs, what it reads on standard input, and how inline programs are analysed
    (``code`` is None when interpreterAnalysis is off)."""

    cwd: str | None
    home: str
    knowledge: Knowledge
    stdin: Stdin | None
    code: InterpreterSettings | None = None
    settled: bool = True  # no earlier command of the line can have changed the files a glob matches


def path_like(text: str) -> bool:
    """Whether an operand of a command we know nothing about looks like a path."""
    if not text or text.startswith("-") or "://" in text:
        return False
    return text.startswith(("/", "~", "./", "../")) or text in (".", "..") or "/" in text


def locate(
    word: Word, sense: Sense, directory: str | None, tree: Walk | None = None
) -> tuple[list[Access], str | None]:
    """The accesses ``word`` names, each a walk of ``tree`` if given, and why it cannot be located
    or judged as spelled (a doubt). A glob is judged at the directory its static part names and at
    every file it matches now (``cat .en?`` reads ``.env``); ``/dev/null`` and the like are no
    access at all. A word that stands for the paths a command lists (``$(git ls-files)``) is a read
    of the tree they are in; anything else done to them is not followed."""
    if word.walk is not None and sense is Sense.READ:
        if directory is None and not word.text.startswith("/"):
            return [], f"cannot tell where `{word.raw}` is: the working directory is unknown after a cd"
        return [Access(collapse(absolute(word.text, directory or "/")), sense, tree=tree or word.walk)], None
    if not word.static:
        return [], f"cannot tell which file `{word.raw}` names (it is computed at run time)"
    text = word.text
    matches: list[str] = []
    if word.glob:
        matches = expand_glob(text, directory)
        if len(matches) > MAX_GLOB_MATCHES:  # the ones not looked at could be anything
            doubt = f"`{word.raw}` matches more than {MAX_GLOB_MATCHES} files; they cannot all be checked"
            return [], doubt
        text = glob_root(text, GLOB_CHARACTERS) or text
    if text in ("-", "") or pseudo_file(text):
        return [], None
    if directory is None and (not text.startswith("/") or text.startswith(PROCESS_CWD)):
        return [], f"cannot tell where `{word.raw}` is: the working directory is unknown after a cd"
    base = directory or "/"
    written = "" if text.startswith("/") else base  # what the path itself names lies after it
    accesses: list[Access] = []
    unseen = None
    for path in (text, *matches) if matches else (text,):  # the pattern is judged as spelled too
        spelled = absolute(path, base)
        # `..` after a part the path itself names (not its directory) that does not exist yet
        reason = opaque(spelled, written) if unseen is None else None
        if reason is not None:
            unseen = f"cannot tell which file `{word.raw}` names: {reason}"
        accesses.append(Access(collapse(spelled), sense, None, tree))
    return accesses, unseen


MAX_GLOB_MATCHES = 1024  # beyond, a doubt: the files not looked at could be protected ones


def expand_glob(pattern: str, directory: str | None) -> list[str]:
    """The files a glob matches now, as bash would expand it (no hidden files unless spelt)."""
    import glob
    from itertools import islice

    if not pattern.startswith("/") and directory is None:
        return []
    try:
        return list(
            islice(
                glob.iglob(pattern, root_dir=None if pattern.startswith("/") else directory),
                MAX_GLOB_MATCHES + 1,
            )
        )
    except (OSError, ValueError, RecursionError):
        return []


class Collector:
    """Accumulates the effects of one command."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.accesses: list[Access] = []
        self.doubts: list[str] = []
        self.runs: list[Run] = []
        self.unproven: list[str] = []
        self.mentions: list[str] = []
        self.interactive: list[str] = []

    def path(self, word: Word, sense: str, directory: str | None, tree: Walk | str | None = None) -> None:
        """``word``'s accesses, each a walk of ``tree`` (a Walk, or spelt as the knowledge does) if
        given."""
        walk = as_walk(tree)
        if walk is not None and word.walk is not None and walk.kind is not TreeKind.FOLLOW:
            walk = WHOLE_TREE  # listed paths walked in turn
        accesses, doubt = locate(word, SENSES[sense], directory, walk)
        self.accesses += accesses
        if doubt is not None:
            self.doubts.append(doubt)

    def directory(self, directory: str | None, sense: str, tree: Walk | str | None = None) -> None:
        if directory is None:
            self.doubts.append("the working directory is unknown after a cd")
        else:
            self.accesses.append(Access(directory, SENSES[sense], tree=as_walk(tree)))

    def code(self, word: Word | str, cwd: str | None, what: str) -> None:
        if isinstance(word, str):
            self.runs.append(Run(code=word, cwd=cwd))
        elif word.static:
            self.runs.append(Run(code=word.text, cwd=cwd))
        else:
            self.doubts.append(f"{what} is computed at run time")

    def source(self, text: str | None, language: str, cwd: str | None) -> None:
        """A program in ``language`` the command runs (None: computed at run time). What its source
        shows it doing becomes the command's own accesses, and the commands it runs are judged too."""
        settings = self.context.code
        if settings is None:  # interpreterAnalysis is off: the command is judged by its rules alone
            return
        from ..interpreters import inline  # loaded with the first inline program
        from ..interpreters.findings import Setting

        name = inline.language_name(language)
        if text is None:
            self.doubts.append(f"the {name} program is computed at run time")
            return
        setting = Setting(
            cwd,
            self.context.home,
            self.context.knowledge.secret_variable,
            settings.max_nodes,
            self.context.settled,
        )
        program = inline.analyze(language, text, setting, settings.max_source_bytes)
        for effect in program.effects:
            via = f"{name} line {effect.line}: {effect.evidence}"
            self.accesses.append(Access(effect.path, effect.sense, via, as_walk(effect.tree)))
        for contact in program.contacts:
            if cwd is None:
                self.doubts.append("the working directory is unknown after a cd")
            else:
                via = f"{name} line {contact.line}: {contact.evidence} talks to another machine"
                self.accesses.append(Access(cwd, Sense.UNKNOWN, via))
        for run in program.executions:
            if run.argv is not None:
                self.runs.append(
                    Run(tuple(Word(word, True, False, word) for word in run.argv), None, run.cwd)
                )
            elif run.shell is not None:
                self.runs.append(Run(code=run.shell, cwd=run.cwd))
        self.doubts += [f"in the {name} program, {doubt}" for doubt in program.doubts]

    def effects(self, atom: bool = True) -> Effects:
        accesses = list(dict.fromkeys(self.accesses))
        walked = {(a.path, a.sense) for a in accesses if a.tree}  # a walk of a path covers the path
        accesses = [a for a in accesses if a.tree or (a.path, a.sense) not in walked]
        touched = {a.path for a in accesses}
        mentions = tuple(m for m in dict.fromkeys(self.mentions) if m not in touched)
        return Effects(
            accesses,
            self.doubts,
            self.runs,
            atom,
            tuple(dict.fromkeys(self.unproven)),
            mentions,
            tuple(dict.fromkeys(self.interactive)),
        )
