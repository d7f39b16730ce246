"""Calls: the callee and arguments evaluated, then each table of ``api.json`` that names the callee."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..findings import Contact
from .effects import MODE, writes
from .expressions import Expressions
from .operations import text_method
from .paths import pure
from .scopes import State, node_line
from .specials import SPECIAL
from .values import (
    Call,
    Const,
    Func,
    Method,
    Obj,
    PathValue,
    Ref,
    Seq,
    Value,
    is_environ,
    path_text,
    same,
    string_value,
)

if TYPE_CHECKING:
    from tree_sitter import Node


class Calls(Expressions):
    """A call of a known function, of a method of a known value, or of a suspect method."""

    def _call(self, node: Node, state: State) -> Value:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None:
            return self._generic(node, state)
        line = node_line(node)
        target = self._callee(function, state, line)
        call = self._arguments(arguments, state, target, line)
        if isinstance(target, Ref):
            return self._call_ref(target.name, call, state)
        if isinstance(target, Method):
            return self._call_method(target, call, state)
        return None

    def _callee(self, function: Node, state: State, line: int) -> Value | Method:
        if function.type != "attribute":
            return self._eval(function, state)
        receiver = function.child_by_field_name("object")
        name = self._text(function.child_by_field_name("attribute"))
        base = self._eval(receiver, state)
        if receiver is None or self._internal(base, name, line):
            return None
        if isinstance(base, Ref) and not is_environ(base):
            return self._member(base.name, name, line)
        return Method(base, name, receiver)

    def _arguments(self, node: Node, state: State, target: Value | Method, line: int) -> Call:
        """Evaluate the arguments; doubt those that hide effects, except where the callee only looks
        at them (``isinstance(x, os.PathLike)``) or takes the environment (``env=os.environ``)."""
        name = target.name if isinstance(target, Ref | Method) else "call"
        looks = isinstance(target, Ref) and target.name in self.api.inspectors
        environ = (
            isinstance(target, Ref) and (target.name in self.api.runners or target.name == "dict")
        ) or (isinstance(target, Method) and is_environ(target.receiver))
        args: list[Value] = []
        keywords: dict[str, Value] = {}
        open_ended = False
        children = [node] if node.type == "generator_expression" else node.named_children
        for child in children:
            if child.type == "comment":
                continue
            if child.type in ("list_splat", "dictionary_splat", "parenthesized_list_splat"):
                open_ended = True
                inner = child.named_children
                value = self._eval(inner[0], state) if inner else None
            elif child.type == "keyword_argument":
                value = self._eval(child.child_by_field_name("value"), state)
                keywords[self._text(child.child_by_field_name("name"))] = value
            else:
                value = self._classes(child, state) if looks else self._eval(child, state)
                if not open_ended:
                    args.append(value)
            if not (
                (looks and isinstance(value, Ref) and not is_environ(value))
                or (environ and is_environ(value))
            ):
                self._escape(value, line)
            changeable = child.type == "identifier" and isinstance(value, Seq) and value.mutable
            if changeable and not isinstance(target, Ref):
                state.env[self._text(child)] = None  # the callee may change the list
        return Call(name, line, tuple(args), keywords, open_ended)

    def _call_ref(self, name: str, call: Call, state: State) -> Value:
        """A call of a known name: every table it appears in says what it does."""
        danger = self.api.danger(name)
        if danger and not (name == "help" and self._documents(call)):
            self._doubt(call.line, f"{name} {danger}")
        contact = self.api.contacts(name)
        if contact:
            self.contacts.append(Contact(call.line, name))
        specs = self.api.file_calls.get(name)
        if specs is not None:
            self._file_call(name, specs, call, state)
        url = self.api.url_calls.get(name)
        if url is not None:
            self._url(*call.arg(*url), call.line, name, state)
        if name in self.api.runners:
            self._run(name, call, state)
        if call.keywords or call.open_ended:
            self._evaluated_annotations(name, call)
        if name in self.api.openers:
            return self._open(name, call, state)
        special = SPECIAL.get(name)
        if special is not None:
            return special(self, call, state)
        if name in self.api.makers:
            return Obj(self.api.makers[name])
        if name in self.api.cookie_jars:
            present, file = call.arg(0, "filename")
            return Obj("cookies", path_text(file) if present and not same(file, Const(None)) else "")
        head, _, method = name.rpartition(".")
        if head == "pathlib.Path" and (
            method in self.api.path_methods or method in self.api.path_transforms or method == "open"
        ):
            text = path_text(call.arg(0, "self")[1])
            path = PathValue(pure(text) if text is not None else None)
            return self._path_method(path, method, call._replace(args=call.args[1:]), state)
        if self._unmodelled(name):
            self._doubt(call.line, f"{name} may touch files in a way this analysis does not follow")
        return Obj("handle") if contact else None

    def _documents(self, call: Call) -> bool:
        """``help(obj)`` of an object known not to be a string only prints its documentation (pydoc
        pages it through $PAGER on a terminal, so not once the program changed the environment);
        a string names a module, keyword or topic to import and look up, and no argument is the
        interactive help."""
        if call.keywords or call.open_ended or len(call.args) != 1 or self.environment_changes:
            return False
        value = call.args[0]
        if isinstance(value, Ref):  # sys.platform is a string too: only what cannot be one
            parts = value.name.split(".")
            if any(part.startswith("_") for part in parts):
                return False
            if len(parts) == 1:  # a builtin function or type, or a module imported as such
                return value.name in self.api.builtins or value.name in self.api.known_modules
            return len(parts) == 2 and parts[0] in self.api.builtin_types  # str.split: a method
        return value is not None and not (isinstance(value, Const) and isinstance(value.value, str))

    def _call_method(self, method: Method, call: Call, state: State) -> Value:
        receiver, name = method.receiver, method.name
        if (
            isinstance(receiver, Seq)
            and receiver.mutable
            and name in self.api.mutators
            and method.node.type == "identifier"
        ):
            state.env[self._text(method.node)] = None
        if is_environ(receiver):
            return self._environ_method(receiver, name, call)
        if isinstance(receiver, PathValue):
            return self._path_method(receiver, name, call, state)
        if isinstance(receiver, Obj):
            return self._object_method(receiver, name, call, state)
        if isinstance(receiver, Const):
            return text_method(receiver.value, name, call)
        if receiver is None or isinstance(receiver, Func):
            self._suspect(name, call, state)
        return None

    def _suspect(self, name: str, call: Call, state: State) -> None:
        """A method of an unknown receiver that may be a path's (``p.unlink()``): doubt it unless its
        arguments show it is not (``s.replace("a", "b")``, ``d.copy()``, ``dt.replace(year=1)``). SQL
        run on it is read as a database's would be."""
        if name in self.api.sql_methods:
            self._sql(name, call, state, self.uses_sqlite)
            return
        if name in ("subprocess_exec", "subprocess_shell"):
            self._doubt(call.line, f".{name}() runs a command computed at run time")
            return
        if name == "open":
            present, mode = call.arg(0, "mode")
            text = string_value(mode)
            keyword = "mode" in call.keywords
            if present and (
                (text is None and keyword) or (text is not None and MODE.fullmatch(text) and writes(text))
            ):
                self._doubt(call.line, "cannot tell which file .open() writes")
            return
        bounds = self.api.suspects.get(name)
        if bounds is None:
            return
        count = len(call.args) + (1 if "target" in call.keywords else 0)
        if name in ("rename", "replace") and set(call.keywords) - {"target"}:
            return
        if call.open_ended or bounds[0] <= count <= bounds[1]:
            self._doubt(call.line, f"cannot tell which file .{name}() touches")

    def _evaluated_annotations(self, name: str, call: Call) -> None:
        """``inspect.signature(f, eval_str=True)`` runs the annotations written as strings."""
        how = call.keywords.get("eval_str")
        evaluates = "eval_str" in call.keywords or (call.open_ended and name.startswith("inspect."))
        if evaluates and not (isinstance(how, Const) and not how.value):
            self._doubt(call.line, f"{name} evaluates annotations, which are code")

    def _unmodelled(self, name: str) -> bool:
        """Whether calling ``name`` touches files in a way no table (nor special call) models."""
        return name not in self.api.modelled and name not in SPECIAL and self.api.file_member(name)
