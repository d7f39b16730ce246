"""Names and where they are bound: the state of a walk, and what a part of the program binds.

Names are bound flow-sensitively: a use sees the binding before it in straight-line code. A name
bound in a branch or loop is unknown after it (and inside a loop whose body rebinds it); function
bodies are analysed as if they ran, at the end of their scope, where a module name bound more than
once is unknown.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from ....record import Record
from ..findings import node_text
from .values import Seq, Value

if TYPE_CHECKING:
    from tree_sitter import Node


class State:
    """The names bound so far (None: bound, value unknown) and the working directory (None: unknown)."""

    __slots__ = ("cwd", "env")

    def __init__(self, env: dict[str, Value], cwd: str | None) -> None:
        self.env = env
        self.cwd = cwd

    def copy(self) -> State:
        return State(dict(self.env), self.cwd)


def target_names(target: Node | None, source: bytes) -> list[str]:
    """The names an assignment target binds (``a``, ``a, (b, *c)``); the base of ``a[i]``/``a.x``."""
    names: list[str] = []
    pending = [target] if target is not None else []
    while pending:
        node = pending.pop()
        if node.type in ("identifier", "keyword_identifier"):
            names.append(node_text(node, source))
        elif node.type in ("attribute", "subscript"):
            base = node.child_by_field_name("object" if node.type == "attribute" else "value")
            if base is not None:
                pending.append(base)
        else:
            pending.extend(node.named_children)
    return names


_REBINDING_FIELDS = {
    "assignment": "left",
    "augmented_assignment": "left",
    "for_statement": "left",
    "for_in_clause": "left",
    "named_expression": "name",
    "function_definition": "name",
    "class_definition": "name",
}


class Bindings(Record):
    """What a part of the program binds: each binding site of a name, what the imports among them
    bind it to, the names whose value it may change in place (``a.append(x)``, ``a[0] = x``), and
    those it declares global or nonlocal."""

    sites: list[str]
    imports: dict[str, list[str]]
    mutated: set[str]
    declared: set[str]

    def unstable(self) -> frozenset[str]:
        """The names bound more than once (importing one module twice binds it once)."""
        counts = Counter(self.sites)
        for name, imported in self.imports.items():
            counts[name] -= len(imported) - len(set(imported))
        return frozenset(name for name, count in counts.items() if count > 1)


def collect_bindings(root: Node, source: bytes, mutators: frozenset[str]) -> Bindings:
    """What ``root`` binds; ``mutators`` are the methods that change a list in place."""
    result = Bindings([], {}, set(), set())
    pending = [root]
    while pending:
        node = pending.pop()
        pending.extend(node.named_children)
        kind = node.type
        field = _REBINDING_FIELDS.get(kind)
        if field is not None:
            target = node.child_by_field_name(field)
            names = target_names(target, source)
            plain = target is not None and target.type in ("identifier", "pattern_list", "tuple_pattern")
            if kind in ("assignment", "augmented_assignment") and not plain:
                result.mutated.update(names)
            else:
                result.sites.extend(names)
        elif kind in ("as_pattern_target", "delete_statement", "case_pattern"):
            result.sites.extend(target_names(node, source))
        elif kind in ("global_statement", "nonlocal_statement"):
            result.declared.update(target_names(node, source))
        elif kind in ("import_statement", "import_from_statement"):
            _import_bindings(node, source, result)
        elif kind == "call":
            _mutation(node, source, result, mutators)
    return result


def _import_bindings(node: Node, source: bytes, result: Bindings) -> None:
    module = node.child_by_field_name("module_name")
    prefix = dotted(node_text(module, source)) + "." if module is not None else ""
    for child in node.children_by_field_name("name"):
        if child.type == "aliased_import":
            name = node_text(child.child_by_field_name("alias"), source)
            imported = prefix + dotted(node_text(child.child_by_field_name("name"), source))
        else:
            imported = prefix + dotted(node_text(child, source))
            name = imported.split(".")[0] if not prefix else imported[len(prefix) :]
            imported = imported if prefix else name
        result.sites.append(name)
        result.imports.setdefault(name, []).append(imported)


def _mutation(node: Node, source: bytes, result: Bindings, mutators: frozenset[str]) -> None:
    """``a.append(x)`` changes the list ``a`` holds."""
    function = node.child_by_field_name("function")
    if function is None or function.type != "attribute":
        return
    attribute = function.child_by_field_name("attribute")
    obj = function.child_by_field_name("object")
    if obj is not None and obj.type == "identifier" and node_text(attribute, source) in mutators:
        result.mutated.update(target_names(obj, source))


def walrus_names(root: Node, source: bytes) -> list[str]:
    names: list[str] = []
    pending = [root]
    while pending:
        node = pending.pop()
        pending.extend(node.named_children)
        if node.type == "named_expression":
            names.extend(target_names(node.child_by_field_name("name"), source))
    return names


def forget_mutated(state: State, bindings: Bindings) -> None:
    """Lists that code changes in place (``.append``) are no longer known constants."""
    for name in bindings.mutated:
        value = state.env.get(name)
        if isinstance(value, Seq) and value.mutable:
            state.env[name] = None


def too_big(root: Node, limit: int) -> bool:
    count = 0
    pending = [root]
    while pending:
        node = pending.pop()
        count += 1
        if count > limit:
            return True
        pending.extend(node.named_children)
    return False


def pattern_value(node: Node) -> Node | None:
    """The expression of ``expr as name`` (the grammar gives it no field)."""
    for child in node.named_children:
        if child.type not in ("as_pattern_target", "comment"):
            return child
    return None


def dotted(text: str) -> str:
    return re.sub(r"[\s\\]", "", text)


def node_line(node: Node) -> int:
    return int(node.start_point[0]) + 1
