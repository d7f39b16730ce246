"""A bash line -> atoms: every simple command it can run, after wrappers, with accesses and doubts.

parse (tree-sitter) -> walk (commands in order, with their directory and input) -> for each
command: redirects and environment prefixes, then its effects from the command knowledge; the
commands and shell code it runs in turn (``sudo``, ``find -exec``, ``bash -c``, ``trap``...) are
analysed the same way, one level deeper. Nothing here raises on any input: what cannot be analysed
is a doubt, carried by an atom, so that it is judged conservatively.
"""

from __future__ import annotations

import pwd
import re
from collections.abc import Mapping

from ...agents.toolnames import BASH
from ...config.compiled import InterpreterSettings
from ...model import Access, Atom, Sense
from .collect import Context, locate
from .effects import command_effects, resolve_name
from .words import Variables, Word

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from .knowledge import Knowledge
    from .walk import Command, Stdin

MAX_BYTES = 64 * 1024
MAX_ATOMS = 2000
DEFAULT_CODE = InterpreterSettings()
WRITE_OPERATORS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})

# A line that bash reads as one simple command of literal words, without parsing: words of these
# characters only (no quote, expansion, glob, brace, tilde, comment, operator or escape), separated
# by spaces, none starting with = (zsh's =cmd; the grammar reads == as an operator), the first a
# plain command word, neither a reserved word nor a declaration (which the grammar reads apart).
# Such a line is judged without loading tree-sitter (some 10 ms of a hook's start-up); tests check
# that the grammar parses every such line, and that both give the same atoms on the corpus.
_WORD = r"[A-Za-z0-9_./:,+@%-][A-Za-z0-9_./:=,+@%-]*"
_LITERAL_LINE = re.compile(rf" *{_WORD}(?: +{_WORD})* *")
# The grammar stumbles on some first words bash runs as they are (`1%`, `a@`, `a+:`, `-`): a
# command word of fewer characters keeps the fast path where the parse would agree.
_COMMAND_WORD = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./-]*")
_PARSED_FIRST = frozenset(
    (
        *("if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until"),
        *("do", "done", "in", "function", "time", "coproc"),
        *("declare", "typeset", "export", "local", "readonly", "unset"),
    )
)


def user_home(user: str) -> str | None:
    """The home directory of ``user`` (for ``~user``), or None when there is no such user."""
    try:
        return pwd.getpwnam(user).pw_dir
    except (KeyError, OSError):
        return None


def join_continuations(line: str) -> str:
    """Remove backslash-newline pairs outside single quotes, as bash does before reading words
    (tree-sitter would split `r\\<newline>m` into two words)."""
    if "\\\n" not in line:
        return line
    out = []
    index = 0
    quoted = False
    while index < len(line):
        char = line[index]
        if char == "'" and (quoted or index == 0 or line[index - 1] != "\\"):
            quoted = not quoted
        elif char == "\\" and not quoted and index + 1 < len(line):
            if line[index + 1] != "\n":
                out.append(line[index : index + 2])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def literal_words(line: str) -> list[Word] | None:
    """The words of ``line`` when it is one simple command of literal words (see _LITERAL_LINE)."""
    if not _LITERAL_LINE.fullmatch(line):
        return None
    texts = line.split()
    if not _COMMAND_WORD.fullmatch(texts[0]) or texts[0] in _PARSED_FIRST:
        return None
    return [Word(text, True, False, text) for text in texts]


