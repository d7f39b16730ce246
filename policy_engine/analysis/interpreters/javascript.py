"""What JavaScript or TypeScript given inline to an interpreter does (``node -e``, ``node -p``, ``bun -e``,
``deno eval``, a heredoc into node), read statically with tree-sitter.

A user who allows ``node *`` still wants the program that deletes ``~`` or writes outside the project
caught, and does not want to be asked about ``console.log(JSON.stringify(x))``. So the walk follows
the source in statement order and evaluates what it can without running anything:

* constants: string literals, templates and ``+`` of known parts, arrays of them, ``[...].join``,
  ``path.join``, ``os.homedir()``, ``process.cwd()``, and names bound in straight-line code;
* the runtime: which names hold a built-in module or one of its functions (``require``, ``import``,
  destructuring, aliases), so that ``fs.rmSync`` is recognised however it is spelt;
* the working directory, moved by ``process.chdir`` and ``Deno.chdir``.

Whatever could hide an effect from such a reading is a doubt: code built from strings, modules whose
code is not read, effectful functions passed around as values, a write to a path computed at run
time, a computed member of a module. Reading a file is never a doubt by itself, except of a file named
at run time by a program that reads its input. A recursive delete, a rename or a copy acts on the whole
tree under its path (``_TREES``); a ``file:`` URL stands for the file it names.

Knowledge of the runtimes is data (the tables at the end of the module); the walk is a ``{node type:
handler}`` dispatch. A value is a ``str`` (a known string), a ``Num``, ``Strings`` (an array of known
strings), an ``Api`` (a module, global or member of one), ``DATA`` (harmless content we do not
know) or None (unknown, and possibly anything).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, TypeAlias

from ...model import Sense
from ...paths import collapse, pseudo_file
from ...record import Record
from ..shell.grammar import first_error_line, parse
from .findings import Contact, Effect, Execution, Mentions, Program, Setting, file_url_path

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_NESTING = 100  # syntax nested deeper than this is not followed (and keeps Python's stack small)


class Num(Record):
    """A number: its decimal spelling when it is a plain integer literal, else None."""

    text: str | None


class Strings(Record):
    """An array of known strings, such as an argument vector."""

    items: tuple[str, ...]


class Api(Record):
    """A known part of the runtime: a module or global (``fs``, ``process``, ``eval``), one of its
    members (``fs`` and ``rmSync``), or the file a ``Bun.file(path)`` or a ``file:`` URL object
    (``new URL("file:///x")``, module ``URL``) stands for (member ``file()``; path None: computed)."""

    module: str
    member: str = ""
    path: str | None = None

    @property
    def name(self) -> str:
        return f"{self.module}.{self.member}" if self.member else self.module


class _Data:
    """A value whose content is unknown but which cannot be a module or one of its functions (an
    object or regex literal, the result of a string method): calls on it are not doubts."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DATA"


DATA = _Data()

Value: TypeAlias = str | Num | Strings | Api | _Data | None
_Options: TypeAlias = "dict[str, tuple[Value, Node]]"


class _Survey(Record):
    """What a whole tree (or loop) shows before it is walked: the names assigned in it, those assigned
    inside functions (which may run at any time, so their value is never known), and whether it
    changes directory, anywhere or inside a function (which may be called before it is defined)."""

    assigned: frozenset[str]
    assigned_in_functions: frozenset[str]
    moves: bool
    moves_in_function: bool


class _Scope:
    """The names a block or function binds. ``function`` tells which function body the scope belongs
    to (0: the top level); ``boundary`` says that ``var`` declarations stop here."""

    __slots__ = ("boundary", "function", "names", "parent")

    def __init__(self, parent: _Scope | None, function: int, boundary: bool) -> None:
        self.names: dict[str, Value] = {}
        self.parent = parent
        self.function = function
        self.boundary = boundary


def analyze(source: str, setting: Setting, typescript: bool = False) -> Program:
    """What ``source`` does as far as its text shows: the files it touches, the commands it runs, the
    machines it talks to, and what cannot be proven. Never raises: whatever goes wrong is a doubt."""
    label = "TypeScript" if typescript else "JavaScript"
    analysis: _Analysis | None = None
    try:
        data = source.encode("utf-8", "replace")
        root = parse(data, "typescript" if typescript else "javascript").root_node
        survey = _survey(root, data, setting.max_nodes)
        if survey is None:
            limit = setting.max_nodes
            return Program(
                doubts=(f"line 1: the {label} source has more than {limit} syntax nodes; it is not analysed",)
            )
        analysis = _Analysis(data, setting, survey)
        if root.has_error:
            analysis.doubts.append(f"line {first_error_line(root)}: the code does not parse as {label}")
        analysis.visit(root)
        return analysis.program()
    except Exception as error:  # the analysis must never take the engine down: it asks instead
        found = analysis.program() if analysis is not None else Program()
        failure = f"line 1: the {label} analysis failed ({type(error).__name__}); the code is not analysed"
        return found._replace(doubts=(*found.doubts, failure))


# -- the survey -------------------------------------------------------------------------------------


def _survey(root: Node, source: bytes, limit: int) -> _Survey | None:
    """The survey of ``root``, or None when it has more than ``limit`` named nodes. Iterative, so that
    no nesting can exhaust the stack."""
    count = 0
    assigned: set[str] = set()
    in_functions: set[str] = set()
    moves = moves_in_function = False
    pending: list[tuple[Node, bool]] = [(root, False)]
    while pending:
        node, inside = pending.pop()
        if node.is_named:
            count += 1
            if count > limit:
                return None
        names = _assigned_names(node, source)
        assigned.update(names)
        if inside:
            in_functions.update(names)
        if node.end_byte - node.start_byte == 5 and source[node.start_byte : node.end_byte] == b"chdir":
            moves = True
            moves_in_function = moves_in_function or inside
        nested = inside or node.type in _FUNCTIONS or node.type == "class_body"
        pending.extend((child, nested) for child in node.children)
    return _Survey(frozenset(assigned), frozenset(in_functions), moves, moves_in_function)


def _assigned_names(node: Node, source: bytes) -> list[str]:
    """The names ``node`` assigns (not declares): ``x = ...``, ``x += ...``, ``x++``, ``for (x of ...)``."""
    if node.type in ("assignment_expression", "augmented_assignment_expression"):
        target = node.child_by_field_name("left")
    elif node.type == "update_expression":
        target = node.child_by_field_name("argument")
    elif node.type == "for_in_statement" and node.child_by_field_name("kind") is None:
        target = node.child_by_field_name("left")
    else:
        return []
    names: list[str] = []
    pending = [target] if target is not None else []
    while pending:
        current = pending.pop()
        if current.type in ("identifier", "shorthand_property_identifier_pattern"):
            names.append(source[current.start_byte : current.end_byte].decode("utf-8", "replace"))
        elif current.type in ("assignment_pattern", "object_assignment_pattern"):
            pending.extend(current.children_by_field_name("left"))
        elif current.type == "pair_pattern":
            pending.extend(current.children_by_field_name("value"))
        elif current.type in _PATTERNS:
            pending.extend(current.named_children)
    return names


# -- values -----------------------------------------------------------------------------------------

_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{1,3}|\r\n|.)", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v"}
_CONTINUATIONS = ("\n", "\r", "\r\n", "\u2028", "\u2029")


def _words(text: str) -> frozenset[str]:
    """A table of names, written as one string to keep it readable."""
    return frozenset(text.split())


def _unescape(text: str) -> str:
    """A JavaScript string's escapes decoded (``\\n``, ``\\x41``, ``\\u{1F600}``, line continuations)."""

    def one(match: re.Match[str]) -> str:
        body = match.group(1)
        if body[0] == "u" and len(body) > 1:
            code = int(body[2:-1] if body[1] == "{" else body[1:], 16)
            return "\ufffd" if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF else chr(code)
        if body[0] == "x" and len(body) == 3:
            return chr(int(body[1:], 16))
        if body[0] in "01234567":
            return chr(int(body, 8))
        if body in _CONTINUATIONS:
            return ""
        return _SIMPLE_ESCAPES.get(body, body)

    return _ESCAPE.sub(one, text)


def _as_text(value: Value) -> str | None:
    """How a known string or integer prints, else None."""
    if isinstance(value, str):
        return value
    return value.text if isinstance(value, Num) else None


def _plus(left: Value, right: Value) -> Value:
    """JavaScript's ``+`` on abstract values: concatenation when both sides are known."""
    if isinstance(left, str) or isinstance(right, str):
        first, second = _as_text(left), _as_text(right)
        return first + second if first is not None and second is not None else DATA
    return Num(None) if isinstance(left, Num) and isinstance(right, Num) else DATA


def _join(parts: list[str]) -> str:
    """``path.join``: the non-empty parts joined with ``/`` and normalized (``.`` when empty)."""
    joined = "/".join(part for part in parts if part)
    return posixpath.normpath(joined) if joined else "."


