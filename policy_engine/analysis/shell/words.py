"""Shell words: what bash would pass to a program, after quote removal and the expansions we can prove.

A word is built from tree-sitter nodes as a run of characters, each marked quoted or not, so that
later steps know which ``*``, ``?``, ``[``, ``{`` and ``~`` bash would still expand. Expansions we
can resolve (``~``, ``~user``, ``$HOME``, ``${HOME}``, ``$PWD`` when the directory is known) are
replaced; any other expansion or substitution makes the word dynamic: its text then keeps the source
spelling, and whatever depends on its value is a doubt.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from itertools import repeat

from ...record import Record
from . import producers

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:  # the literal fast path builds words without tree-sitter
    from tree_sitter import Node

    from ...model import Walk

MAX_BRACE_WORDS = 128
GLOB_CHARACTERS = frozenset("*?[")


class Word(Record):
    """A word after quote removal.

    ``text`` is its value (an unresolved expansion keeps its source spelling), ``static`` is False
    when the value depends on something unknown, ``glob`` is True when bash would still expand
    unquoted ``*``, ``?`` or ``[...]`` in it, and ``raw`` is the source text. ``walk`` is set on a
    word that stands for paths a command prints (``$(git ls-files '*.py')``, see producers.py):
    ``text`` is their root, ``walk`` how a walk of it reaches them (an ``Access.tree``); the word
    is not static, so that nothing but a read of those paths takes it for a known value.
    """

    text: str
    static: bool = True
    glob: bool = False
    raw: str = ""
    walk: Walk | None = None


class Variables(Record):
    """What expansions resolve to: the home directory, the working directory if known, a lookup
    for ``~user`` (None for an unknown user), the loop variables bound to a known word (``for f in
    src/*.py``: ``$f`` is one of those files), and the environment the line starts with (what git
    reads to find its repository)."""

    home: str
    cwd: str | None
    user_home: Callable[[str], str | None]
    bound: tuple[tuple[str, Word], ...] = ()
    environ: Mapping[str, str] = {}
    depth: int = 0  # how many $(...) deep a known value is being looked for


# $(...) nested deeper than this are not evaluated for a known value (a hostile line nests 48 deep).
MAX_KNOWN_DEPTH = 3


# A piece of a word being built: its characters, whether each is quoted, and whether it is dynamic.
_Chars = list[tuple[str, bool]]


class _Builder:
    __slots__ = ("chars", "dynamic")

    def __init__(self) -> None:
        self.chars: _Chars = []
        self.dynamic = False

    def add(self, text: str, quoted: bool) -> None:
        self.chars.extend(zip(text, repeat(quoted)))


_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_ANSI_C = r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)"


def decode_ansi_c(body: str) -> str:
    """The value of ``$'body'``: backslash escapes of C (``\\x72``, ``\\t``, ``\\101``, ``\\u00e9``...)."""

    def replace(found: re.Match[str]) -> str:
        escape = found.group(1)
        head = escape[0]
        if head in "xuU":
            try:
                return chr(int(escape[1:], 16))
            except (ValueError, OverflowError):
                return found.group(0)
        if head.isdigit():
            return chr(int(escape, 8) & 0xFF)
        if head == "c" and len(escape) == 2:
            return chr(ord(escape[1].upper()) ^ 0x40)
        return _SIMPLE_ESCAPES.get(escape, found.group(0))

    return re.sub(_ANSI_C, replace, body, flags=re.DOTALL)


def _unescape_unquoted(text: str, out: _Builder) -> None:
    """An unquoted word: a backslash quotes the next character; backslash-newline disappears."""
    if "\\" not in text:  # most words: nothing to undo
        out.add(text, False)
        return
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            following = text[index + 1]
            if following != "\n":
                out.add(following, True)
            index += 2
            continue
        out.add(char, False)
        index += 1


def _unescape_double_quoted(text: str, out: _Builder) -> None:
    """Inside double quotes a backslash only escapes ``$ ` " \\`` and newline."""
    if "\\" not in text:
        out.add(text, True)
        return
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] in '$`"\\\n':
            if text[index + 1] != "\n":
                out.add(text[index + 1], True)
            index += 2
            continue
        out.add(char, True)
        index += 1


_SPECIAL_PARAMETERS = frozenset("@*#?-$!0123456789")


def _variable(node: Node, source: bytes, variables: Variables) -> str | None:
    """The value of ``$NAME`` or ``${NAME}`` when it is one we can know, else None."""
    name = _name(node, source)
    if name == "HOME":
        return variables.home
    if name == "PWD" and variables.cwd is not None:
        return variables.cwd
    bound = _bound(name, variables)
    if bound is not None and bound.static and not bound.glob:  # a literal of a loop's list
        return bound.text
    return None


def _name(node: Node, source: bytes) -> str:
    text = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
    return text[2:-1] if text.startswith("${") else text[1:]


def _bound(name: str, variables: Variables) -> Word | None:
    for bound_name, word in reversed(variables.bound):  # an inner loop's variable hides an outer one
        if bound_name == name:
            return word
    return None


def _command_words(
    node: Node, source: bytes, variables: Variables
) -> tuple[list[str], frozenset[int]] | None:
    """The static words of the one plain command a ``$(...)`` runs (no redirect, no assignment),
    and the positions of those bash expands as globs."""
    inner = [child for child in node.named_children if child.type != "comment"]
    if len(inner) != 1 or inner[0].type != "command" or variables.depth >= MAX_KNOWN_DEPTH:
        return None
    variables = variables._replace(depth=variables.depth + 1)
    found: list[str] = []
    globs: set[int] = set()
    for child in inner[0].named_children:
        part = child.named_children[0] if child.type == "command_name" and child.named_children else child
        if part.type not in _PARTS:
            return None
        for word in words_of(part, source, variables):
            if not word.static:
                return None
            if word.glob:
                globs.add(len(found))
            found.append(word.text)
    return found, frozenset(globs)


def _substituted(node: Node, source: bytes, variables: Variables, quoted: bool) -> str | None:
    """The output of a ``$(...)`` whose value is known (``$(pwd)``), when it stays one word."""
    return _value(_command_words(node, source, variables), variables, quoted)


def _value(
    command: tuple[list[str], frozenset[int]] | None, variables: Variables, quoted: bool
) -> str | None:
    if command is None or command[1]:
        return None
    found = producers.value(command[0], variables.cwd, variables.environ)
    if found is None or (not quoted and producers.comes_apart(found)):
        return None
    return found


def listed_words(found: list[tuple[str, Walk]], raw: str) -> list[Word]:
    """The words of the (root, walk) pairs a producer lists (producers.listing), spelt ``raw``."""
    return [Word(root, False, False, raw, walk) for root, walk in found]


def _known_word(node: Node, source: bytes, variables: Variables, raw: str) -> list[Word] | None:
    """The words of a whole-word ``$(...)`` that lists paths (``$(git ls-files '*.py')``), or of a
    loop variable bound to a glob or such a listing (``"$f"``, and ``$f`` for a listing, whose
    pieces cannot come apart further)."""
    if node.type == "command_substitution":  # looked at once here, not again by _build
        command = _command_words(node, source, variables)
        found = None if command is None else producers.listing(command[0], variables.cwd, command[1])
        if found is not None:
            return listed_words(found, raw)
        value = _value(command, variables, False)
        # A value is the word; anything else is computed at run time, spelt as written.
        return [Word(value, True, False, raw)] if value is not None else [Word(raw, False, False, raw)]
    quoted = node.type == "string"
    if quoted:
        parts = [child for child in node.children if child.type not in ('"',)]
        if len(parts) != 1:
            return None
        node = parts[0]
    if node.type not in ("simple_expansion", "expansion") or not variables.bound:
        return None
    bound = _bound(_name(node, source), variables)
    if bound is None or not (bound.walk or (bound.glob and quoted)):
        return None
    return [bound._replace(raw=raw)]


def _build(node: Node, source: bytes, variables: Variables, out: _Builder, quoted: bool) -> None:
    kind = node.type
    text = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
    if kind in ("word", "number", "brace_expression", "extglob_pattern", "variable_name", "test_operator"):
        if quoted:
            out.add(text, True)
        else:
            _unescape_unquoted(text, out)
    elif kind == "raw_string":
        out.add(text[1:-1], True)
    elif kind == "ansi_c_string":
        out.add(decode_ansi_c(text[2:-1]), True)
    elif kind in ("string", "translated_string"):
        _build_string(node, source, variables, out)
    elif kind == "string_content":
        _unescape_double_quoted(text, out)
    elif kind == "concatenation":
        position = node.start_byte
        for child in node.children:
            if child.start_byte > position:  # text the grammar left between children
                _unescape_unquoted(source[position : child.start_byte].decode("utf-8", "replace"), out)
            _build(child, source, variables, out, quoted)
            position = child.end_byte
    elif (
        kind in ("simple_expansion", "expansion")
        and (value := _variable(node, source, variables)) is not None
    ) or (
        kind == "command_substitution"
        and (value := _substituted(node, source, variables, quoted)) is not None
    ):
        out.add(value, True)
    else:  # substitutions, arithmetic, other expansions: unknown until run
        out.add(text, True)
        out.dynamic = True


def _build_string(node: Node, source: bytes, variables: Variables, out: _Builder) -> None:
    """A double-quoted string: its literal parts, and its expansions (quoted: no globbing)."""
    inner_start = node.start_byte + (2 if node.type == "translated_string" else 1)
    inner_end = node.end_byte - 1
    position = inner_start
    for child in node.children:
        if not child.is_named:
            continue
        if child.start_byte > position:
            _unescape_double_quoted(source[position : child.start_byte].decode("utf-8", "replace"), out)
        _build(child, source, variables, out, True)
        position = child.end_byte
    if inner_end > position:
        _unescape_double_quoted(source[position:inner_end].decode("utf-8", "replace"), out)


def _expand_tilde(chars: _Chars, variables: Variables) -> tuple[_Chars, bool]:
    """``~`` and ``~user`` at the start of an unquoted word; False when ``~user`` is unknown."""
    if not chars or chars[0] != ("~", False):
        return chars, True
    end = next((i for i, (c, _) in enumerate(chars) if c == "/"), len(chars))
    if any(quoted for _, quoted in chars[1:end]):
        return chars, True
    user = "".join(c for c, _ in chars[1:end])
    home = variables.home if not user else variables.user_home(user)
    if home is None:
        return chars, False
    return [(c, True) for c in home] + chars[end:], True


def _brace_alternatives(chars: _Chars) -> list[_Chars] | None:
    """One level of unquoted ``{a,b}`` or ``{1..3}`` expanded (None when there is none)."""
    depth = 0
    start = -1
    for index, (char, quoted) in enumerate(chars):
        if quoted:
            continue
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                choices = _brace_choices(chars[start + 1 : index])
                if choices is not None:
                    head, tail = chars[:start], chars[index + 1 :]
                    return [head + choice + tail for choice in choices]
                start = -1
    return None


def _brace_choices(body: _Chars) -> list[_Chars] | None:
    depth = 0
    parts: list[_Chars] = [[]]
    for char, quoted in body:
        if not quoted and char == "{":
            depth += 1
        elif not quoted and char == "}":
            depth -= 1
        if not quoted and char == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append((char, quoted))
    if len(parts) > 1:
        return parts
    text = "".join(c for c, _ in body)
    found = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([a-zA-Z])\.\.([a-zA-Z])", text)
    if not found:
        return None
    if found.group(4):
        first, last = ord(found.group(4)), ord(found.group(5))
        step = 1 if last >= first else -1
        return [[(chr(c), True)] for c in range(first, last + step, step)][: MAX_BRACE_WORDS + 1]
    first, last = int(found.group(1)), int(found.group(2))
    step = abs(int(found.group(3) or 1)) or 1
    step = step if last >= first else -step
    if abs(last - first) // abs(step) > MAX_BRACE_WORDS:
        return [[]] * (MAX_BRACE_WORDS + 1)
    return [[(c, True) for c in str(n)] for n in range(first, last + (1 if step > 0 else -1), step)]


def _expand_braces(chars: _Chars) -> list[_Chars] | None:
    """Every brace expansion of ``chars``; None when there would be more than MAX_BRACE_WORDS."""
    done: list[_Chars] = []
    pending = [chars]
    while pending:
        current = pending.pop()
        alternatives = _brace_alternatives(current)
        if alternatives is None:
            done.append(current)
        else:
            pending.extend(reversed(alternatives))
        if len(done) + len(pending) > MAX_BRACE_WORDS:
            return None
    return done


# The nodes of a $(...)'s command that may be words it knows (a nested $(...), a bound variable).
_PARTS = frozenset(
    (
        "word",
        "string",
        "raw_string",
        "number",
        "concatenation",
        "command_substitution",
        "simple_expansion",
        "expansion",
    )
)
# The nodes that may stand for a known listing or a bound loop variable as a whole word.
_KNOWABLE = frozenset(("command_substitution", "string", "simple_expansion", "expansion"))

# A word bash passes as it is written: nothing to unquote, expand or match against files.
_PLAIN = re.compile(r"[A-Za-z0-9_./=:,%+@^-]+")


def words_of(node: Node, source: bytes, variables: Variables) -> list[Word]:
    """The words bash makes of one argument node: usually one, several after brace expansion.

    A word whose brace expansion would be too large, or whose ``~user`` is unknown, is dynamic.
    """
    raw = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
    if node.type == "word" and _PLAIN.fullmatch(raw):  # most words: no quote, escape, brace or glob
        return [Word(raw, True, False, raw)]
    if node.type == "process_substitution":  # bash passes the pipe's name; its command is walked apart
        return [Word("/dev/fd/63", True, False, raw)]
    if node.type in _KNOWABLE and (known := _known_word(node, source, variables, raw)) is not None:
        return known
    built = _Builder()
    _build(node, source, variables, built, False)
    chars, known_user = _expand_tilde(built.chars, variables)
    if built.dynamic or not known_user:
        return [Word("".join(c for c, _ in chars), False, False, raw)]
    expanded = _expand_braces(chars)
    if expanded is None:
        return [Word(raw, False, False, raw)]
    return [
        Word("".join(c for c, _ in word), True, any(c in GLOB_CHARACTERS and not q for c, q in word), raw)
        for word in expanded
    ]
