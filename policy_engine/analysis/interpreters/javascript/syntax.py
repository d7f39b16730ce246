"""The node types of the tree-sitter grammars (JavaScript, TypeScript) that the walk treats alike.

These are facts about the grammars, not about the runtimes, and change with the grammar's version,
not with Node's: they stay code, beside the walk that reads them.
"""

from __future__ import annotations

from .values import words

# Whatever starts a function body: code that may run at any time, or never.
FUNCTIONS = words(
    "function_declaration generator_function_declaration function_expression function generator_function "
    "arrow_function method_definition class_static_block"
)
# Functions whose name is bound before the statements of their block run (they are hoisted).
DECLARED_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration"})
# Assignment targets that hold further targets.
PATTERNS = frozenset({"object_pattern", "array_pattern", "rest_pattern", "parenthesized_expression"})
# Operators that compare: a module compared with something is handed to no one.
COMPARISONS = frozenset({"===", "!==", "==", "!=", "in", "instanceof", "<", ">", "<=", ">="})
# TypeScript's types carry no effects; neither do these declarations.
TYPES = words(
    "type_annotation type_arguments type_parameters type_parameter type_identifier interface_declaration "
    "type_alias_declaration ambient_declaration function_signature abstract_method_signature "
    "method_signature index_signature property_signature construct_signature call_signature "
    "accessibility_modifier override_modifier implements_clause asserts_annotation "
    "type_predicate_annotation omitting_type_annotation adding_type_annotation opting_type_annotation "
    "type_query"
)


def is_type(kind: str) -> bool:
    """Whether a node of type ``kind`` is a TypeScript type (or a declaration of one only)."""
    return kind in TYPES or kind.endswith("_type")