def _key(api: Api) -> str:
    """The name an API is looked up under: ``fs.promises.X`` is ``fs.X``, and ``Sync`` is dropped."""
    module = "fs" if api.module == "fs.promises" else api.module
    member = _SYNC.sub("", api.member)
    return f"{module}.{member}" if member else module


def _inert(api: Api) -> bool:
    """Whether ``api`` does nothing worth following when passed around or called: pure modules and
    the harmless members of the others (``process.argv``, ``fs.constants``)."""
    if api.module in _PURE:
        return _key(api) not in _DOUBTS
    harmless = _HARMLESS.get(api.module)
    return harmless is not None and _SYNC.sub("", api.member).split(".")[0] in harmless


def _global(name: str) -> Value:
    """What a name that no scope binds refers to."""
    if name in _GLOBAL_OBJECTS:
        return Api("globalThis")
    if name in _GLOBAL_APIS:
        return Api(name)
    return _GLOBAL_VALUES.get(name)


def _short(text: str) -> str:
    """``text`` fit for one line of a doubt."""
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


# A program that reads its standard input (process.stdin, readline, prompt(), fs.readFileSync(0)).
_READS_INPUT = re.compile(
    rb"stdin|readline|\bprompt\s*\(|/dev/fd/0|/dev/tty|\b(?:readFileSync|readSync|readFile|read)\s*\(\s*0\s*[,)]"
)


# -- the walk ---------------------------------------------------------------------------------------


