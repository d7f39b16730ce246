"""The walk's common ground: its findings, the dispatch over syntax nodes, and what a value hides.

Each concern of the analysis is a class over ``Core``, stacked so that each uses only those below it:
``effects.Effects`` (files, URLs, commands), ``specials.Specials`` (calls whose meaning is code),
``expressions.Expressions``, ``calls.Calls``, ``statements.Statements`` (imports included).
``analyzer.py`` puts them together and gives ``Core`` its table of node handlers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from ..findings import Contact, Effect, Execution, Mentions, Setting, node_text
from .api import Api, load
from .scopes import Bindings, State, node_line
from .values import Ref, Value, is_environ

if TYPE_CHECKING:
    from tree_sitter import Node


MAX_NESTING = 100  # expressions and statements nested deeper are not followed (the walk recurses)

# A program that reads its input (input(), sys.stdin, fileinput, open(0)) may be told a file's name.
READS_INPUT = re.compile(
    rb"\binput\s*\(|stdin|fileinput|/dev/fd/0|/dev/tty|\b(?:open|fdopen|read)\s*\(\s*0\s*[,)]"
)

# What changes the file a cookie jar was made for (``jar.filename = ...``, ``setattr``, ``__init__``).
RETARGETS = re.compile(rb"\.\s*filename\b|setattr|__init__|__dict__|\bvars\b")

Handler = Callable[[Any, "Node", State], Value]


class Core(Mentions):
    """One walk over one program: its findings accumulate in lists."""

    INPUT = READS_INPUT
    # node type -> handler, set by analyzer.py once every mixin is defined (a handler of any of them)
    HANDLERS: ClassVar[dict[str, Handler]] = {}

    def __init__(self, source: bytes, setting: Setting, bindings: Bindings) -> None:
        self.source = source
        self.setting = setting
        self.api: Api = load()
        self.unstable = bindings.unstable()
        self.mutated = frozenset(bindings.mutated)
        self.moves_cwd = b"chdir" in source
        self.effects: list[Effect] = []
        self.executions: list[Execution] = []
        self.contacts: list[Contact] = []
        self.doubts: list[str] = []
        self.depth = 0
        self.too_deep = False
        self.deferred: list[list[Node]] = []
        self.environment_changes: list[str] = []
        self.path_changed = False
        self.imports: list[tuple[str, int, str | None]] = []  # module, line, working directory then

    # -- plumbing ---------------------------------------------------------------------------------

    # Besides what Mentions looks for: sqlite3 (whose SQL can write files), a cookie jar's file changed
    # after it was made.

    @cached_property
    def uses_sqlite(self) -> bool:
        return b"sqlite3" in self.source

    @cached_property
    def retargets(self) -> bool:
        return RETARGETS.search(self.source) is not None

    def _text(self, node: Node | None) -> str:
        return node_text(node, self.source)

    def _doubt(self, line: int, message: str) -> None:
        self.doubts.append(f"line {line}: {message}")

    def _eval(self, node: Node | None, state: State) -> Value:
        """The value of an expression (None for a statement), recording what evaluating it does."""
        if node is None:
            return None
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                if not self.too_deep:
                    self.too_deep = True
                    self._doubt(
                        node_line(node),
                        f"the code nests deeper than {MAX_NESTING} levels; the rest is not analysed",
                    )
                return None
            return self.HANDLERS.get(node.type, Core._generic)(self, node, state)
        finally:
            self.depth -= 1

    def _use(self, node: Node | None, state: State) -> Value:
        """The value of an expression that is handed on (an argument, an element, a return value)."""
        value = self._eval(node, state)
        if node is not None:
            self._escape(value, node_line(node))
        return value

    def _escape(self, value: Value, line: int, aliasing: bool = False) -> None:
        """Doubt a value that hides effects once handed on: an effectful function (it may be called
        anywhere), a module with effectful members, the whole environment. Binding a module or the
        environment to a name (``aliasing``) is followed instead."""
        if is_environ(value):
            if not aliasing:
                self._doubt(line, "reads every environment variable, secrets included")
        elif isinstance(value, Ref):
            if self.api.effectful(value.name):
                self._doubt(line, f"{value.name} is used as a value; where it is called cannot be followed")
            elif not aliasing and value.name in self.api.effectful_modules:
                self._doubt(line, f"the {value.name} module is passed as a value; its use cannot be followed")

    def _generic(self, node: Node, state: State) -> Value:
        """Any other node (a return, a raise, a slice, an ERROR...): its parts are evaluated and
        handed on, so that nothing inside escapes notice."""
        for child in node.named_children:
            if child.type != "comment":
                self._use(child, state)
        return None

    def _values(self, node: Node, state: State) -> Value:
        """Blocks, expression statements, type annotations and comparisons: each part evaluated in
        order, nothing handed on."""
        for child in node.named_children:
            self._eval(child, state)
        return None

    def _classes(self, node: Node | None, state: State) -> Value:
        """``except (A, B)``, ``isinstance(x, (A, B))``: classes looked at, not handed on."""
        if node is not None and node.type in ("tuple", "parenthesized_expression"):
            return self._values(node, state)
        return self._eval(node, state)

    def _nothing(self, node: Node, state: State) -> Value:
        return None
