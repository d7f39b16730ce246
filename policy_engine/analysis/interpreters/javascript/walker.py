"""The state of one walk over one source, and what every part of the walk shares: its scopes, the
dispatch on node types, values handed on out of sight, what the program touches, and members of the
runtime.

The walk is split by concern into mixins of ``Walker``: names and modules (``scopes``), calls
(``calls``: files, commands, the process's state), statements and expressions (``walk``, which puts
them together as ``Analysis`` and holds the ``{node type: handler}`` table ``visit`` dispatches on).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from ....model import Sense, Walk
from ....paths import collapse, pseudo_file
from ....record import Record
from ..findings import Contact, Effect, Execution, Mentions, Program, Setting, file_url_path, node_text
from .api import global_value, inert, tables
from .syntax import is_type
from .values import DATA, Api, Num, Strings, Value, short

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_NESTING = 100  # syntax nested deeper than this is not followed (and keeps Python's stack small)


@cache
def reads_input_pattern() -> re.Pattern[bytes]:
    """A program that reads its standard input (process.stdin, readline, prompt(), fs.readFileSync(0)).
    Compiled when a doubt first hinges on it, not at import."""
    return re.compile(
        rb"stdin|readline|\bprompt\s*\(|/dev/fd/0|/dev/tty|\b(?:readFileSync|readSync|readFile|read)\s*\(\s*0\s*[,)]"
    )


VERBS = {Sense.READ: "reads", Sense.WRITE: "writes", Sense.DELETE: "deletes", Sense.EXEC: "runs"}


class Survey(Record):
    """What a whole tree (or loop) shows before it is walked: the names assigned in it, those assigned
    inside functions (which may run at any time, so their value is never known), and whether it
    changes directory, anywhere or inside a function (which may be called before it is defined)."""

    assigned: frozenset[str]
    assigned_in_functions: frozenset[str]
    moves: bool
    moves_in_function: bool


class Scope:
    """The names a block or function binds. ``function`` tells which function body the scope belongs
    to (0: the top level); ``boundary`` says that ``var`` declarations stop here."""

    __slots__ = ("boundary", "function", "names", "parent")

    def __init__(self, parent: Scope | None, function: int, boundary: bool) -> None:
        self.names: dict[str, Value] = {}
        self.parent = parent
        self.function = function
        self.boundary = boundary


class Walker(Mentions):
    """One walk over one source: the current scope, directory and nesting, and what has been found.

    ``visit`` evaluates a node and records what evaluating it does; ``value`` does the same for a node
    whose value is handed on (an argument, an element, a stored value), where a module or one of its
    functions escapes our sight and becomes a doubt.
    """

    # node type -> handler; set by walk.Analysis, which has every handler of the mixins.
    HANDLERS: ClassVar[Mapping[str, Callable[[Any, Node], Value]]] = {}

    def __init__(self, source: bytes, setting: Setting, survey: Survey) -> None:
        self.source = source
        self.setting = setting
        self.survey = survey
        self.effects: list[Effect] = []
        self.executions: list[Execution] = []
        self.contacts: list[Contact] = []
        self.doubts: list[str] = []
        self.top = self.scope = Scope(None, 0, True)
        self.function = 0
        self.functions = 0
        # A function that changes directory may be called before its definition (it is hoisted).
        self.cwd = None if survey.moves_in_function else setting.cwd
        self.moves = 0
        self.log: list[tuple[Scope, str]] = []  # every binding made, for the regions to forget
        self.depth = 0
        self.too_deep = False

    @cached_property
    def reads_input(self) -> bool:
        """``Mentions.reads_input``, with the pattern compiled only when it is first needed."""
        return reads_input_pattern().search(self.source) is not None

    def program(self) -> Program:
        return Program(
            tuple(dict.fromkeys(self.effects)),
            tuple(dict.fromkeys(self.executions)),
            tuple(dict.fromkeys(self.contacts)),
            tuple(dict.fromkeys(self.doubts)),
        )

    # -- helpers --------------------------------------------------------------------------------

    def _text(self, node: Node | None) -> str:
        return node_text(node, self.source)

    def _doubt(self, node: Node, message: str) -> None:
        self.doubts.append(f"line {node.start_point.row + 1}: {message}")

    def _contact(self, node: Node, evidence: str) -> None:
        self.contacts.append(Contact(node.start_point.row + 1, evidence))

    # -- evaluation -----------------------------------------------------------------------------

    def visit(self, node: Node) -> Value:
        """The value of ``node`` after recording what evaluating it does."""
        if self.depth >= MAX_NESTING:
            if not self.too_deep:
                self.too_deep = True
                self._doubt(
                    node, f"the code nests deeper than {MAX_NESTING} levels; the rest is not analysed"
                )
            return None
        self.depth += 1
        try:
            handler = self.HANDLERS.get(node.type)
            if handler is None:
                handler = Walker._nothing if is_type(node.type) else Walker._children
            return handler(self, node)
        finally:
            self.depth -= 1

    def value(self, node: Node) -> Value:
        """The value of ``node``, handed on to code we do not follow."""
        result = self.visit(node)
        return self._escape(result, node) if isinstance(result, Api) else result

    def _escape(self, api: Api, node: Node) -> Value:
        """``api`` used as a plain value: the environment is read whole, a ``Bun.file`` is read, a
        network API may be used, and any other effectful function may be called where we cannot see."""
        known = tables()
        if api.member == "env" and api.module in known.env_holders:
            self._doubt(node, "reads every environment variable, secrets included")
            return DATA
        if api.member == "file()":
            if api.path is not None:
                self._touch(api.path, Sense.READ, node, "Bun.file" if api.module == "Bun" else "a file: URL")
            return DATA
        if api.module in known.network:
            self._contact(node, api.name)
            return DATA
        if inert(api):
            return api
        self._doubt(node, f"uses {api.name} as a value, so what calls it cannot be followed")
        return None

    def _nothing(self, node: Node) -> Value:
        return None

    def _children(self, node: Node) -> Value:
        for child in node.named_children:
            self.value(child)
        return None

    def _first(self, node: Node) -> Value:
        """The value of a wrapper (parentheses, ``as``, ``!``, ``satisfies``): its expression."""
        for child in node.named_children:
            if child.type != "comment" and not is_type(child.type):
                return self.visit(child)
        return None

    def _region(self, run: Callable[[], Value]) -> Value:
        """Code that may run or not, or at another time (a branch, a loop body, a function): what it
        binds and where it moves the working directory are unknown once it has been passed."""
        mark, moves, cwd = len(self.log), self.moves, self.cwd
        result = run()
        for scope, name in self.log[mark:]:
            scope.names[name] = None
        self.cwd = cwd if self.moves == moves else None
        return result

    # -- members of the runtime -----------------------------------------------------------------

    def _member(self, receiver: Value, name: str, node: Node) -> Value:
        if name == "constructor":
            self._constructor(node)
        if isinstance(receiver, Api):
            return self._api_member(receiver, name, node)
        return None if receiver is None else DATA

    def _constructor(self, node: Node) -> None:
        """``x.constructor`` reaches ``Function`` from any function (``(()=>{}).constructor("code")``);
        only comparing it or reading its ``name`` is harmless."""
        parent = node.parent
        if parent is not None and (
            parent.type == "binary_expression"
            or (
                parent.type == "member_expression"
                and self._text(parent.child_by_field_name("property")) == "name"
            )
        ):
            return
        self._doubt(node, "reaches a constructor through .constructor (it may be Function)")

    def _api_member(self, api: Api, name: str, node: Node) -> Value:
        if api.module == "globalThis" and not api.member:
            return global_value(name)
        if api.member == "file()":
            return DATA
        if api.member == "env" and api.module in ("process", "Bun"):
            return self._env_read(name, node)
        qualified = f"{api.name}.{name}"
        known = tables()
        if qualified in known.constants:
            return known.constants[qualified]
        if qualified in known.aliases:
            return Api(known.aliases[qualified])
        if name == "default" and not api.member:
            return api
        return Api(api.module, f"{api.member}.{name}" if api.member else name)

    def _element(self, receiver: Value, key: Value, index: Node | None, node: Node) -> Value:
        """``receiver[key]``: a computed member of a module is a doubt even when we can fold it."""
        if isinstance(receiver, Api):
            if receiver.member == "env" and receiver.module in ("process", "Bun"):
                if isinstance(key, str):
                    return self._env_read(key, node)
                self._doubt(node, "reads an environment variable whose name is computed at run time")
                return DATA
            if index is not None and index.type != "string" and not inert(receiver):
                self._doubt(node, f"reaches a member of {receiver.name} computed at run time")
            return self._member(receiver, key, node) if isinstance(key, str) else None
        if key == "constructor":
            self._constructor(node)
        return None if receiver is None else DATA

    # -- the environment ------------------------------------------------------------------------

    def _env_read(self, name: str, node: Node) -> Value:
        if self.setting.secret(name):
            self._doubt(node, f"reads ${name}, which looks like a secret")
        return self.setting.home if name == "HOME" else DATA

    def _steering(self, name: Value, node: Node) -> None:
        """Setting ``PATH`` (or a name we cannot read) changes what later commands run."""
        if not isinstance(name, str) or name in tables().steering:
            shown = name if isinstance(name, str) else "?"
            self._doubt(node, f"sets ${shown}, which changes what later commands run")

    # -- files ----------------------------------------------------------------------------------

    def _touch_value(
        self, value: Value, sense: Sense, node: Node, evidence: str, tree: Walk | None = None
    ) -> None:
        """The file a path argument names: a known string, a ``Bun.file`` or ``file:`` URL, a
        descriptor (nothing new is opened), or a doubt when a computed path is changed (or read by a
        program that reads its input, which may name it)."""
        if isinstance(value, Api):
            if value.member != "file()":
                return  # Bun.stdout and the like
            value = value.path
        if isinstance(value, Num):
            return
        if isinstance(value, Strings):
            for path in value.items:
                self._touch(path, sense, node, evidence, tree)
            return
        if isinstance(value, str):
            self._touch(value, sense, node, evidence, tree)
        elif sense is not Sense.READ:
            self._doubt(node, f"cannot tell which file {evidence} {VERBS[sense]} (computed at run time)")
        elif self.reads_input:
            self._doubt(node, f"cannot tell which file {evidence} reads (its name may come from the input)")

    def _touch(self, path: str, sense: Sense, node: Node, evidence: str, tree: Walk | None = None) -> None:
        """``path`` touched (a ``file:`` URL string: the file it names, as Bun and Deno read it)."""
        if path[:5].lower() == "file:":
            path = file_url_path(path, whatwg=True) or path
        if not path:
            return
        if path.startswith("/"):
            absolute = collapse(path)
        elif self.cwd is None:
            self._doubt(node, f"cannot tell where `{short(path)}` is: the working directory is unknown")
            return
        else:
            absolute = collapse(f"{self.cwd}/{path}")
        if pseudo_file(absolute):
            return
        self.effects.append(Effect(absolute, sense, node.start_point.row + 1, evidence, tree))
