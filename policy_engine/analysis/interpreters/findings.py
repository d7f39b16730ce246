"""What a program given inline to an interpreter does, as far as its source shows.

The language analyses (the packages ``python`` and ``javascript``) read a source with tree-sitter
and return a ``Program``: the files it touches, the commands it runs, the machines it talks to, and
what cannot be proven. The shell analysis turns it into the accesses, runs and doubts of the
interpreter's atom, so that the code is judged like any other command: its paths by location, rules
and protection, the commands it runs as atoms of their own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property

from ...model import Sense, Walk
from ...record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from tree_sitter import Node


class Setting(Record):
    """Where the program runs and what bounds its analysis.

    ``cwd`` is the directory relative paths are taken from (None: unknown, so a relative path is a
    doubt), ``home`` expands ``expanduser``/``os.homedir()``, ``secret`` says whether an environment
    variable's name looks like a secret, ``max_nodes`` bounds the syntax tree. ``settled`` is False
    when an earlier command of the line may have written files: what the working directory holds
    now (a module Python would import from it first) is then not what the program will find.
    """

    cwd: str | None
    home: str
    secret: Callable[[str], bool]
    max_nodes: int = 10000
    settled: bool = True


class Effect(Record):
    """A path the program touches: absolute and collapsed, how, on which line of the source (1-based)
    and through which call (``open(mode 'w')``, ``shutil.rmtree``). ``tree`` is ``WHOLE_TREE`` when
    a directory at ``path`` is touched whole, everything under it with ``sense`` (``shutil.rmtree``,
    ``fs.rmSync``, a rename, a recursive copy), as ``Access.tree`` says for ``rm -r``."""

    path: str
    sense: Sense
    line: int
    evidence: str
    tree: Walk | None = None


class Execution(Record):
    """A command the program runs, known from its source: an argument vector (``subprocess.run(["git",
    "status"])``) or shell code (``os.system("ls")``), in the directory it runs in (None: unknown)."""

    line: int
    evidence: str
    argv: tuple[str, ...] | None = None
    shell: str | None = None
    cwd: str | None = None


class Contact(Record):
    """The program talks to another machine (a socket, an HTTP request)."""

    line: int
    evidence: str


class Program(Record):
    """Everything an analysis found. Each doubt starts with its line: ``line 3: eval of a computed
    string``."""

    effects: tuple[Effect, ...] = ()
    executions: tuple[Execution, ...] = ()
    contacts: tuple[Contact, ...] = ()
    doubts: tuple[str, ...] = ()


class Mentions:
    """What a program's source spells, looked for once, when a doubt hinges on it: reading its input
    (``INPUT``, each language's ways: a file it opens may be named there), ``file:`` URLs (one whose
    path is computed may name any file)."""

    INPUT: re.Pattern[bytes]
    source: bytes

    @cached_property
    def reads_input(self) -> bool:
        return self.INPUT.search(self.source) is not None

    @cached_property
    def file_urls(self) -> bool:
        return b"file:" in self.source.lower()


def file_url_path(url: str, whatwg: bool = False) -> str | None:
    """The path a ``file:`` URL names, percent-decoded (None: ``url`` is not a ``file:`` URL). As
    Python's urllib reads one by default (``<URL:...>`` unwrapped, a path after ``file:`` may be
    relative), or, with ``whatwg``, as a web URL parser does (node's ``new URL``: tabs and newlines
    dropped, backslashes are slashes, every path absolute). The host is ignored: a name for this
    machine may be given, and whatever is not this machine fails to open."""
    from urllib.parse import unquote

    text = url.strip("".join(map(chr, range(33))))
    if whatwg:
        text = text.replace("\t", "").replace("\n", "").replace("\r", "").replace("\\", "/")
    elif text.startswith("<") and text.endswith(">"):
        text = text[1:-1].strip()
    if not whatwg and text[:4].upper() == "URL:":
        text = text[4:].strip()
    if text[:5].lower() != "file:":
        return None
    rest = text[5:].partition("#")[0]
    if whatwg:
        rest = rest.partition("?")[0]
    if rest.startswith("//"):
        slash = rest.find("/", 2)
        rest = rest[slash:] if slash >= 0 else "/"
    path = unquote(rest)
    return "/" + path.lstrip("/") if whatwg else path


def node_text(node: Node | None, source: bytes) -> str:
    """The source text of a syntax node (empty for none), as either language's analysis reads it."""
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace") if node is not None else ""
