"""Expressions: names, literals, operators, subscripts, attributes, lambdas and comprehensions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .literals import integer, unescape
from .operations import divide, path_attribute, percent, plus
from .paths import TEMP
from .scopes import State, node_line, target_names, walrus_names
from .specials import Specials
from .values import Const, Func, Obj, PathValue, Ref, Seq, Value, as_text, is_environ, same, short

if TYPE_CHECKING:
    from tree_sitter import Node


class Expressions(Specials):
    """The value of each kind of expression, and what evaluating it reaches."""

    def _identifier(self, node: Node, state: State) -> Value:
        name = self._text(node)
        if name in state.env:
            return state.env[name]
        if name == "__builtins__":
            return Ref("builtins")
        return Ref(name) if name in self.api.builtins else None

    def _constant(self, node: Node, state: State) -> Value:
        if node.type == "integer":
            return integer(self._text(node))
        return Const({"true": True, "false": False}.get(node.type))

    def _string(self, node: Node, state: State) -> Value:
        """A string literal, f-string included, when every part of it is known."""
        prefix = self._text(node.children[0] if node.children else None).rstrip("'\"").lower()
        known = "t" not in prefix
        parts: list[str] = []
        for child in node.named_children:
            if child.type == "string_content":
                piece = self._content(child, prefix)
                known = known and piece is not None
                parts.append(piece or "")
            elif child.type == "interpolation":
                piece = self._interpolation(child, state)
                known = known and piece is not None
                parts.append(piece or "")
        if not known:
            return None
        text = "".join(parts)
        if "b" in prefix:
            try:
                return Const(text.encode("latin-1"))
            except UnicodeEncodeError:
                return None
        return Const(text)

    def _content(self, node: Node, prefix: str) -> str | None:
        pieces: list[str] = []
        position = node.start_byte
        for child in node.children:
            pieces.append(self.source[position : child.start_byte].decode("utf-8", "replace"))
            text = self._text(child)
            if child.type == "escape_interpolation" and "f" in prefix:
                pieces.append(text[0])
            elif child.type == "escape_sequence" and "r" not in prefix:
                decoded = unescape(text, "b" in prefix)
                if decoded is None:
                    return None
                pieces.append(decoded)
            else:
                pieces.append(text)
            position = child.end_byte
        pieces.append(self.source[position : node.end_byte].decode("utf-8", "replace"))
        return "".join(pieces)

    def _interpolation(self, node: Node, state: State) -> str | None:
        value = self._use(node.child_by_field_name("expression"), state)
        plain = True
        for child in node.children:
            if child.type in ("type_conversion", "format_specifier", "="):
                plain = False
                if child.type == "format_specifier":
                    self._generic(child, state)
        return as_text(value) if plain else None

    def _concatenated(self, node: Node, state: State) -> Value:
        values = [self._eval(child, state) for child in node.named_children if child.type != "comment"]
        texts = [v.value for v in values if isinstance(v, Const) and isinstance(v.value, str)]
        if len(texts) == len(values):
            return short("".join(texts))
        data = [v.value for v in values if isinstance(v, Const) and isinstance(v.value, bytes)]
        return short(b"".join(data)) if len(data) == len(values) else None

    def _sequence(self, node: Node, state: State) -> Value:
        items: list[Value] = []
        known = node.type != "set"
        for child in node.named_children:
            if child.type == "comment":
                continue
            if child.type in ("list_splat", "parenthesized_list_splat", "dictionary_splat"):
                known = False
            items.append(self._use(child, state))
        return Seq(tuple(items), node.type == "list") if known else None

    def _dictionary(self, node: Node, state: State) -> Value:
        environ = False
        for child in node.named_children:
            if child.type == "dictionary_splat":
                for inner in child.named_children:
                    value = self._eval(inner, state)
                    environ = environ or is_environ(value)
                    if not is_environ(value):
                        self._escape(value, node_line(inner))
            elif child.type == "pair":
                self._use(child.child_by_field_name("key"), state)
                self._use(child.child_by_field_name("value"), state)
            elif child.type != "comment":
                self._use(child, state)
        return Obj("environ") if environ else None

    def _parenthesized(self, node: Node, state: State) -> Value:
        value: Value = None
        for child in node.named_children:
            if child.type != "comment":
                value = self._eval(child, state)
        return value

    def _conditional(self, node: Node, state: State) -> Value:
        """``a if c else b``: known only when both sides are the same."""
        parts = [child for child in node.named_children if child.type != "comment"]
        if len(parts) != 3:
            return self._generic(node, state)
        body = self._use(parts[0], state)
        self._eval(parts[1], state)
        alternative = self._use(parts[2], state)
        return body if same(body, alternative) else None

    def _binary(self, node: Node, state: State) -> Value:
        left = self._use(node.child_by_field_name("left"), state)
        right = self._use(node.child_by_field_name("right"), state)
        operator = self._text(node.child_by_field_name("operator"))
        if operator == "+":
            return plus(left, right)
        if operator == "/":
            return divide(left, right)
        if operator == "%" and isinstance(left, Const) and isinstance(left.value, str):
            values = right.items if isinstance(right, Seq) and not right.mutable else (right,)
            return short(percent(left.value, values))
        return None

    def _subscript(self, node: Node, state: State) -> Value:
        base = self._eval(node.child_by_field_name("value"), state)
        keys = [self._use(key, state) for key in node.children_by_field_name("subscript")]
        line = node_line(node)
        key = keys[0] if len(keys) == 1 else None
        if is_environ(base):
            return self._variable(key, line)
        if isinstance(base, Ref) and base.name == "sys.modules":
            self._doubt(line, "reaches a module through sys.modules")
        elif isinstance(base, Ref) and base.name in self.api.effectful_modules:
            self._doubt(line, f"reaches a member of {base.name} by a subscript, which cannot be followed")
        elif isinstance(base, Obj) and base.kind == "namespace":
            self._doubt(line, "reaches names through globals() or vars(), which cannot be followed")
        elif isinstance(base, Seq) and isinstance(key, Const) and type(key.value) is int:
            index = key.value
            return base.items[index] if -len(base.items) <= index < len(base.items) else None
        return None

    def _attribute(self, node: Node, state: State) -> Value:
        base = self._eval(node.child_by_field_name("object"), state)
        name = self._text(node.child_by_field_name("attribute"))
        line = node_line(node)
        if self._internal(base, name, line):
            return None
        if isinstance(base, Ref) and not is_environ(base):
            return self._member(base.name, name, line)
        if isinstance(base, PathValue):
            if name in self.api.path_effect_methods:
                self._doubt(line, f"Path.{name} is used as a value; where it is called cannot be followed")
            return path_attribute(base, name)
        if isinstance(base, Obj) and base.kind == "tempdir" and name == "name":
            return Const(TEMP)
        if (base is None or isinstance(base, Func)) and name in self.api.strict_suspects:
            self._doubt(line, f".{name} is used as a value; where it is called cannot be followed")
        return None

    def _internal(self, base: Value, name: str, line: int) -> bool:
        """Doubt an attribute that reaches the interpreter's internals (``os.__dict__``,
        ``().__class__.__mro__``), through which any function can be reached unseen."""
        if name in self.api.frame_attributes:
            self._doubt(line, f"reaches an interpreter frame through .{name}")
            return True
        if not (name.startswith("__") and name.endswith("__")) or name in self.api.plain_dunders:
            return False
        if isinstance(base, Ref) or name in self.api.internal_dunders:
            self._doubt(line, f"reaches Python internals through .{name}")
            return True
        return False

    def _member(self, module: str, name: str, line: int) -> Value:
        full = self.api.canonical(f"{module}.{name}")
        if full in self.api.constants:
            return Const(self.api.constants[full])
        parts = full.split(".")[1:]
        # A module's __version__, __file__, __doc__... are data, not a way into its internals.
        plain = bool(parts) and parts[-1] in self.api.plain_dunders
        private = any(part.startswith("_") for part in (parts[:-1] if plain else parts))
        known = self.api.known_module(full.split(".")[0]) and not self.api.danger(full)
        if private and full not in self.api.private_allowed and known:
            self._doubt(line, f"reaches {full}, a private name")
        return None if plain and not private else Ref(full)  # a string or a list of names

    def _lambda(self, node: Node, state: State) -> Value:
        env = {name: self._closure_value(name, value) for name, value in state.env.items()}
        inner = State(env, None if self.moves_cwd else state.cwd)
        parameters = node.child_by_field_name("parameters")
        if parameters is not None:
            for parameter in parameters.named_children:
                self._use(parameter.child_by_field_name("value"), state)
            inner.env.update(dict.fromkeys(self._parameter_names(parameters)))
        self._use(node.child_by_field_name("body"), inner)
        return Func("lambda")

    def _comprehension(self, node: Node, state: State) -> Value:
        """The clauses in order, then the body, with the loop variables unknown."""
        inner = state.copy()
        for clause in node.named_children:
            if clause.type == "for_in_clause":
                self._eval(clause.child_by_field_name("right"), inner)
                for name in target_names(clause.child_by_field_name("left"), self.source):
                    inner.env[name] = None
            elif clause.type == "if_clause":
                self._generic(clause, inner)
        body = node.child_by_field_name("body")
        if body is not None and body.type == "pair":
            self._generic(body, inner)
        else:
            self._use(body, inner)
        for name in walrus_names(node, self.source):
            state.env[name] = None  # a := inside a comprehension binds in the enclosing scope
        return None

    # -- closures

    def _closure_value(self, name: str, value: Value) -> Value:
        if name in self.unstable or (name in self.mutated and isinstance(value, Seq) and value.mutable):
            return None
        return value

    def _parameter_names(self, parameters: Node) -> list[str]:
        names: list[str] = []
        for child in parameters.named_children:
            if "default" in child.type:
                target = child.child_by_field_name("name")
            elif child.type == "typed_parameter":
                target = child.named_children[0] if child.named_children else None
            else:
                target = child
            names.extend(target_names(target, self.source))
        return names
