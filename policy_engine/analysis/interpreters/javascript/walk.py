"""The walk: statements (blocks, branches and loops: regions whose effect on names and the working
directory is forgotten once passed; declarations; functions and classes, judged where they are
defined, as if they ran), expressions (literals folded into values, names and members read,
assignments, operators, ``new``), all the mixins put together as ``Analysis``, the ``{node type:
handler}`` table ``visit`` dispatches on, and ``analyze``, the entry point."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from ...shell.grammar import first_error_line, parse
from ..findings import Program, Setting
from .api import tables
from .calls import Calls
from .scopes import Modules, survey
from .syntax import COMPARISONS, is_type
from .values import DATA, Api, Num, Strings, Value, as_text, plus, unescape
from .walker import Scope

if TYPE_CHECKING:
    from tree_sitter import Node


# -- statements ----------------------------------------------------------------------------------------------


class Statements(Modules):
    """The statement handlers of a walk (``import`` and ``export`` are ``Modules``')."""

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
        found = survey(node, self.source, 1 << 62)
        if found is None:
            return
        for name in found.assigned:
            scope = self._holder(name)
            if scope is not None:
                scope.names[name] = None
        if found.moves:
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
            self.scope = Scope(outer, self.function, True)
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


# -- expressions ---------------------------------------------------------------------------------------------


class Expressions(Calls):
    """The expression handlers of a walk."""

    def _data(self, node: Node) -> Value:
        return DATA

    def _identifier(self, node: Node) -> Value:
        return self._lookup(self._text(node))

    def _last(self, node: Node) -> Value:
        for child in reversed(node.named_children):
            if child.type != "comment" and not is_type(child.type):
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
                parts.append(unescape(self._text(child)))
            elif child.is_named:
                parts.append(self._text(child))
        return "".join(parts)

    def _template(self, node: Node) -> Value:
        parts: list[str] = []
        known = True
        for child in node.children:
            if child.type == "escape_sequence":
                parts.append(unescape(self._text(child)))
            elif child.type == "template_substitution":
                text = as_text(self._inner(child) if child.named_children else None)
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
            text = as_text(value)
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

    def _subscript(self, node: Node) -> Value:
        target, index = node.child_by_field_name("object"), node.child_by_field_name("index")
        receiver = self.visit(target) if target is not None else None
        key = self.value(index) if index is not None else None
        return self._element(receiver, key, index, node)

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
        if isinstance(receiver, Api) and receiver.member == "env" and receiver.module in tables().env_holders:
            self._steering(name, target)

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
        if operator in COMPARISONS:  # comparing a module with something hands it to no one
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
            result = plus(result, self.value(operand))
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


# -- the analysis --------------------------------------------------------------------------------------------


class Analysis(Statements, Expressions):
    """One walk over one source, with every handler (see ``walker.Walker`` for the state)."""


def analyze(source: str, setting: Setting, typescript: bool = False) -> Program:
    """What ``source`` does as far as its text shows: the files it touches, the commands it runs, the
    machines it talks to, and what cannot be proven. Never raises: whatever goes wrong is a doubt."""
    label = "TypeScript" if typescript else "JavaScript"
    analysis: Analysis | None = None
    try:
        data = source.encode("utf-8", "replace")
        root = parse(data, "typescript" if typescript else "javascript").root_node
        surveyed = survey(root, data, setting.max_nodes)
        if surveyed is None:
            limit = setting.max_nodes
            return Program(
                doubts=(f"line 1: the {label} source has more than {limit} syntax nodes; it is not analysed",)
            )
        analysis = Analysis(data, setting, surveyed)
        if root.has_error:
            analysis.doubts.append(f"line {first_error_line(root)}: the code does not parse as {label}")
        analysis.visit(root)
        return analysis.program()
    except Exception as error:  # the analysis must never take the engine down: it asks instead
        found = analysis.program() if analysis is not None else Program()
        failure = f"line 1: the {label} analysis failed ({type(error).__name__}); the code is not analysed"
        return found._replace(doubts=(*found.doubts, failure))


Analysis.HANDLERS = {
    "program": Analysis._sequence,
    "statement_block": Analysis._block,
    # `node -p` prints the value of the last statement: a statement's value is handed on.
    "expression_statement": Analysis._children,
    "lexical_declaration": Analysis._declaration,
    "variable_declaration": Analysis._declaration,
    "if_statement": Analysis._if,
    "switch_statement": Analysis._switch,
    "for_statement": Analysis._for,
    "for_in_statement": Analysis._for_in,
    "while_statement": Analysis._loop,
    "do_statement": Analysis._loop,
    "try_statement": Analysis._try,
    "catch_clause": Analysis._catch,
    "with_statement": Analysis._with,
    "function_declaration": Analysis._function_declaration,
    "generator_function_declaration": Analysis._function_declaration,
    "function_expression": Analysis._function,
    "function": Analysis._function,
    "generator_function": Analysis._function,
    "arrow_function": Analysis._function,
    "method_definition": Analysis._function,
    "class_declaration": Analysis._class,
    "abstract_class_declaration": Analysis._class,
    "class": Analysis._class,
    "import_statement": Analysis._import,
    "export_statement": Analysis._export,
    "identifier": Analysis._identifier,
    "shorthand_property_identifier": Analysis._identifier,
    "string": Analysis._string,
    "template_string": Analysis._template,
    "number": Analysis._number,
    "object": Analysis._object,
    "pair": Analysis._pair,
    "array": Analysis._array,
    "regex": Analysis._data,
    "true": Analysis._data,
    "false": Analysis._data,
    "null": Analysis._data,
    "undefined": Analysis._data,
    "call_expression": Analysis._call,
    "new_expression": Analysis._new,
    "member_expression": Analysis._member_expression,
    "subscript_expression": Analysis._subscript,
    "assignment_expression": Analysis._assignment,
    "augmented_assignment_expression": Analysis._augmented,
    "update_expression": Analysis._update,
    "binary_expression": Analysis._binary,
    "unary_expression": Analysis._unary,
    "ternary_expression": Analysis._ternary,
    "await_expression": Analysis._first,
    "parenthesized_expression": Analysis._first,
    "as_expression": Analysis._first,
    "satisfies_expression": Analysis._first,
    "non_null_expression": Analysis._first,
    "instantiation_expression": Analysis._first,
    "type_assertion": Analysis._last,
    "sequence_expression": Analysis._inner,
    "comment": Analysis._nothing,
    "hash_bang_line": Analysis._nothing,
    "html_comment": Analysis._nothing,
    "this": Analysis._nothing,
    "super": Analysis._nothing,
    "meta_property": Analysis._nothing,
    "property_identifier": Analysis._nothing,
    "private_property_identifier": Analysis._nothing,
    "statement_identifier": Analysis._nothing,
    "optional_chain": Analysis._nothing,
    "break_statement": Analysis._nothing,
    "continue_statement": Analysis._nothing,
    "empty_statement": Analysis._nothing,
    "debugger_statement": Analysis._nothing,
}
