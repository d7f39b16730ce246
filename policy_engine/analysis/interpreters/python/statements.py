"""Statements: scopes, branches, loops, ``try``/``with``/``match``, definitions, assignments and imports
(which modules a program loads, and which of them the working directory would shadow).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....model import Sense
from ..findings import Contact, Effect
from ..modules import Shadow, shadowing
from .calls import Calls
from .core import MAX_NESTING
from .paths import TEMP
from .scopes import State, collect_bindings, dotted, forget_mutated, node_line, pattern_value, target_names
from .values import ENVIRON, Const, Func, Obj, Ref, Seq, Value, same, string_value

if TYPE_CHECKING:
    from tree_sitter import Node


class Statements(Calls):
    """Control flow merged flow-sensitively, and names bound or forgotten."""

    def run(self, root: Node) -> None:
        self._scope(root, State({}, self.setting.cwd))

    def _scope(self, body: Node, state: State) -> None:
        """A module or function body, then the functions it defines (which may run at any time after)."""
        self.deferred.append([])
        self._eval(body, state)
        for function in self.deferred.pop():
            self._function_body(function, state)

    def _function_body(self, function: Node, outer: State) -> None:
        env = {name: self._closure_value(name, value) for name, value in outer.env.items()}
        env.update(dict.fromkeys(self.unstable))
        inner = State(env, None if self.moves_cwd else self.setting.cwd)
        parameters = function.child_by_field_name("parameters")
        if parameters is not None:
            inner.env.update(dict.fromkeys(self._parameter_names(parameters)))
        body = function.child_by_field_name("body")
        self.depth += 1  # a function nested in another nests the walk too
        try:
            if self.depth <= MAX_NESTING and body is not None:
                self._scope(body, inner)
        finally:
            self.depth -= 1

    def _merge(self, state: State, outcomes: list[State]) -> None:
        """``state`` after one of ``outcomes`` happened: a name they disagree on is unknown, except that
        a module or function imported in one of them keeps its name (calling it is what matters)."""
        names = {name for outcome in outcomes for name in outcome.env}
        for name in names:
            fallback: Value = Ref(name) if name in self.api.builtins else None
            values = [outcome.env.get(name, fallback) for outcome in outcomes]
            if all(same(v, values[0]) for v in values):
                state.env[name] = values[0]
                continue
            refs = {v for v in values if isinstance(v, Ref)}
            rest = [
                v for v in values if not isinstance(v, Ref) and v is not None and not same(v, Const(None))
            ]
            state.env[name] = refs.pop() if len(refs) == 1 and not rest else None
        cwds = {outcome.cwd for outcome in outcomes}
        state.cwd = cwds.pop() if len(cwds) == 1 else None

    def _forget(self, state: State, node: Node) -> None:
        """Before a loop body: what it binds or changes may differ from one iteration to the next."""
        bindings = collect_bindings(node, self.source, self.api.mutators)
        for name in bindings.sites:
            state.env[name] = None
        forget_mutated(state, bindings)
        if b"chdir" in self.source[node.start_byte : node.end_byte]:
            state.cwd = None

    def _if(self, node: Node, state: State) -> Value:
        self._eval(node.child_by_field_name("condition"), state)
        branch = state.copy()
        self._eval(node.child_by_field_name("consequence"), branch)
        outcomes = [branch]
        otherwise = False
        for alternative in node.children_by_field_name("alternative"):
            if alternative.type == "elif_clause":
                self._eval(alternative.child_by_field_name("condition"), state)
                body = alternative.child_by_field_name("consequence")
            else:
                otherwise = True
                body = alternative.child_by_field_name("body")
            branch = state.copy()
            self._eval(body, branch)
            outcomes.append(branch)
        if not otherwise:
            outcomes.append(state.copy())
        self._merge(state, outcomes)
        return None

    def _loop(self, node: Node, state: State) -> Value:
        """``for`` and ``while``: the body may run any number of times, the else clause after it."""
        if node.type == "for_statement":
            self._eval(node.child_by_field_name("right"), state)
        loop = state.copy()
        self._forget(loop, node)
        self._eval(node.child_by_field_name("condition"), loop)
        self._eval(node.child_by_field_name("body"), loop)
        alternative = node.child_by_field_name("alternative")
        if alternative is not None:
            self._eval(alternative.child_by_field_name("body"), loop)
        self._merge(state, [state.copy(), loop])
        return None

    def _try(self, node: Node, state: State) -> Value:
        """The body may stop anywhere; a handler runs after part of it, the else clause after all of it."""
        body = state.copy()
        self._eval(node.child_by_field_name("body"), body)
        partly = state.copy()
        self._merge(partly, [state.copy(), body])
        outcomes = []
        final: Node | None = None
        for clause in node.named_children:
            if clause.type in ("except_clause", "except_group_clause"):
                handler = partly.copy()
                for part in clause.named_children:
                    if part.type == "as_pattern":
                        self._classes(pattern_value(part), handler)
                        for name in target_names(part.child_by_field_name("alias"), self.source):
                            handler.env[name] = None
                    else:
                        self._classes(part, handler)
                outcomes.append(handler)
            elif clause.type == "else_clause":
                self._eval(clause.child_by_field_name("body"), body)
            elif clause.type == "finally_clause":
                final = clause
        self._merge(state, [body, *outcomes])
        if final is not None:
            self._values(final, state)
        return None

    def _with(self, node: Node, state: State) -> Value:
        for clause in node.named_children:
            if clause.type != "with_clause":
                continue
            for item in clause.named_children:
                value = item.child_by_field_name("value")
                if value is not None and value.type == "as_pattern":
                    entered = self._eval(pattern_value(value), state)
                    self._bind_entered(value.child_by_field_name("alias"), entered, state)
                else:
                    self._eval(value, state)
        self._eval(node.child_by_field_name("body"), state)
        return None

    def _bind_entered(self, alias: Node | None, entered: Value, state: State) -> None:
        """``with X as name``: an open file or archive stays one; a temporary directory is its path."""
        names = target_names(alias, self.source)
        if isinstance(entered, Obj) and entered.kind == "tempdir":
            entered = Const(TEMP)
        elif not isinstance(entered, Obj) or entered.kind == "environ":
            entered = None
        for name in names:
            state.env[name] = entered if len(names) == 1 else None

    def _match(self, node: Node, state: State) -> Value:
        self._use(node.child_by_field_name("subject"), state)
        outcomes = [state.copy()]
        body = node.child_by_field_name("body")
        for case in body.named_children if body is not None else []:
            if case.type != "case_clause":
                continue
            branch = state.copy()
            for pattern in case.named_children:
                if pattern.type == "case_pattern":
                    for name in target_names(pattern, self.source):
                        branch.env[name] = None
            self._eval(case.child_by_field_name("guard"), branch)
            self._eval(case.child_by_field_name("consequence"), branch)
            outcomes.append(branch)
        self._merge(state, outcomes)
        return None

    def _function(self, node: Node, state: State) -> Value:
        """A definition: defaults and annotations now, the body at the end of the scope. What the body
        may change outside it (a global, a list it appends to) is unknown from here on."""
        parameters = node.child_by_field_name("parameters")
        for parameter in parameters.named_children if parameters is not None else []:
            self._use(parameter.child_by_field_name("value"), state)
            self._eval(parameter.child_by_field_name("type"), state)
        self._eval(node.child_by_field_name("return_type"), state)
        self._forget_escaping(node, state)
        name = self._text(node.child_by_field_name("name"))
        state.env[name] = Func(name)
        self.deferred[-1].append(node)
        return None

    def _forget_escaping(self, node: Node, state: State) -> None:
        body = node.child_by_field_name("body")
        if body is None:
            return
        bindings = collect_bindings(body, self.source, self.api.mutators)
        for name in bindings.declared:
            state.env[name] = None
        forget_mutated(state, bindings)

    def _class(self, node: Node, state: State) -> Value:
        """A class body runs now, in a namespace of its own; its methods are functions of the scope."""
        bases = node.child_by_field_name("superclasses")
        for base in bases.named_children if bases is not None else []:
            value = self._eval(
                base.child_by_field_name("value") if base.type == "keyword_argument" else base, state
            )
            if isinstance(value, Ref) and self.api.contacts(value.name):
                self.contacts.append(Contact(node_line(base), value.name))
        self._forget_escaping(node, state)
        self._eval(node.child_by_field_name("body"), state.copy())
        name = self._text(node.child_by_field_name("name"))
        state.env[name] = Func(name)
        return None

    def _decorated(self, node: Node, state: State) -> Value:
        for child in node.named_children:
            if child.type == "decorator":
                self._generic(child, state)
        self._eval(node.child_by_field_name("definition"), state)
        return None

    def _names_unknown(self, node: Node, state: State) -> Value:
        """``global``, ``nonlocal`` and ``del``: the names no longer hold what they held."""
        for child in node.named_children:
            if child.type in ("identifier", "keyword_identifier"):
                state.env[self._text(child)] = None
            else:
                self._store(child, None, state, node_line(child))
        return None

    def _exec_statement(self, node: Node, state: State) -> Value:
        self._doubt(node_line(node), "exec runs code built at run time")
        return self._generic(node, state)

    def _assignment(self, node: Node, state: State) -> Value:
        right = node.child_by_field_name("right")
        self._eval(node.child_by_field_name("type"), state)
        if right is None:
            return None
        value = self._eval(right, state)
        if right.type not in ("assignment", "augmented_assignment"):
            self._escape(value, node_line(right), aliasing=True)
        if right.type == "identifier" and isinstance(value, Seq) and value.mutable:
            state.env[self._text(right)] = value = None  # two names for one list: either may change it
        self._store(node.child_by_field_name("left"), value, state, node_line(node))
        return value

    def _augmented(self, node: Node, state: State) -> Value:
        self._use(node.child_by_field_name("right"), state)
        self._store(node.child_by_field_name("left"), None, state, node_line(node))
        return None

    def _walrus(self, node: Node, state: State) -> Value:
        value = self._eval(node.child_by_field_name("value"), state)
        self._escape(value, node_line(node), aliasing=True)
        state.env[self._text(node.child_by_field_name("name"))] = None
        return value

    def _store(self, target: Node | None, value: Value, state: State, line: int) -> None:
        """Bind ``value`` to an assignment target (or forget it, for ``del`` and ``+=``)."""
        if target is None:
            return
        kind = target.type
        if kind in ("identifier", "keyword_identifier"):
            state.env[self._text(target)] = value
        elif kind in ("pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list"):
            parts = [c for c in target.named_children if c.type != "comment"]
            known = isinstance(value, Seq) and len(value.items) == len(parts)
            starred = any(p.type in ("list_splat_pattern", "list_splat") for p in parts)
            for index, part in enumerate(parts):
                item = value.items[index] if isinstance(value, Seq) and known and not starred else None
                self._store(part, item, state, line)
        elif kind == "attribute":
            self._store_attribute(target, value, state, line)
        elif kind == "subscript":
            self._store_item(target, value, state, line)
        elif kind in ("list_splat_pattern", "list_splat", "parenthesized_expression"):
            for child in target.named_children:
                self._store(child, None, state, line)
        else:
            self._eval(target, state)

    def _store_attribute(self, target: Node, value: Value, state: State, line: int) -> None:
        self._escape(value, line)
        base = self._eval(target.child_by_field_name("object"), state)
        if not isinstance(base, Ref):
            return
        name = self.api.canonical(f"{base.name}.{self._text(target.child_by_field_name('attribute'))}")
        if name in ("sys.path", "sys.modules", "sys.meta_path", "sys.path_hooks"):
            self.path_changed = True
        if self.api.effectful(name) or name in self.api.effectful_modules or name == "sys.modules":
            self._doubt(line, f"replaces {name}")

    def _store_item(self, target: Node, value: Value, state: State, line: int) -> None:
        self._escape(value, line)
        base_node = target.child_by_field_name("value")
        base = self._eval(base_node, state)
        keys = [self._use(key, state) for key in target.children_by_field_name("subscript")]
        if (
            base_node is not None
            and base_node.type == "identifier"
            and isinstance(base, Seq)
            and base.mutable
        ):
            state.env[self._text(base_node)] = None
        if isinstance(base, Ref) and base.name in ENVIRON:
            name = string_value(keys[0]) if len(keys) == 1 else None
            self.environment_changes.append(name or "?")
        elif isinstance(base, Ref) and base.name in ("sys.modules", "sys.path"):
            self.path_changed = True
            if base.name == "sys.modules":
                self._doubt(line, "changes the loaded modules through sys.modules")
        elif isinstance(base, Obj) and base.kind == "namespace":
            self._doubt(line, "defines names through globals() or vars(), which cannot be followed")

    # -- imports: names bound to modules, imports that are doubts by themselves, shadowed modules

    def _import(self, node: Node, state: State) -> Value:
        line = node_line(node)
        for child in node.named_children:
            if child.type == "aliased_import":
                module = dotted(self._text(child.child_by_field_name("name")))
                self._check_import(module, line, state)
                state.env[self._text(child.child_by_field_name("alias"))] = Ref(self.api.canonical(module))
            elif child.type == "dotted_name":
                module = dotted(self._text(child))
                self._check_import(module, line, state)
                top = module.split(".")[0]
                state.env[top] = Ref(self.api.canonical(top))
        return None

    def _import_from(self, node: Node, state: State) -> Value:
        line = node_line(node)
        source = node.child_by_field_name("module_name")
        module = dotted(self._text(source))
        relative = source is None or source.type == "relative_import"
        if relative:
            self._doubt(line, f"imports from a local package ({module}), whose effects are not known")
        else:
            self._check_import(module, line, state)
        for child in node.children_by_field_name("name"):
            name_node = child.child_by_field_name("name") if child.type == "aliased_import" else child
            alias_node = child.child_by_field_name("alias") if child.type == "aliased_import" else child
            name = dotted(self._text(name_node))
            state.env[self._text(alias_node)] = (
                None if relative else Ref(self.api.canonical(f"{module}.{name}"))
            )
        wildcard = any(child.type == "wildcard_import" for child in node.named_children)
        if (
            wildcard
            and not relative
            and (
                self.api.canonical(module) in self.api.effectful_modules or not self.api.known_module(module)
            )
        ):
            self._doubt(line, f"imports every name of {module}, so its functions cannot be followed")
        return None

    def _check_import(self, module: str, line: int, state: State) -> None:
        self.imports.append((module, line, state.cwd))
        if self.path_changed:
            self._doubt(line, f"imports {module} after sys.path was changed (it may load other code)")
        danger = self.api.import_danger(module)
        if danger:
            self._doubt(line, f"imports {module}, which {danger}")
        elif not self.api.known_module(module):
            self._doubt(line, f"imports {module}, whose effects are not known")

    def shadowing(self) -> None:
        """Modules of the working directory the program would import in place of installed ones
        (``modules.py``): Python looks there first, for what the program imports and for what the
        standard library imports on its behalf. Such a module is run, its code unread."""
        start = self.setting.cwd
        if start is not None and start.startswith(TEMP):
            start = None
        here = {module: line for module, line, cwd in reversed(self.imports) if cwd == self.setting.cwd}
        for shadow in shadowing(start, reversed(here), self.setting.settled):  # first line of each
            self._shadowed(here.get(shadow.module or "", 1), shadow)
        for module, line, cwd in self.imports:
            if cwd == self.setting.cwd:
                continue
            if cwd is None or cwd.startswith(TEMP):
                where = "where Python looks first is unknown"
                self._doubt(line, f"imports {module} after changing directory: {where}")
                continue
            for shadow in shadowing(cwd, [module]):
                self._shadowed(line, shadow)

    def _shadowed(self, line: int, shadow: Shadow) -> None:
        if shadow.path is None:
            self._doubt(line, shadow.why)
            return
        self.effects.append(Effect(shadow.path, Sense.EXEC, line, "import"))
        self._doubt(line, f"{shadow.why}; its code is not analysed")