class _Analysis(Mentions):
    """One walk over one source: the current scope, directory and nesting, and what has been found.

    ``visit`` evaluates a node and records what evaluating it does; ``value`` does the same for a node
    whose value is handed on (an argument, an element, a stored value), where a module or one of its
    functions escapes our sight and becomes a doubt.
    """

    INPUT = _READS_INPUT

    def __init__(self, source: bytes, setting: Setting, survey: _Survey) -> None:
        self.source = source
        self.setting = setting
        self.survey = survey
        self.effects: list[Effect] = []
        self.executions: list[Execution] = []
        self.contacts: list[Contact] = []
        self.doubts: list[str] = []
        self.top = self.scope = _Scope(None, 0, True)
        self.function = 0
        self.functions = 0
        # A function that changes directory may be called before its definition (it is hoisted).
        self.cwd = None if survey.moves_in_function else setting.cwd
        self.moves = 0
        self.log: list[tuple[_Scope, str]] = []  # every binding made, for the regions to forget
        self.depth = 0
        self.too_deep = False

    def program(self) -> Program:
        return Program(
            tuple(dict.fromkeys(self.effects)),
            tuple(dict.fromkeys(self.executions)),
            tuple(dict.fromkeys(self.contacts)),
            tuple(dict.fromkeys(self.doubts)),
        )

    # -- helpers --------------------------------------------------------------------------------

    def _text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def _doubt(self, node: Node, message: str) -> None:
        self.doubts.append(f"line {node.start_point.row + 1}: {message}")

    def _contact(self, node: Node, evidence: str) -> None:
        self.contacts.append(Contact(node.start_point.row + 1, evidence))

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
            handler = _HANDLERS.get(node.type)
            if handler is None:
                handler = _Analysis._nothing if _is_type(node.type) else _Analysis._children
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
        if api.member == "env" and api.module in _ENV_HOLDERS:
            self._doubt(node, "reads every environment variable, secrets included")
            return DATA
        if api.member == "file()":
            if api.path is not None:
                self._touch(api.path, Sense.READ, node, "Bun.file" if api.module == "Bun" else "a file: URL")
            return DATA
        if api.module in _NETWORK:
            self._contact(node, api.name)
            return DATA
        if _inert(api):
            return api
        self._doubt(node, f"uses {api.name} as a value, so what calls it cannot be followed")
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

    def _scoped(self, run: Callable[[], object]) -> None:
        outer = self.scope
        self.scope = _Scope(outer, self.function, False)
        try:
            run()
        finally:
            self.scope = outer

    def _each(self, nodes: Iterable[Node]) -> Value:
        """Statements in order, after binding the functions they declare (which are hoisted)."""
        nodes = list(nodes)
        for node in nodes:
            name = node.child_by_field_name("name") if node.type in _DECLARED_FUNCTIONS else None
            if name is not None:
                self._set(self._function_scope(), self._text(name), DATA, name)
        for node in nodes:
            self.visit(node)
        return None

    def _function_scope(self) -> _Scope:
        scope = self.scope
        while not scope.boundary and scope.parent is not None:
            scope = scope.parent
        return scope

    # -- names ----------------------------------------------------------------------------------

    def _holder(self, name: str) -> _Scope | None:
        scope: _Scope | None = self.scope
        while scope is not None and name not in scope.names:
            scope = scope.parent
        return scope

    def _lookup(self, name: str) -> Value:
        """The value of a name where it is read. A name that a function assigns may change at any
        call, and a name of an enclosing function that is ever reassigned may have changed by the
        time this function runs."""
        scope = self._holder(name)
        if scope is None:
            return None if name in self.survey.assigned else _global(name)
        if name in self.survey.assigned_in_functions:
            return None
        if scope.function != self.function and name in self.survey.assigned:
            return None
        return scope.names[name]

    def _set(self, scope: _Scope | None, name: str, value: Value, node: Node) -> None:
        """Bind ``name`` (in ``scope``, or where it is bound already for an assignment). A module or
        its function is followed only under a name that is never reassigned."""
        if scope is None:
            scope = self._holder(name) or self.top
        if isinstance(value, Api) and name in self.survey.assigned:
            value = self._escape(value, node)
        scope.names[name] = value
        self.log.append((scope, name))

    def _bind(self, pattern: Node, value: Value, scope: _Scope | None) -> None:
        """Bind the names of a declaration or assignment target to (the parts of) ``value``."""
        kind = pattern.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            self._set(scope, self._text(pattern), value, pattern)
        elif kind == "object_pattern":
            for child in pattern.named_children:
                self._bind_property(child, value, scope)
        elif kind == "array_pattern":
            for child in pattern.named_children:
                self._bind(child, None, scope)
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            right, left = pattern.child_by_field_name("right"), pattern.child_by_field_name("left")
            if right is not None:
                self.value(right)
            if left is not None:
                self._bind(left, value, scope)
        elif kind == "rest_pattern":
            for child in pattern.named_children:
                self._bind(child, None, scope)
        elif kind not in ("comment", "this"):
            self.visit(pattern)  # a member of an object, as the target of an assignment

    def _bind_property(self, child: Node, value: Value, scope: _Scope | None) -> None:
        """One property of an object pattern: ``{rmSync: rm}``, ``{HOME}``, ``{a = 1}``, ``{...rest}``."""
        if child.type == "shorthand_property_identifier_pattern":
            self._bind(child, self._property(value, self._text(child), child), scope)
        elif child.type == "object_assignment_pattern":
            left, right = child.child_by_field_name("left"), child.child_by_field_name("right")
            if right is not None:
                self.value(right)
            if left is not None:
                self._bind(left, self._property(value, self._text(left), child), scope)
        elif child.type == "pair_pattern":
            key, inner = child.child_by_field_name("key"), child.child_by_field_name("value")
            name = self._key_name(key)
            if name is None and isinstance(value, Api) and not _inert(value):
                self._doubt(child, f"reaches a member of {value.name} computed at run time")
            member = self._property(value, name, child) if name is not None else None
            if inner is not None:
                self._bind(inner, member, scope)
        elif child.type == "rest_pattern":
            if isinstance(value, Api) and value.member == "env" and value.module in _ENV_HOLDERS:
                self._doubt(child, "reads every environment variable, secrets included")
                value = None
            for inner in child.named_children:
                self._bind(inner, value if isinstance(value, Api) else None, scope)

    def _property(self, value: Value, name: str, node: Node) -> Value:
        """A named property of a destructured value."""
        if name == "constructor":
            self._constructor(node)
        return self._api_member(value, name, node) if isinstance(value, Api) else None

    def _key_name(self, key: Node | None) -> str | None:
        """The name of a property key, when it is known."""
        if key is None:
            return None
        if key.type in ("property_identifier", "private_property_identifier", "number"):
            return self._text(key)
        inner = key.named_children[0] if key.type == "computed_property_name" and key.named_children else key
        name = self.value(inner)
        return name if isinstance(name, str) else None

    # -- statements -----------------------------------------------------------------------------

    def _nothing(self, node: Node) -> Value:
        return None

    def _children(self, node: Node) -> Value:
        for child in node.named_children:
            self.value(child)
        return None

    def _sequence(self, node: Node) -> Value:
        return self._each(node.named_children)

    def _block(self, node: Node) -> Value:
        self._scoped(lambda: self._each(node.named_children))
        return None

    def _if(self, node: Node) -> Value:
        condition = node.child_by_field_name("condition")
        if condition is not None:
            self.value(condition)
        for field in ("consequence", "alternative"):
            branch = node.child_by_field_name(field)
            if branch is not None:
                self._region(partial(self.visit, branch))
        return None

    def _switch(self, node: Node) -> Value:
        subject, body = node.child_by_field_name("value"), node.child_by_field_name("body")
        if subject is not None:
            self.value(subject)
        if body is not None:
            cases = [partial(self.visit, case) for case in body.named_children]
            self._scoped(lambda: [self._region(case) for case in cases])
        return None

    def _try(self, node: Node) -> Value:
        """Each part may stop anywhere or not run: a region each."""
        for part in node.named_children:
            self._region(partial(self.visit, part))
        return None

    def _catch(self, node: Node) -> Value:
        parameter, body = node.child_by_field_name("parameter"), node.child_by_field_name("body")

        def run() -> None:
            if parameter is not None:
                self._bind(parameter, None, self.scope)
            if body is not None:
                self._each(body.named_children)

        self._scoped(run)
        return None

    def _enter_loop(self, node: Node) -> None:
        """A loop body runs again after itself: what it assigns is unknown from its first line on."""
        if not self.survey.assigned and not self.survey.moves:
            return
        survey = _survey(node, self.source, 1 << 62)
        if survey is None:
            return
        for name in survey.assigned:
            scope = self._holder(name)
            if scope is not None:
                scope.names[name] = None
        if survey.moves:
            self.cwd = None

    def _for(self, node: Node) -> Value:
        initializer = node.child_by_field_name("initializer")
        rest = [c for c in node.named_children if initializer is None or c != initializer]

        def run() -> None:
            if initializer is not None:
                self.visit(initializer)
            self._enter_loop(node)
            self._region(partial(self._each, rest))

        self._scoped(run)
        return None

    def _for_in(self, node: Node) -> Value:
        right, left = node.child_by_field_name("right"), node.child_by_field_name("left")
        body = node.child_by_field_name("body")
        declares = node.child_by_field_name("kind") is not None
        if right is not None:
            self.value(right)

        def run() -> None:
            self._enter_loop(node)
            if left is not None:
                self._bind(left, None, self.scope if declares else None)
            if body is not None:
                self._region(partial(self.visit, body))

        self._scoped(run)
        return None

    def _loop(self, node: Node) -> Value:
        self._enter_loop(node)
        self._region(partial(self._each, node.named_children))
        return None

    def _with(self, node: Node) -> Value:
        self._doubt(node, "`with` changes what names refer to")
        return self._children(node)

    def _declaration(self, node: Node) -> Value:
        """``const``/``let``/``var`` (``var`` binds in the enclosing function)."""
        scope = self._function_scope() if node.type == "variable_declaration" else self.scope
        for child in node.named_children:
            if child.type != "variable_declarator":
                continue
            name, initial = child.child_by_field_name("name"), child.child_by_field_name("value")
            value = self.visit(initial) if initial is not None else None
            if name is not None:
                self._bind(name, value, scope)
        return None

    def _function_declaration(self, node: Node) -> Value:
        name = node.child_by_field_name("name")
        if name is not None:
            self._set(self._function_scope(), self._text(name), DATA, name)
        return self._function(node)

    def _function(self, node: Node) -> Value:
        """A function body is judged where it is defined, as if it ran: its parameters are unknown,
        and so is the working directory if the program changes it anywhere."""

        def run() -> Value:
            outer, function = self.scope, self.function
            name = node.child_by_field_name("name")
            if name is not None and name.type == "computed_property_name":
                self.value(name)
            self.functions += 1
            self.function = self.functions
            self.scope = _Scope(outer, self.function, True)
            if self.survey.moves:
                self.cwd = None
            try:
                for field in ("parameters", "parameter"):
                    parameters = node.child_by_field_name(field)
                    if parameters is not None:
                        self._parameters(parameters)
                body = node.child_by_field_name("body")
                if body is not None and body.type == "statement_block":
                    self._each(body.named_children)
                elif body is not None:
                    self.value(body)
            finally:
                self.scope, self.function = outer, function
            return DATA

        return self._region(run)

    def _parameters(self, node: Node) -> None:
        if node.type != "formal_parameters":
            self._bind(node, None, self.scope)
            return
        for child in node.named_children:
            if child.type in ("required_parameter", "optional_parameter"):
                default, pattern = child.child_by_field_name("value"), child.child_by_field_name("pattern")
                if default is not None:
                    self.value(default)
                if pattern is not None:
                    self._bind(pattern, None, self.scope)
            else:
                self._bind(child, None, self.scope)

    def _class(self, node: Node) -> Value:
        """A class: its heritage and decorators run now, its members when it is used (a region)."""
        name = node.child_by_field_name("name")
        if name is not None and node.type != "class":
            self._set(self.scope, self._text(name), DATA, name)
        for child in node.named_children:
            if child.type == "class_body":
                self._region(partial(self._class_body, child))
            elif child.type in ("class_heritage", "decorator", "extends_clause"):
                self._children(child)
        return DATA

    def _class_body(self, body: Node) -> Value:
        for member in body.named_children:
            if member.type in ("method_definition", "class_static_block"):
                self._function(member)
            elif member.type in ("field_definition", "public_field_definition", "decorator"):
                for child in member.named_children:
                    if child.type not in ("property_identifier", "private_property_identifier"):
                        self.value(child)
        return None

    def _import(self, node: Node) -> Value:
        if any(child.type == "type" for child in node.children):
            return None  # `import type`: nothing is loaded
        source = node.child_by_field_name("source")
        clause = next(
            (c for c in node.named_children if c.type in ("import_clause", "import_require_clause")), None
        )
        if clause is not None and clause.type == "import_require_clause":
            source = clause.child_by_field_name("source")
        specifier = self.visit(source) if source is not None else None
        if not isinstance(specifier, str):
            return None
        module = self._load(specifier, node, "import")
        if clause is not None:
            self._import_names(clause, module)
        return None

    def _import_names(self, clause: Node, module: Value) -> None:
        for child in clause.named_children:
            if child.type == "identifier":
                self._set(self.scope, self._text(child), module, child)
            elif child.type == "namespace_import":
                for binding in child.named_children:
                    self._set(self.scope, self._text(binding), module, binding)
            elif child.type == "named_imports":
                for specifier in child.named_children:
                    name = specifier.child_by_field_name("name")
                    if name is None or any(c.type == "type" for c in specifier.children):
                        continue
                    alias = specifier.child_by_field_name("alias") or name
                    member = self._property(module, self._text(name).strip("'\""), specifier)
                    self._set(self.scope, self._text(alias), member, specifier)

    def _export(self, node: Node) -> Value:
        source = node.child_by_field_name("source")
        if source is not None and not any(child.type == "type" for child in node.children):
            specifier = self.visit(source)
            if isinstance(specifier, str):
                self._load(specifier, node, "export")
        for field in ("declaration", "value"):
            child = node.child_by_field_name(field)
            if child is not None:
                self.value(child)
        return None

    def _load(self, specifier: str, node: Node, how: str) -> Value:
        """What loading a module gives: a built-in's API, a JSON file's data (a read), or a doubt."""
        name = specifier.removeprefix("node:")
        module = _MODULES.get(name)
        if module is not None:
            return Api(module)
        if name.endswith(".json") and name.startswith(("./", "../", "/")):
            self._touch(name, Sense.READ, node, how)
            problem = self._json_module(name)
            if problem is not None:
                self._doubt(node, f"loads {_short(specifier)}, which {problem}; its code is not analysed")
            return DATA
        self._doubt(node, f"loads the module {_short(specifier)}, whose code is not analysed")
        return None

    def _json_module(self, name: str) -> str | None:
        """Why loading the relative or absolute ``name.json`` may run code, or None when it only
        parses JSON. The loader follows the file found: a directory is a package (its main or
        index.js runs), a symbolic link is loaded by its target's extension, and a name that does
        not exist is tried with .js, .node, .ts... appended. A relative name is found from the
        directory the program started in (not one it moved to)."""
        start = self.setting.cwd
        if not name.startswith("/") and (start is None or self.cwd != start):
            return "is looked for from a directory that cannot be told"
        if not self.setting.settled:
            return "an earlier command may have written"
        path = collapse(name) if name.startswith("/") else collapse(f"{start}/{name}")
        if os.path.lexists(path):
            if not os.path.isfile(path):
                return "is a directory, a package whose main file would run"
            target = os.path.realpath(path)
            return None if target.endswith(".json") else f"is a link to {target}, loaded as code"
        directory, base = os.path.split(path)
        try:
            others = sorted(entry for entry in os.listdir(directory) if entry.startswith(base + "."))
        except OSError:
            return None  # no such directory: loading fails
        return f"does not exist, so {others[0]} would be loaded instead" if others else None

    # -- expressions ----------------------------------------------------------------------------

    def _data(self, node: Node) -> Value:
        return DATA

    def _identifier(self, node: Node) -> Value:
        return self._lookup(self._text(node))

    def _first(self, node: Node) -> Value:
        """The value of a wrapper (parentheses, ``as``, ``!``, ``satisfies``): its expression."""
        for child in node.named_children:
            if child.type != "comment" and not _is_type(child.type):
                return self.visit(child)
        return None

    def _last(self, node: Node) -> Value:
        for child in reversed(node.named_children):
            if child.type != "comment" and not _is_type(child.type):
                return self.visit(child)
        return None

    def _inner(self, node: Node) -> Value:
        result: Value = None
        children = [c for c in node.named_children if c.type != "comment"]
        for index, child in enumerate(children):
            result = self.visit(child) if index == len(children) - 1 else self.value(child)
        return result

    def _string(self, node: Node) -> Value:
        parts = []
        for child in node.children:
            if child.type == "escape_sequence":
                parts.append(_unescape(self._text(child)))
            elif child.is_named:
                parts.append(self._text(child))
        return "".join(parts)

    def _template(self, node: Node) -> Value:
        parts: list[str] = []
        known = True
        for child in node.children:
            if child.type == "escape_sequence":
                parts.append(_unescape(self._text(child)))
            elif child.type == "template_substitution":
                text = _as_text(self._inner(child) if child.named_children else None)
                known = known and text is not None
                parts.append(text or "")
            elif child.type == "string_fragment":
                parts.append(self._text(child))
        return "".join(parts) if known else DATA

    def _number(self, node: Node) -> Value:
        text = self._text(node)
        plain = text.isascii() and text.isdigit() and (text == "0" or not text.startswith("0"))
        return Num(text if plain else None)

    def _object(self, node: Node) -> Value:
        self._children(node)
        return DATA

    def _pair(self, node: Node) -> Value:
        key, value = node.child_by_field_name("key"), node.child_by_field_name("value")
        if key is not None and key.type == "computed_property_name":
            self._children(key)
        if value is not None:
            self.value(value)
        return None

    def _array(self, node: Node) -> Value:
        """An array literal: ``Strings`` when every element is a known string or integer (an argv)."""
        items: list[str] = []
        known = True
        for child in node.named_children:
            if child.type == "comment":
                continue
            spread = child.type == "spread_element"
            value = self._first(child) if spread else self.value(child)
            if spread and isinstance(value, Api):
                value = self._escape(value, child)
            text = _as_text(value)
            if spread and isinstance(value, Strings):
                items.extend(value.items)
            elif not spread and text is not None:
                items.append(text)
            else:
                known = False
        return Strings(tuple(items)) if known else DATA

    def _member_expression(self, node: Node) -> Value:
        target, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        receiver = self.visit(target) if target is not None else None
        return self._member(receiver, self._text(prop), node)

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
            return _global(name)
        if api.member == "file()":
            return DATA
        if api.member == "env" and api.module in ("process", "Bun"):
            return self._env_read(name, node)
        qualified = f"{api.name}.{name}"
        if qualified in _CONSTANTS:
            return _CONSTANTS[qualified]
        if qualified in _ALIASES:
            return Api(_ALIASES[qualified])
        if name == "default" and not api.member:
            return api
        return Api(api.module, f"{api.member}.{name}" if api.member else name)

    def _subscript(self, node: Node) -> Value:
        target, index = node.child_by_field_name("object"), node.child_by_field_name("index")
        receiver = self.visit(target) if target is not None else None
        key = self.value(index) if index is not None else None
        return self._element(receiver, key, index, node)

    def _element(self, receiver: Value, key: Value, index: Node | None, node: Node) -> Value:
        """``receiver[key]``: a computed member of a module is a doubt even when we can fold it."""
        if isinstance(receiver, Api):
            if receiver.member == "env" and receiver.module in ("process", "Bun"):
                if isinstance(key, str):
                    return self._env_read(key, node)
                self._doubt(node, "reads an environment variable whose name is computed at run time")
                return DATA
            if index is not None and index.type != "string" and not _inert(receiver):
                self._doubt(node, f"reaches a member of {receiver.name} computed at run time")
            return self._member(receiver, key, node) if isinstance(key, str) else None
        if key == "constructor":
            self._constructor(node)
        return None if receiver is None else DATA

    def _env_read(self, name: str, node: Node) -> Value:
        if self.setting.secret(name):
            self._doubt(node, f"reads ${name}, which looks like a secret")
        return self.setting.home if name == "HOME" else DATA

    def _assignment(self, node: Node) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        value = self.visit(right) if right is not None else None
        if left is None:
            return value
        if left.type in ("member_expression", "subscript_expression"):
            self._store(left)
            return self._escape(value, left) if isinstance(value, Api) else value
        self._bind(left, value, None)
        return value

    def _augmented(self, node: Node) -> Value:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if right is not None:
            self.value(right)
        self._forget(left)
        return DATA

    def _update(self, node: Node) -> Value:
        self._forget(node.child_by_field_name("argument"))
        return DATA

    def _forget(self, target: Node | None) -> None:
        """A name changed in a way we do not compute (``+=``, ``++``)."""
        if target is None:
            return
        if target.type == "identifier":
            self._set(None, self._text(target), None, target)
        elif target.type in ("member_expression", "subscript_expression"):
            self._store(target)
        else:
            self.visit(target)

    def _store(self, target: Node) -> None:
        """The object of an assignment to a member; setting a variable such as ``PATH`` in the
        environment changes what later commands run."""
        holder = target.child_by_field_name("object")
        receiver = self.visit(holder) if holder is not None else None
        if target.type == "member_expression":
            name: Value = self._text(target.child_by_field_name("property"))
        else:
            index = target.child_by_field_name("index")
            name = self.value(index) if index is not None else None
        if isinstance(receiver, Api) and receiver.member == "env" and receiver.module in _ENV_HOLDERS:
            self._steering(name, target)

    def _steering(self, name: Value, node: Node) -> None:
        """Setting ``PATH`` (or a name we cannot read) changes what later commands run."""
        if not isinstance(name, str) or name in _STEERING:
            shown = name if isinstance(name, str) else "?"
            self._doubt(node, f"sets ${shown}, which changes what later commands run")

    def _binary(self, node: Node) -> Value:
        operator = self._text(node.child_by_field_name("operator"))
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return self._children(node)
        if operator == "+":
            return self._sum(node)
        if operator in ("&&", "||", "??"):
            first = self.value(left)
            second = self._region(partial(self.value, right))
            return DATA if first is not None and second is not None else None
        if operator in _COMPARISONS:  # comparing a module with something hands it to no one
            self.visit(left)
            self.visit(right)
        else:
            self.value(left)
            self.value(right)
        return DATA

    def _sum(self, node: Node) -> Value:
        """A chain of ``+`` (nested to the left, as deep as it is long), folded without recursion."""
        operands: list[Node] = []
        current = node
        while (
            current.type == "binary_expression" and self._text(current.child_by_field_name("operator")) == "+"
        ):
            left, right = current.child_by_field_name("left"), current.child_by_field_name("right")
            if left is None or right is None:
                break
            operands.append(right)
            current = left
        result = self.value(current) if current != node else self._children(node)
        for operand in reversed(operands):
            result = _plus(result, self.value(operand))
        return result

    def _unary(self, node: Node) -> Value:
        operator = self._text(node.child_by_field_name("operator"))
        argument = node.child_by_field_name("argument")
        if argument is not None and operator in ("typeof", "delete", "void"):
            self.visit(argument)  # looking at a module does not hand it on
        elif argument is not None:
            self.value(argument)
        return DATA

    def _ternary(self, node: Node) -> Value:
        condition = node.child_by_field_name("condition")
        if condition is not None:
            self.value(condition)
        results = []
        for field in ("consequence", "alternative"):
            branch = node.child_by_field_name(field)
            if branch is not None:
                results.append(self._region(partial(self.value, branch)))
        if len(results) == 2 and results[0] == results[1]:
            return results[0]
        return DATA if all(r is not None for r in results) else None

    def _new(self, node: Node) -> Value:
        constructor, arguments = (
            node.child_by_field_name("constructor"),
            node.child_by_field_name("arguments"),
        )
        args = self._arguments(arguments)
        callee = self.visit(constructor) if constructor is not None else None
        if isinstance(callee, Api):
            return self._api_call(callee, args, node)
        for argument in args:
            self.value(argument)
        return None if callee is None else DATA

    # -- calls ----------------------------------------------------------------------------------

    def _arguments(self, node: Node | None) -> list[Node]:
        if node is None:
            return []
        return [child for child in node.named_children if child.type != "comment"]

    def _call(self, node: Node) -> Value:
        function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if function is None or arguments is None:
            return self._children(node)
        if function.type == "import":
            return self._dynamic_import(self._arguments(arguments), node)
        if arguments.type == "template_string":
            return self._tagged(function, arguments, node)
        args = self._arguments(arguments)
        self._socket_path(function, args, node)
        target = function.child_by_field_name("object")
        if target is not None and function.type in ("member_expression", "subscript_expression"):
            # A method: the receiver is kept, to judge methods of values that are not modules.
            receiver = self.visit(target)
            index = function.child_by_field_name("index")
            if function.type == "member_expression":
                name: Value = self._text(function.child_by_field_name("property"))
            else:
                name = self.value(index) if index is not None else None
            if isinstance(name, str) and (not isinstance(receiver, Api) or receiver.member == "file()"):
                if name == "constructor":
                    self._constructor(function)
                return self._method(receiver, name, args, node)
            if function.type == "member_expression" and isinstance(name, str):
                callee = self._member(receiver, name, function)
            else:
                callee = self._element(receiver, name, index, function)
        else:
            callee = self.visit(function)
        if isinstance(callee, Api):
            return self._api_call(callee, args, node)
        for argument in args:
            self.value(argument)
        return None

    def _socket_path(self, function: Node, args: list[Node], node: Node) -> None:
        """``x.listen('/run/app.sock')``, ``net.connect('/x.sock')``: a unix socket at that path,
        which listening or connecting writes (the engine's daemon socket is self-protected)."""
        name = self._text(function).rsplit(".", 1)[-1]
        if name in _SOCKET_CALLS and args and args[0].type == "string":
            path = self.value(args[0])
            if isinstance(path, str) and path.startswith("/"):
                self._touch(path, Sense.WRITE, node, f"{name} on a unix socket")

    def _method(self, receiver: Value, name: str, args: list[Node], node: Node) -> Value:
        """A method of a plain value: harmless, but folded where it builds a string (``join``), and a
        doubt where an unknown value may be a module (``x.rmSync(p)``)."""
        if isinstance(receiver, Api):
            return self._bun_file_method(receiver, name, args, node)
        values = [self.value(argument) for argument in args]
        if receiver is None:
            if name in _SUSPECT:
                self._doubt(
                    node, f"cannot tell what .{name}() is called on (it may change files or run commands)"
                )
            return None
        if name == "join" and isinstance(receiver, Strings):
            separator = values[0] if values else ","
            return separator.join(receiver.items) if isinstance(separator, str) else DATA
        if name == "concat" and isinstance(receiver, str):
            texts = [_as_text(value) for value in values]
            return receiver + "".join(t for t in texts if t is not None) if None not in texts else DATA
        if name in ("toString", "valueOf") and isinstance(receiver, str):
            return receiver
        return DATA

    def _dynamic_import(self, args: list[Node], node: Node) -> Value:
        values = [self.value(argument) for argument in args]
        if values and isinstance(values[0], str):
            return self._load(values[0], node, "import")
        self._doubt(node, "imports a module computed at run time")
        return None

    def _tagged(self, function: Node, template: Node, node: Node) -> Value:
        """A tagged template: ``Bun.$`ls``` runs shell code; a known API given the template is a doubt."""
        callee = self.visit(function)
        text = self.visit(template)
        if isinstance(callee, Api) and callee.name == "Bun.$":
            if isinstance(text, str):
                self.executions.append(Execution(node.start_point.row + 1, "Bun.$", shell=text, cwd=self.cwd))
            else:
                self._doubt(node, "Bun.$ runs a command computed at run time")
            return DATA
        if isinstance(callee, Api):  # setTimeout`code` and Function`code` take the template as code
            self._doubt(node, f"{callee.name} is called with a template string")
        return None

    def _api_call(self, api: Api, args: list[Node], node: Node) -> Value:
        """A call (or ``new``) of a known API, judged by the tables."""
        key = _key(api)
        special = _SPECIAL.get(key)
        if special is not None:
            return special(self, api, args, node)
        files = _FILES.get(key)
        if files is not None:
            return self._files(api, files, args, node)
        runner = _RUNS.get(key)
        if runner is not None:
            runner(self, api, args, node)
            return DATA
        for argument in args:
            self.value(argument)
        reason = _DOUBTS.get(key)
        if reason is None and api.module in _CODE:
            reason = "runs code that is not analysed"
        if reason is None and (api.module in _NETWORK or key in _CONTACTS):
            self._contact(node, api.name)
            return DATA
        if reason is None and api.module in _STRICT and not _inert(api):
            reason = "is not analysed"
        if reason is not None:
            self._doubt(node, f"{api.name} {reason}")
            return None
        return DATA

    # -- files ----------------------------------------------------------------------------------

    def _files(
        self, api: Api, operations: tuple[tuple[int, Sense], ...], args: list[Node], node: Node
    ) -> Value:
        senses = dict(operations)
        walks = _key(api) in _TREES
        for index, argument in enumerate(args):
            if index in senses:
                tree = "all" if walks and index == 0 else None
                self._touch_value(self.visit(argument), senses[index], node, api.name, tree)
            else:
                self.value(argument)
        return DATA

    def _touch_value(
        self, value: Value, sense: Sense, node: Node, evidence: str, tree: str | None = None
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
            self._doubt(node, f"cannot tell which file {evidence} {_VERBS[sense]} (computed at run time)")
        elif self.reads_input:
            self._doubt(node, f"cannot tell which file {evidence} reads (its name may come from the input)")

    def _touch(self, path: str, sense: Sense, node: Node, evidence: str, tree: str | None = None) -> None:
        """``path`` touched (a ``file:`` URL string: the file it names, as Bun and Deno read it)."""
        if path[:5].lower() == "file:":
            path = file_url_path(path, whatwg=True) or path
        if not path:
            return
        if path.startswith("/"):
            absolute = collapse(path)
        elif self.cwd is None:
            self._doubt(node, f"cannot tell where `{_short(path)}` is: the working directory is unknown")
            return
        else:
            absolute = collapse(f"{self.cwd}/{path}")
        if pseudo_file(absolute):
            return
        self.effects.append(Effect(absolute, sense, node.start_point.row + 1, evidence, tree))

    def _fs_open(self, api: Api, args: list[Node], node: Node) -> Value:
        """``fs.open(path, flags)``: a read for ``r`` (or no flags), a write for any other flags."""
        path = self.visit(args[0]) if args else None
        rest = [self.value(argument) for argument in args[1:]]
        reading = (
            len(args) < 2
            or args[1].type in _FUNCTIONS
            or args[1].type == "undefined"
            or rest[0] in _READ_FLAGS
        )
        self._touch_value(path, Sense.READ if reading else Sense.WRITE, node, api.name)
        return DATA

    def _deno_open(self, api: Api, args: list[Node], node: Node) -> Value:
        """``Deno.open(path, {write: true})``: a write when any writing option may be set."""
        path = self.visit(args[0]) if args else None
        options = self._trailing(args[1:])
        writing = options is None or any(
            key in options and options[key][1].type != "false" for key in _DENO_WRITING_OPTIONS
        )
        self._touch_value(path, Sense.WRITE if writing else Sense.READ, node, api.name)
        return DATA

    def _deno_temp(self, api: Api, args: list[Node], node: Node) -> Value:
        """``Deno.makeTempFile({dir})``: a write in ``dir``, or in the temporary directory."""
        options = self._trailing(args)
        directory = options.get("dir") if options is not None else None
        path = directory[0] if directory is not None else "/tmp" if options is not None else None
        self._touch_value(path, Sense.WRITE, node, api.name)
        return DATA

    def _url(self, api: Api, args: list[Node], node: Node) -> Value:
        """``new URL(text, base)``, ``URL.parse`` and ``pathToFileURL(path)``: a ``file:`` URL stands for
        the file it names, which is touched by what it is given to; any other URL is data. A URL
        that cannot be read, in a program that spells ``file:`` URLs, is a doubt."""
        values = [
            self._url_part(argument) if index < 2 else self.value(argument)
            for index, argument in enumerate(args)
        ]
        text = values[0] if values else None
        if api.member == "pathToFileURL":
            return Api("URL", "file()", text if isinstance(text, str) else None)
        based = len(values) > 1 and api.member != "fileURLToPath"
        base = values[1] if based else None
        computed = based and not isinstance(base, str) and not _is_file(base)
        if _is_file(text):  # fileURLToPath(new URL(...))
            path = text.path if isinstance(text, Api) else None
        elif isinstance(text, str) and computed and not _SCHEME.match(text):
            # new URL("./x", import.meta.url): a computed base, which for a program given inline is
            # a file: URL in the working directory
            from urllib.parse import unquote

            path = unquote(text.partition("#")[0].partition("?")[0])
        else:
            url = _resolve_url(text, base) if isinstance(text, str) and not computed else None
            if url is None:
                if self.file_urls:
                    self._doubt(node, f"cannot tell which file the URL given to {api.name} names")
                return DATA
            path = file_url_path(url, whatwg=True)
            if path is None:
                return DATA
        if api.member == "fileURLToPath":
            return path if path is not None else DATA
        return Api("URL", "file()", path)

    def _url_part(self, node: Node) -> Value:
        """A URL or base given to a URL function: a file URL object stays one; any other API is
        handed on."""
        value = self.visit(node)
        return self._escape(value, node) if isinstance(value, Api) and not _is_file(value) else value

    def _fetch(self, api: Api, args: list[Node], node: Node) -> Value:
        """``fetch(url)`` talks to another machine, or (Deno, Bun) reads the file a ``file:`` URL names."""
        first = self._url_part(args[0]) if args else None
        for argument in args[1:]:
            self.value(argument)
        if _is_file(first):
            self._touch_value(first, Sense.READ, node, "fetch")
            return DATA
        if isinstance(first, str):
            path = file_url_path(first, whatwg=True)
            if path is not None:
                self._touch(path, Sense.READ, node, "fetch")
                return DATA
        elif self.file_urls:
            self._doubt(node, "cannot tell which file the URL given to fetch names")
        self._contact(node, api.name)
        return DATA

    def _bun_file(self, api: Api, args: list[Node], node: Node) -> Value:
        values = [self.value(argument) for argument in args]
        path = values[0] if values and isinstance(values[0], str) else None
        return Api("Bun", "file()", path)

    def _bun_file_method(self, file: Api, name: str, args: list[Node], node: Node) -> Value:
        for argument in args:
            self.value(argument)
        if name == "slice":
            return file
        sense = _BUN_FILE_METHODS.get(name)
        if sense is not None:
            self._touch_value(file, sense, node, f"Bun.file().{name}")
        return DATA

    # -- the working directory, paths, the environment -------------------------------------------

    def _chdir(self, api: Api, args: list[Node], node: Node) -> Value:
        values = [self.value(argument) for argument in args]
        target = values[0] if values else None
        self.moves += 1
        if isinstance(target, str) and target.startswith("/"):
            self.cwd = collapse(target)
        elif isinstance(target, str) and self.cwd is not None:
            self.cwd = collapse(f"{self.cwd}/{target}")
        else:
            self.cwd = None
        return DATA

    def _cwd(self, api: Api, args: list[Node], node: Node) -> Value:
        return self.cwd if self.cwd is not None else DATA

    def _homedir(self, api: Api, args: list[Node], node: Node) -> Value:
        return self.setting.home

    def _tmpdir(self, api: Api, args: list[Node], node: Node) -> Value:
        return "/tmp"

    def _path(self, api: Api, args: list[Node], node: Node) -> Value:
        """``path.join``, ``resolve``, ``dirname``, ``basename``, ``normalize`` of known strings."""
        values = [self.value(argument) for argument in args]
        parts = [value for value in values if isinstance(value, str)]
        if len(parts) != len(values) or (not parts and api.member != "join" and api.member != "resolve"):
            return DATA
        if api.member == "join":
            return _join(parts)
        if api.member == "resolve":
            absolute = next((i for i in range(len(parts) - 1, -1, -1) if parts[i].startswith("/")), None)
            if absolute is None and self.cwd is None:
                return DATA
            base = [self.cwd or "/"] if absolute is None else []
            return collapse(_join(base + parts[absolute or 0 :]))
        stripped = parts[0].rstrip("/") or parts[0][:1]
        if api.member == "dirname":
            return posixpath.dirname(stripped) or "."
        if api.member == "basename":
            return posixpath.basename(stripped)
        return posixpath.normpath(parts[0])

    def _require(self, api: Api, args: list[Node], node: Node) -> Value:
        values = [self.value(argument) for argument in args]
        if values and isinstance(values[0], str):
            return self._load(values[0], node, "require")
        self._doubt(node, "requires a module computed at run time")
        return None

    def _create_require(self, api: Api, args: list[Node], node: Node) -> Value:
        for argument in args:
            self.value(argument)
        return Api("require")

    def _deno_env_get(self, api: Api, args: list[Node], node: Node) -> Value:
        values = [self.value(argument) for argument in args]
        if values and isinstance(values[0], str):
            return self._env_read(values[0], node)
        self._doubt(node, "reads an environment variable whose name is computed at run time")
        return DATA

    def _deno_env_set(self, api: Api, args: list[Node], node: Node) -> Value:
        values = [self.value(argument) for argument in args]
        self._steering(values[0] if values else None, node)
        return DATA

    def _every_variable(self, api: Api, args: list[Node], node: Node) -> Value:
        self._doubt(node, "reads every environment variable, secrets included")
        return DATA

    def _timer(self, api: Api, args: list[Node], node: Node) -> Value:
        """``setTimeout("code", ms)`` evaluates its string; a function is an ordinary callback."""
        values = [self.value(argument) for argument in args]
        if values and (
            isinstance(values[0], str) or args[0].type in ("string", "template_string", "binary_expression")
        ):
            self._doubt(node, f"{api.name} runs a string as code")
        return DATA

    # -- commands -------------------------------------------------------------------------------

    def _options(self, node: Node) -> _Options:
        """The properties of an options object literal, evaluated; ``env: {...process.env}`` is no doubt:
        it hands the environment on to a child, as running it would anyway."""
        options: _Options = {}
        for child in node.named_children:
            if child.type == "pair":
                key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
                name = self._key_name(key)
                if value is None:
                    continue
                result = self._environment(value) if name == "env" else self.value(value)
                if name is not None:
                    options[name] = (result, value)
            elif child.type == "shorthand_property_identifier":
                options[self._text(child)] = (self.value(child), child)
            elif child.type != "comment":
                self.value(child)
        return options

    def _environment(self, node: Node) -> Value:
        parts = node.named_children if node.type == "object" else [node]
        for part in parts:
            if part.type not in (
                "spread_element",
                "parenthesized_expression",
                "identifier",
                "member_expression",
            ):
                self.value(part)
                continue
            result = self._first(part) if part.type == "spread_element" else self.visit(part)
            if isinstance(result, Api) and not (result.member == "env" and result.module in _ENV_HOLDERS):
                self._escape(result, part)
        return DATA

    def _trailing(self, args: list[Node]) -> _Options | None:
        """The options among the last arguments of a call: {} when there are none, None when they are
        not written out (a variable)."""
        options: _Options | None = {}
        for argument in args:
            if argument.type == "object":
                options = self._options(argument)
            elif argument.type in _FUNCTIONS:
                self.visit(argument)
            elif self.value(argument) is None:
                options = None
        return options

    def _argv(self, file: Value, args: list[Node]) -> tuple[tuple[str, ...] | None, _Options | None]:
        """The argument vector of ``spawn(file, [args], options)`` and its options."""
        arguments: Value = Strings(())
        if args and args[0].type != "object" and args[0].type not in _FUNCTIONS:
            arguments = self.value(args[0])
            args = args[1:]
        options = self._trailing(args)
        if isinstance(file, str) and isinstance(arguments, Strings):
            return (file, *arguments.items), options
        return None, options

    def _execute(
        self, api: Api, node: Node, argv: tuple[str, ...] | None, shell: Value, options: _Options | None
    ) -> None:
        """Record what a call runs, where; ``{shell: true}`` makes an argument vector shell code."""
        cwd = self._option_cwd(options)
        shell_option = options.get("shell") if options is not None else None
        if argv is not None and shell_option is not None and shell_option[1].type != "false":
            shell, argv = " ".join(argv), None
        line = node.start_point.row + 1
        if isinstance(shell, str):
            self.executions.append(Execution(line, api.name, shell=shell, cwd=cwd))
        elif argv:
            self.executions.append(Execution(line, api.name, argv=argv, cwd=cwd))
        else:
            self._doubt(node, f"{api.name} runs a command computed at run time")

    def _option_cwd(self, options: _Options | None) -> str | None:
        if options is None:
            return None
        entry = options.get("cwd")
        if entry is None:
            return self.cwd
        value = entry[0]
        if not isinstance(value, str):
            return None
        if value.startswith("/"):
            return collapse(value)
        return collapse(f"{self.cwd}/{value}") if self.cwd is not None else None

    def _exec_shell(self, api: Api, args: list[Node], node: Node) -> None:
        """``exec(command, options, callback)``: shell code."""
        command = self.value(args[0]) if args else None
        self._execute(api, node, None, command, self._trailing(args[1:]))

    def _exec_file(self, api: Api, args: list[Node], node: Node) -> None:
        """``spawn``/``execFile(file, [args], options)``: an argument vector."""
        file = self.value(args[0]) if args else None
        argv, options = self._argv(file, args[1:])
        self._execute(api, node, argv, None, options)

    def _fork(self, api: Api, args: list[Node], node: Node) -> None:
        """``fork(script, [args], options)``: node runs the script."""
        script = self.value(args[0]) if args else None
        argv, options = self._argv(script, args[1:])
        self._execute(api, node, ("node", *argv) if argv is not None else None, None, options)

    def _bun_spawn(self, api: Api, args: list[Node], node: Node) -> None:
        """``Bun.spawn([...], options)`` or ``Bun.spawn({cmd: [...], ...})``."""
        if args and args[0].type == "object":
            options: _Options | None = self._options(args[0])
            for argument in args[1:]:
                self.value(argument)
            entry = options.get("cmd") if options is not None else None
            argv = entry[0] if entry is not None else None
        else:
            argv = self.value(args[0]) if args else None
            options = self._trailing(args[1:])
        self._execute(api, node, argv.items if isinstance(argv, Strings) else None, None, options)

    def _deno_command(self, api: Api, args: list[Node], node: Node) -> None:
        """``new Deno.Command(cmd, {args: [...], cwd})``."""
        command = self.value(args[0]) if args else None
        options = self._trailing(args[1:])
        entry = options.get("args") if options is not None else None
        arguments = entry[0] if entry is not None else Strings(()) if options is not None else None
        argv = (
            (command, *arguments.items)
            if isinstance(command, str) and isinstance(arguments, Strings)
            else None
        )
        self._execute(api, node, argv, None, options)

    def _deno_run(self, api: Api, args: list[Node], node: Node) -> None:
        """``Deno.run({cmd: [...], cwd})``."""
        options = self._trailing(args)
        entry = options.get("cmd") if options is not None else None
        argv = entry[0] if entry is not None else None
        self._execute(api, node, argv.items if isinstance(argv, Strings) else None, None, options)


# -- syntax -----------------------------------------------------------------------------------------

_FUNCTIONS = _words(
    "function_declaration generator_function_declaration function_expression function generator_function "
    "arrow_function method_definition class_static_block"
)
_DECLARED_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration"})
_PATTERNS = frozenset({"object_pattern", "array_pattern", "rest_pattern", "parenthesized_expression"})
_COMPARISONS = frozenset({"===", "!==", "==", "!=", "in", "instanceof", "<", ">", "<=", ">="})
# TypeScript's types carry no effects; neither do these declarations.
_TYPES = _words(
    "type_annotation type_arguments type_parameters type_parameter type_identifier interface_declaration "
    "type_alias_declaration ambient_declaration function_signature abstract_method_signature "
    "method_signature index_signature property_signature construct_signature call_signature "
    "accessibility_modifier override_modifier implements_clause asserts_annotation "
    "type_predicate_annotation omitting_type_annotation adding_type_annotation opting_type_annotation "
    "type_query"
)


def _is_type(kind: str) -> bool:
    return kind in _TYPES or kind.endswith("_type")


_HANDLERS: dict[str, Callable[[_Analysis, Node], Value]] = {
    "program": _Analysis._sequence,
    "statement_block": _Analysis._block,
    # `node -p` prints the value of the last statement: a statement's value is handed on.
    "expression_statement": _Analysis._children,
    "lexical_declaration": _Analysis._declaration,
    "variable_declaration": _Analysis._declaration,
    "if_statement": _Analysis._if,
    "switch_statement": _Analysis._switch,
    "for_statement": _Analysis._for,
    "for_in_statement": _Analysis._for_in,
    "while_statement": _Analysis._loop,
    "do_statement": _Analysis._loop,
    "try_statement": _Analysis._try,
    "catch_clause": _Analysis._catch,
    "with_statement": _Analysis._with,
    "function_declaration": _Analysis._function_declaration,
    "generator_function_declaration": _Analysis._function_declaration,
    "function_expression": _Analysis._function,
    "function": _Analysis._function,
    "generator_function": _Analysis._function,
    "arrow_function": _Analysis._function,
    "method_definition": _Analysis._function,
    "class_declaration": _Analysis._class,
    "abstract_class_declaration": _Analysis._class,
    "class": _Analysis._class,
    "import_statement": _Analysis._import,
    "export_statement": _Analysis._export,
    "identifier": _Analysis._identifier,
    "shorthand_property_identifier": _Analysis._identifier,
    "string": _Analysis._string,
    "template_string": _Analysis._template,
    "number": _Analysis._number,
    "object": _Analysis._object,
    "pair": _Analysis._pair,
    "array": _Analysis._array,
    "regex": _Analysis._data,
    "true": _Analysis._data,
    "false": _Analysis._data,
    "null": _Analysis._data,
    "undefined": _Analysis._data,
    "call_expression": _Analysis._call,
    "new_expression": _Analysis._new,
    "member_expression": _Analysis._member_expression,
    "subscript_expression": _Analysis._subscript,
    "assignment_expression": _Analysis._assignment,
    "augmented_assignment_expression": _Analysis._augmented,
    "update_expression": _Analysis._update,
    "binary_expression": _Analysis._binary,
    "unary_expression": _Analysis._unary,
    "ternary_expression": _Analysis._ternary,
    "await_expression": _Analysis._first,
    "parenthesized_expression": _Analysis._first,
    "as_expression": _Analysis._first,
    "satisfies_expression": _Analysis._first,
    "non_null_expression": _Analysis._first,
    "instantiation_expression": _Analysis._first,
    "type_assertion": _Analysis._last,
    "sequence_expression": _Analysis._inner,
    "comment": _Analysis._nothing,
    "hash_bang_line": _Analysis._nothing,
    "html_comment": _Analysis._nothing,
    "this": _Analysis._nothing,
    "super": _Analysis._nothing,
    "meta_property": _Analysis._nothing,
    "property_identifier": _Analysis._nothing,
    "private_property_identifier": _Analysis._nothing,
    "statement_identifier": _Analysis._nothing,
    "optional_chain": _Analysis._nothing,
    "break_statement": _Analysis._nothing,
    "continue_statement": _Analysis._nothing,
    "empty_statement": _Analysis._nothing,
    "debugger_statement": _Analysis._nothing,
}

# -- the runtimes -----------------------------------------------------------------------------------

_SYNC = re.compile(r"Sync(?=\.|$)")
_READ, _WRITE, _DELETE = Sense.READ, Sense.WRITE, Sense.DELETE
_VERBS = {Sense.READ: "reads", Sense.WRITE: "writes", Sense.DELETE: "deletes", Sense.EXEC: "runs"}
_READ_FLAGS: tuple[Value, ...] = ("r", "rs", "sr", Num("0"))
_DENO_WRITING_OPTIONS = ("write", "append", "create", "truncate", "createNew")
_BUN_FILE_METHODS = {
    **dict.fromkeys(("text", "json", "arrayBuffer", "bytes", "stream", "exists", "formData", "blob"), _READ),
    **dict.fromkeys(("writer", "write"), _WRITE),
    **dict.fromkeys(("delete", "unlink"), _DELETE),
}

_Operations: TypeAlias = tuple[tuple[int, Sense], ...]


def _each_name(names: str, *operations: tuple[int, Sense]) -> dict[str, _Operations]:
    return dict.fromkeys(names.split(), operations)


# Calls that touch files, by their key (see ``_key``): the positions of their path arguments and how
# each is touched. Callback, promise and Sync forms share one entry.
_FILES: dict[str, _Operations] = {
    **_each_name(
        "fs.readFile fs.readdir fs.stat fs.lstat fs.access fs.exists fs.createReadStream fs.opendir "
        "fs.readlink fs.realpath fs.realpath.native fs.watch fs.watchFile fs.statfs fs.openAsBlob",
        (0, _READ),
    ),
    **_each_name(
        "fs.writeFile fs.appendFile fs.mkdir fs.mkdtemp fs.truncate fs.chmod fs.lchmod fs.chown fs.lchown "
        "fs.utimes fs.lutimes fs.createWriteStream",
        (0, _WRITE),
    ),
    **_each_name("fs.rm fs.rmdir fs.unlink", (0, _DELETE)),
    **_each_name("fs.rename Deno.rename", (0, _DELETE), (1, _WRITE)),
    **_each_name("fs.copyFile fs.cp Deno.copyFile", (0, _READ), (1, _WRITE)),
    **_each_name("fs.symlink fs.link Deno.symlink Deno.link", (1, _WRITE)),
    **_each_name(
        "Deno.readTextFile Deno.readFile Deno.readDir Deno.stat Deno.lstat Deno.realPath Deno.readLink "
        "Deno.watchFs",
        (0, _READ),
    ),
    **_each_name(
        "Deno.writeTextFile Deno.writeFile Deno.create Deno.mkdir Deno.chmod Deno.chown Deno.truncate "
        "Deno.utime Bun.write",
        (0, _WRITE),
    ),
    "Deno.remove": ((0, _DELETE),),
}
# Calls that act on the whole tree under their first path, as ``rm -r``, ``mv`` and ``cp -r`` do
# (protections look inside a directory there): deleting, moving or copying it.
_TREES = _words("fs.rm fs.rmdir fs.rename fs.cp Deno.remove Deno.rename")

_Runner: TypeAlias = Callable[[_Analysis, Api, list["Node"], "Node"], None]

# Calls that run commands, by key.
_RUNS: dict[str, _Runner] = {
    "child_process.exec": _Analysis._exec_shell,
    "child_process.execFile": _Analysis._exec_file,
    "child_process.spawn": _Analysis._exec_file,
    "child_process.fork": _Analysis._fork,
    "Bun.spawn": _Analysis._bun_spawn,
    "Deno.Command": _Analysis._deno_command,
    "Deno.run": _Analysis._deno_run,
}

_Special: TypeAlias = Callable[[_Analysis, Api, list["Node"], "Node"], Value]

# Calls whose result or effect needs more than a table row, by key.
_SPECIAL: dict[str, _Special] = {
    "require": _Analysis._require,
    "require.main.require": _Analysis._require,
    "module.require": _Analysis._require,
    "process.mainModule.require": _Analysis._require,
    "process.getBuiltinModule": _Analysis._require,
    "module.createRequire": _Analysis._create_require,
    "process.chdir": _Analysis._chdir,
    "Deno.chdir": _Analysis._chdir,
    "process.cwd": _Analysis._cwd,
    "Deno.cwd": _Analysis._cwd,
    "os.homedir": _Analysis._homedir,
    "os.tmpdir": _Analysis._tmpdir,
    **dict.fromkeys(
        ("path.join", "path.resolve", "path.dirname", "path.basename", "path.normalize"), _Analysis._path
    ),
    "Bun.file": _Analysis._bun_file,
    **dict.fromkeys(
        _words(
            "URL URL.parse url.URL url.pathToFileURL url.fileURLToPath Bun.pathToFileURL Bun.fileURLToPath"
        ),
        _Analysis._url,
    ),
    "fetch": _Analysis._fetch,
    "fs.open": _Analysis._fs_open,
    "Deno.open": _Analysis._deno_open,
    "Deno.makeTempFile": _Analysis._deno_temp,
    "Deno.makeTempDir": _Analysis._deno_temp,
    "Deno.env.get": _Analysis._deno_env_get,
    "Deno.env.set": _Analysis._deno_env_set,
    "Deno.env.toObject": _Analysis._every_variable,
    "setTimeout": _Analysis._timer,
    "setInterval": _Analysis._timer,
}

# Calls that are doubts, by key, with what they do that we cannot follow.
_DOUBTS: dict[str, str] = {
    "eval": "runs a string as code",
    "Function": "builds a function from a string",
    "process.dlopen": "loads native code",
    "Deno.dlopen": "loads native code",
    "process.kill": "sends a signal to another process",
    "Deno.kill": "sends a signal to another process",
    "process.binding": "reaches into node's internals",
    "process._linkedBinding": "reaches into node's internals",
    "process.execve": "replaces the process with another program",
    "Bun.plugin": "changes how modules are loaded",
    "v8.setFlagsFromString": "changes the engine's flags",
    "worker_threads.Worker": "runs code in a worker",
    "Worker": "runs code in a worker",
    "SharedWorker": "runs code in a worker",
    "importScripts": "loads scripts that are not analysed",
}

# Calls given a unix socket's path as their first argument (net.connect, server.listen).
_SOCKET_CALLS = frozenset(("listen", "connect", "createConnection"))

# Calls that talk to other machines, besides every call into a network module.
_CONTACTS = _words(
    "Deno.connect Deno.connectTls Deno.listen Deno.listenTls Deno.listenDatagram Deno.serve Deno.serveHttp "
    "Deno.startTls Deno.resolveDns Deno.upgradeWebSocket Bun.connect Bun.listen Bun.serve Bun.udpSocket "
    "Bun.sql Bun.SQL Bun.redis Bun.RedisClient Bun.s3 Bun.S3Client"
)

# Built-in modules by specifier (``node:`` dropped), as the module their members are known under.
_MODULES: dict[str, str] = {
    **{
        name: name
        for name in _words(
            "fs child_process process module vm cluster inspector repl wasi sqlite http https http2 net tls "
            "dgram dns assert buffer crypto events os path url util querystring string_decoder stream timers "
            "zlib readline perf_hooks punycode tty v8 worker_threads async_hooks console constants "
            "diagnostics_channel test trace_events"
        )
    },
    "fs/promises": "fs.promises",
    "path/posix": "path",
    "path/win32": "path",
    "dns/promises": "dns",
    "stream/promises": "stream",
    "stream/web": "stream",
    "stream/consumers": "stream",
    "timers/promises": "timers",
    "readline/promises": "readline",
    "util/types": "util",
    "assert/strict": "assert",
    "inspector/promises": "inspector",
    "sys": "util",
    "bun": "Bun",
}

# Modules (and globals) whose members are harmless, save the doubts above.
_PURE = _words(
    "URL assert buffer crypto events os path url util querystring string_decoder stream timers zlib readline "
    "perf_hooks punycode tty v8 worker_threads async_hooks console constants diagnostics_channel test "
    "trace_events setTimeout setInterval"
)
# Modules every call of which talks to another machine.
_NETWORK = _words("http https http2 net tls dgram dns fetch WebSocket XMLHttpRequest EventSource")
# Modules and globals every call of which runs code we do not see.
_CODE = _words("eval Function vm cluster inspector repl wasi sqlite Worker SharedWorker importScripts")
# Modules whose members are followed one by one: a member that no table knows is a doubt.
_STRICT = _words("fs fs.promises child_process process Bun Deno require module globalThis")
# The members of strict modules that do nothing worth a doubt (first component of the member, without
# ``Sync``): descriptor operations on files already opened, data, and the process's own state.
_HARMLESS: dict[str, frozenset[str]] = {
    "fs": _words(
        "close fstat fsync fdatasync read readv write writev constants Stats Dirent unwatchFile glob"
    ),
    "fs.promises": _words("constants glob"),
    "process": _words(
        "argv argv0 execArgv execPath platform arch version versions release pid ppid title exit exitCode "
        "stdout stderr stdin on once off emit emitWarning nextTick hrtime memoryUsage cpuUsage "
        "resourceUsage uptime umask config features getuid geteuid getgid getegid getgroups listeners "
        "removeListener removeAllListeners addListener prependListener setMaxListeners abort connected "
        "channel send disconnect constrainedMemory availableMemory allowedNodeEnvironmentFlags "
        "sourceMapsEnabled setSourceMapsEnabled throwDeprecation noDeprecation traceDeprecation debugPort "
        "getActiveResourcesInfo setUncaughtExceptionCaptureCallback hasUncaughtExceptionCaptureCallback"
    ),
    "Bun": _words(
        "sleep sleepSync hash version revision main argv which password gzipSync gunzipSync deflateSync "
        "inflateSync inspect deepEquals escapeHTML stdout stdin stderr nanoseconds CryptoHasher Glob "
        "fileURLToPath pathToFileURL randomUUIDv7 stringWidth semver color peek isMainThread resolveSync "
        "TOML readableStreamToText readableStreamToArray readableStreamToJSON readableStreamToBytes "
        "readableStreamToArrayBuffer ArrayBufferSink enableANSIColors"
    ),
    "Deno": _words(
        "args build version pid ppid noColor inspect exit exitCode stdin stdout stderr isatty consoleSize "
        "memoryUsage osRelease osUptime hostname loadavg systemMemoryInfo networkInterfaces uid gid errors "
        "permissions mainModule execPath test bench addSignalListener removeSignalListener refTimer "
        "unrefTimer env"
    ),
    "require": _words("resolve cache main"),
    "module": _words("builtinModules isBuiltin exports id filename loaded paths children"),
}
# Members that are another module under another name.
_ALIASES = {"fs.promises": "fs.promises", "path.posix": "path", "path.win32": "path", "dns.promises": "dns"}
_CONSTANTS: dict[str, Value] = {"path.sep": "/", "path.delimiter": ":", "os.EOL": "\n"}
_ENV_HOLDERS = frozenset({"process", "Bun", "Deno"})
# Environment variables whose value changes what a later command runs.
_STEERING = _words(
    "PATH NODE_OPTIONS NODE_PATH LD_PRELOAD LD_LIBRARY_PATH DYLD_INSERT_LIBRARIES DYLD_LIBRARY_PATH "
    "BASH_ENV ENV GIT_SSH_COMMAND GIT_EXEC_PATH"
)
# Method names that, on a value of unknown origin, may be a module's function that writes, deletes or
# runs (names shared with everyday methods, such as write, delete, open or exec, are left out).
_SUSPECT = frozenset(
    f"{name}{suffix}"
    for name in _words(
        "writeFile appendFile mkdir mkdtemp truncate chmod lchmod chown lchown utimes lutimes "
        "createWriteStream rm rmdir unlink rename copyFile cp symlink execFile spawn fork writeTextFile "
        "makeTempFile makeTempDir dlopen"
    )
    for suffix in ("", "Sync")
) | {"execSync", "eval"}

_GLOBAL_OBJECTS = _words("globalThis global window self")
_GLOBAL_APIS = _words(
    "require module process Bun Deno eval Function fetch URL WebSocket XMLHttpRequest EventSource setTimeout "
    "setInterval Worker SharedWorker importScripts"
)
_SCHEME = re.compile(r"[\x00- ]*[A-Za-z][A-Za-z0-9+.\-]*:")


def _is_file(value: Value) -> bool:
    """Whether ``value`` stands for a file (a ``file:`` URL object, a ``Bun.file``)."""
    return isinstance(value, Api) and value.member == "file()"


def _resolve_url(text: str, base: Value) -> str | None:
    """``new URL(text, base)`` as far as a ``file:`` URL's path goes (None: cannot tell)."""
    if _SCHEME.match(text) or base is None:
        return text
    if isinstance(base, Api) and base.member == "file()" and base.path is not None:
        base = "file://" + base.path
    if not isinstance(base, str):
        return None
    root = file_url_path(base, whatwg=True)
    if root is None:
        return base  # relative to a URL of another scheme: not a file
    relative = text.replace("\\", "/")
    if relative.startswith("//"):
        return "file:" + relative
    if relative.startswith("/"):
        return "file://" + relative
    if relative.startswith(("?", "#")) or not relative:
        return "file://" + root
    return "file://" + posixpath.dirname(root) + "/" + relative


# For code given with -e, node sets these to the current directory and "[eval]".
_GLOBAL_VALUES: dict[str, Value] = {"__dirname": ".", "__filename": "[eval]"}