class Analyzer:
    """Turns bash lines into atoms. One per engine: it holds the home directory, the command
    knowledge, how deep nested shell code (``bash -c "bash -c ..."``) is followed, and how inline
    programs are analysed (``code``: None when interpreterAnalysis is off)."""

    def __init__(
        self,
        home: str,
        knowledge: Knowledge,
        max_depth: int = 4,
        code: InterpreterSettings | None = DEFAULT_CODE,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.home = home
        self.knowledge = knowledge
        self.max_depth = max_depth
        self.code = code
        self.variables = Variables(home, None, user_home, (), environ or {})

    def atoms(self, line: str, cwd: str) -> tuple[Atom, ...]:
        """Every atom of ``line`` run in ``cwd``."""
        if len(line.encode("utf-8", "replace")) > MAX_BYTES:
            doubt = f"the command is longer than {MAX_BYTES // 1024} KB; it is not analysed"
            return (Atom(BASH, " ".join(line.split())[:200], (), (doubt,)),)
        try:
            atoms = self._line(line, cwd, 0)
        except (RecursionError, ValueError, MemoryError) as error:  # the analysis must never fail open
            atoms = [
                Atom(BASH, " ".join(line.split()), (), (f"the analysis failed ({type(error).__name__})",))
            ]
        if len(atoms) > MAX_ATOMS:
            atoms = [
                *atoms[:MAX_ATOMS],
                Atom(BASH, "", (), ("the command runs too many commands to analyse",)),
            ]
        return tuple(atoms)

    def _line(self, line: str, cwd: str | None, depth: int) -> list[Atom]:
        literal = literal_words(line)
        if literal is not None:
            return self._run(literal, cwd, None, depth, [], []) or [Atom(BASH, " ".join(line.split()), ())]
        return self._parsed(line, cwd, depth)

    def _parsed(self, line: str, cwd: str | None, depth: int) -> list[Atom]:
        """The atoms of ``line`` by the syntax tree (tree-sitter is loaded on the first such line)."""
        from .grammar import parse
        from .walk import Walker

        source = join_continuations(line).encode("utf-8", "replace")
        tree = parse(source)
        walk = Walker(source, self.variables, self.knowledge).walk(tree.root_node, cwd)
        atoms: list[Atom] = []
        settled = True  # until a command may have written: globs match what is there now
        for command in walk.commands:
            found = self._command(command, depth, settled)
            settled = settled and all(atom.read_only for atom in found)  # none can have written
            atoms += found
        for code, code_cwd in walk.code:
            if depth + 1 > self.max_depth:
                atoms.append(Atom(BASH, code, (), (f"commands nest more than {self.max_depth} levels deep",)))
            else:
                atoms += self._line(code, code_cwd, depth + 1)
        doubts = list(dict.fromkeys(walk.doubts))
        if tree.root_node.has_error:
            doubts.insert(0, "the command does not parse as bash; what it runs cannot be known")
        text = " ".join(line.split())
        if doubts:
            atoms.append(Atom(BASH, text, (), tuple(doubts)))
        if not atoms:  # nothing runs (an assignment, a comment): the line itself is judged
            atoms.append(Atom(BASH, text, ()))
        return atoms

    def _command(self, command: Command, depth: int, settled: bool = True) -> list[Atom]:
        accesses: list[Access] = []
        doubts = list(command.doubts)
        for name, value in command.assignments:
            if self.knowledge.dangerous_variable(name, value.text if value.static else None):
                doubts.append(f"sets {name}, which changes what the command runs")
        for redirect in command.redirects:
            if redirect.target is None or not redirect.target.static:
                continue
            sense = Sense.WRITE if redirect.operator in WRITE_OPERATORS else Sense.READ
            if redirect.operator in ("<", ">", ">>", ">|", "&>", "&>>", ">&", "<&"):
                found, doubt = locate(redirect.target, sense, command.cwd)
                accesses += [access._replace(redirect=True) for access in found]
                doubts += [doubt] if doubt else []
        words = list(command.words) or [Word(":", True, False, ":")]
        return self._run(words, command.cwd, command.stdin, depth, accesses, doubts, settled)

    def _run(
        self,
        words: list[Word],
        cwd: str | None,
        stdin: Stdin | None,
        depth: int,
        accesses: list[Access],
        doubts: list[str],
        settled: bool = True,
    ) -> list[Atom]:
        """The atoms of one command: itself (unless a transparent wrapper) and whatever it runs."""
        name_word = words[0]
        entry = None
        name = name_word.text
        if not name_word.static:
            doubts.append(f"the command name `{name_word.raw}` is computed at run time")
        elif name_word.glob:
            doubts.append(f"the command name `{name_word.raw}` is a pattern")
        else:
            name, is_file = resolve_name(name_word, self.knowledge)
            if is_file:
                found, doubt = locate(name_word, Sense.EXEC, cwd)
                accesses += found
                doubts += [doubt] if doubt else []
            else:
                entry = self.knowledge.entry(name)
        effects = command_effects(
            name, entry, words, Context(cwd, self.home, self.knowledge, stdin, self.code, settled)
        )
        spoken = (name, *(w.raw if w.walk is not None else w.text for w in words[1:]))
        computed = tuple(i for i, w in enumerate(words) if i and (not w.static or w.glob))
        text = " ".join(spoken)
        own = Atom(
            BASH,
            text,
            tuple(accesses + effects.accesses),
            tuple(doubts + effects.doubts),
            spoken,
            computed,
            effects.unproven,
            effects.mentions,
            effects.interactive,
        )
        runs = effects.runs
        atoms: list[Atom] = []
        # A transparent wrapper (nice, timeout) is judged apart only when it has something of its own:
        # an access, a doubt, or an option that keeps it from being proven read-only.
        carried = (
            not effects.atom
            and len(runs) == 1
            and runs[0].code is None
            and not own.doubts
            and not own.unproven
        )
        if not carried and (effects.atom or own.accesses or own.doubts or own.unproven or not runs):
            atoms.append(own)
        for run in runs:
            if depth + 1 > self.max_depth:
                atoms.append(Atom(BASH, text, (), (f"commands nest more than {self.max_depth} levels deep",)))
                break
            if run.code is not None:
                atoms += self._line(run.code, run.cwd, depth + 1)
            else:
                inherited = list(own.accesses) if carried else []
                atoms += self._run(
                    list(run.words), run.cwd, stdin, depth + 1, inherited, list(run.doubts), settled
                )
        return atoms
