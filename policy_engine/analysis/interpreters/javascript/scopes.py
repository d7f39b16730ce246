"""Scopes and names: the survey taken before the walk, binding names (declarations, destructuring,
assignments) and reading them back, and loading modules (``require``, ``import``, ``export``).

The walk follows statements in order, so it must know beforehand what no order can show: which
names are ever reassigned (their value at a read may not be the last one bound), which are assigned
inside functions (which may run at any time), and whether the program changes directory at all. A
module or one of its functions is then followed under a name only while the name is sure to hold it,
so that ``const {rmSync: rm} = require("fs")`` is still ``fs.rmSync`` at ``rm(...)``; a name the
survey saw reassigned, or one of an enclosing function, is unknown where it is read.

Loading a built-in module gives its API (``api.json``'s ``modules``); a JSON file is read, and is
data unless the loader would find code instead; any other module's code is not read: a doubt.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ....model import Sense
from ....paths import collapse
from ..findings import node_text
from .api import global_value, inert, tables
from .syntax import DECLARED_FUNCTIONS, FUNCTIONS, PATTERNS
from .values import DATA, Api, Value, short
from .walker import Scope, Survey, Walker

if TYPE_CHECKING:
    from tree_sitter import Node


# -- the survey ----------------------------------------------------------------------------------------------


def survey(root: Node, source: bytes, limit: int) -> Survey | None:
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
        names = assigned_names(node, source)
        assigned.update(names)
        if inside:
            in_functions.update(names)
        if node.end_byte - node.start_byte == 5 and source[node.start_byte : node.end_byte] == b"chdir":
            moves = True
            moves_in_function = moves_in_function or inside
        nested = inside or node.type in FUNCTIONS or node.type == "class_body"
        pending.extend((child, nested) for child in node.children)
    return Survey(frozenset(assigned), frozenset(in_functions), moves, moves_in_function)


def assigned_names(node: Node, source: bytes) -> list[str]:
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
            names.append(node_text(current, source))
        elif current.type in ("assignment_pattern", "object_assignment_pattern"):
            pending.extend(current.children_by_field_name("left"))
        elif current.type == "pair_pattern":
            pending.extend(current.children_by_field_name("value"))
        elif current.type in PATTERNS:
            pending.extend(current.named_children)
    return names


# -- names ---------------------------------------------------------------------------------------------------


class Names(Walker):
    """The scopes of a walk and the names bound in them."""

    def _scoped(self, run: Callable[[], object]) -> None:
        outer = self.scope
        self.scope = Scope(outer, self.function, False)
        try:
            run()
        finally:
            self.scope = outer

    def _each(self, nodes: Iterable[Node]) -> Value:
        """Statements in order, after binding the functions they declare (which are hoisted)."""
        nodes = list(nodes)
        for node in nodes:
            name = node.child_by_field_name("name") if node.type in DECLARED_FUNCTIONS else None
            if name is not None:
                self._set(self._function_scope(), self._text(name), DATA, name)
        for node in nodes:
            self.visit(node)
        return None

    def _function_scope(self) -> Scope:
        scope = self.scope
        while not scope.boundary and scope.parent is not None:
            scope = scope.parent
        return scope

    def _holder(self, name: str) -> Scope | None:
        scope: Scope | None = self.scope
        while scope is not None and name not in scope.names:
            scope = scope.parent
        return scope

    def _lookup(self, name: str) -> Value:
        """The value of a name where it is read. A name that a function assigns may change at any
        call, and a name of an enclosing function that is ever reassigned may have changed by the
        time this function runs."""
        scope = self._holder(name)
        if scope is None:
            return None if name in self.survey.assigned else global_value(name)
        if name in self.survey.assigned_in_functions:
            return None
        if scope.function != self.function and name in self.survey.assigned:
            return None
        return scope.names[name]

    def _set(self, scope: Scope | None, name: str, value: Value, node: Node) -> None:
        """Bind ``name`` (in ``scope``, or where it is bound already for an assignment). A module or
        its function is followed only under a name that is never reassigned."""
        if scope is None:
            scope = self._holder(name) or self.top
        if isinstance(value, Api) and name in self.survey.assigned:
            value = self._escape(value, node)
        scope.names[name] = value
        self.log.append((scope, name))

    def _bind(self, pattern: Node, value: Value, scope: Scope | None) -> None:
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

    def _bind_property(self, child: Node, value: Value, scope: Scope | None) -> None:
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
            if name is None and isinstance(value, Api) and not inert(value):
                self._doubt(child, f"reaches a member of {value.name} computed at run time")
            member = self._property(value, name, child) if name is not None else None
            if inner is not None:
                self._bind(inner, member, scope)
        elif child.type == "rest_pattern":
            if isinstance(value, Api) and value.member == "env" and value.module in tables().env_holders:
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


# -- modules -------------------------------------------------------------------------------------------------


class Modules(Names):
    """The module-loading statements and calls of a walk."""

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
        module = tables().modules.get(name)
        if module is not None:
            return Api(module)
        if name.endswith(".json") and name.startswith(("./", "../", "/")):
            self._touch(name, Sense.READ, node, how)
            problem = self._json_module(name)
            if problem is not None:
                self._doubt(node, f"loads {short(specifier)}, which {problem}; its code is not analysed")
            return DATA
        self._doubt(node, f"loads the module {short(specifier)}, whose code is not analysed")
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

    def _dynamic_import(self, args: list[Node], node: Node) -> Value:
        values = [self.value(argument) for argument in args]
        if values and isinstance(values[0], str):
            return self._load(values[0], node, "import")
        self._doubt(node, "imports a module computed at run time")
        return None
