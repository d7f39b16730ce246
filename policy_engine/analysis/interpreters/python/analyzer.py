"""The analysis put together: the walker, its dispatch table over node types, and ``analyze``."""

from __future__ import annotations

import re

from ...shell.grammar import first_error_line, parse
from ..findings import Program, Setting
from .api import load
from .core import Handler
from .scopes import collect_bindings, too_big
from .statements import Statements


class Analyzer(Statements):
    """One walk over one program; its findings accumulate in lists."""


# The walk's dispatch: each syntax node type and the method that evaluates it (any other type is
# Core._generic: its parts evaluated and handed on). Kept here, where every mixin's methods exist.
HANDLERS: dict[str, Handler] = {
    "module": Analyzer._values,
    "block": Analyzer._values,
    "expression_statement": Analyzer._values,
    "if_statement": Analyzer._if,
    "for_statement": Analyzer._loop,
    "while_statement": Analyzer._loop,
    "try_statement": Analyzer._try,
    "with_statement": Analyzer._with,
    "match_statement": Analyzer._match,
    "function_definition": Analyzer._function,
    "class_definition": Analyzer._class,
    "decorated_definition": Analyzer._decorated,
    "import_statement": Analyzer._import,
    "import_from_statement": Analyzer._import_from,
    "future_import_statement": Analyzer._nothing,
    "global_statement": Analyzer._names_unknown,
    "nonlocal_statement": Analyzer._names_unknown,
    "delete_statement": Analyzer._names_unknown,
    "exec_statement": Analyzer._exec_statement,
    "pass_statement": Analyzer._nothing,
    "break_statement": Analyzer._nothing,
    "continue_statement": Analyzer._nothing,
    "type_alias_statement": Analyzer._nothing,
    "comment": Analyzer._nothing,
    "assignment": Analyzer._assignment,
    "augmented_assignment": Analyzer._augmented,
    "named_expression": Analyzer._walrus,
    "identifier": Analyzer._identifier,
    "keyword_identifier": Analyzer._identifier,
    "string": Analyzer._string,
    "concatenated_string": Analyzer._concatenated,
    "integer": Analyzer._constant,
    "true": Analyzer._constant,
    "false": Analyzer._constant,
    "none": Analyzer._constant,
    "float": Analyzer._nothing,
    "ellipsis": Analyzer._nothing,
    "list": Analyzer._sequence,
    "tuple": Analyzer._sequence,
    "set": Analyzer._sequence,
    "expression_list": Analyzer._sequence,
    "dictionary": Analyzer._dictionary,
    "parenthesized_expression": Analyzer._parenthesized,
    "conditional_expression": Analyzer._conditional,
    "binary_operator": Analyzer._binary,
    "comparison_operator": Analyzer._values,
    "type": Analyzer._values,
    "subscript": Analyzer._subscript,
    "attribute": Analyzer._attribute,
    "call": Analyzer._call,
    "lambda": Analyzer._lambda,
    "list_comprehension": Analyzer._comprehension,
    "set_comprehension": Analyzer._comprehension,
    "dictionary_comprehension": Analyzer._comprehension,
    "generator_expression": Analyzer._comprehension,
}
Analyzer.HANDLERS = HANDLERS


def _line_of(doubt: str) -> int:
    """The line a doubt starts with (``line 3: ...``), to sort doubts in program order."""
    match = re.match(r"line (\d+):", doubt)
    return int(match.group(1)) if match else 0


def analyze(source: str, setting: Setting) -> Program:
    """What ``source`` does to files, which commands it runs and machines it contacts, and what of
    it cannot be proven. Never raises: an input the analysis cannot handle is a doubt."""
    try:
        return _analyze(source, setting)
    except RecursionError:
        return Program(doubts=("the Python source nests too deeply to be analysed",))
    except Exception as error:  # a bug must cost a question, never a crash or an allow
        return Program(doubts=(f"the Python source could not be analysed ({type(error).__name__})",))


def _analyze(source: str, setting: Setting) -> Program:
    data = source.encode("utf-8", "replace")
    root = parse(data, "python").root_node
    if too_big(root, setting.max_nodes):
        return Program(
            doubts=(f"the Python source has more than {setting.max_nodes} syntax nodes; it is not analysed",)
        )
    analyzer = Analyzer(data, setting, collect_bindings(root, data, load().mutators))
    if root.has_error:
        analyzer._doubt(first_error_line(root), "the code does not parse as Python")
    analyzer.run(root)
    analyzer.shadowing()
    effects = sorted(dict.fromkeys(analyzer.effects), key=lambda e: e.line)
    executions = sorted(analyzer.executions, key=lambda e: e.line)
    contacts = sorted(dict.fromkeys(analyzer.contacts), key=lambda c: c.line)
    doubts = sorted(dict.fromkeys(analyzer.doubts), key=_line_of)
    return Program(tuple(effects), tuple(executions), tuple(contacts), tuple(doubts))
