"""What a program given inline to an interpreter does, as far as its source shows.

The language analyses (``python.py``, ``javascript.py``) read a source with tree-sitter and return a
``Program``: the files it touches, the commands it runs, the machines it talks to, and what cannot
be proven. The shell analysis turns it into the accesses, runs and doubts of the interpreter's atom,
so that the code is judged like any other command: its paths by location, rules and protection, the
commands it runs as atoms of their own.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import Sense
from ..record import Record


class Setting(Record):
    """Where the program runs and what bounds its analysis.

    ``cwd`` is the directory relative paths are taken from (None: unknown, so a relative path is a
    doubt), ``home`` expands ``expanduser``/``os.homedir()``, ``secret`` says whether an environment
    variable's name looks like a secret, ``max_nodes`` bounds the syntax tree.
    """

    cwd: str | None
    home: str
    secret: Callable[[str], bool]
    max_nodes: int = 10000


class Effect(Record):
    """A path the program touches: absolute and collapsed, how, on which line of the source (1-based)
    and through which call (``open(mode 'w')``, ``shutil.rmtree``)."""

    path: str
    sense: Sense
    line: int
    evidence: str


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
