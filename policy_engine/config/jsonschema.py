"""The policy file format as a JSON Schema (draft 2020-12) for editors, and a small validator for it.

The schema is generated from the pydantic models in :mod:`policy_engine.config.schema`, so it
cannot drift from what the loader accepts; pydantic's raw output is then tidied for editors
(VS Code, JetBrains, yaml/json language servers): they complete keys and enum values and show
descriptions, but they do not know pydantic's conventions (discriminator tags, generated titles).

:func:`validate` checks a document against the schema without the ``jsonschema`` package. It knows
exactly the keywords the generated schema uses and refuses any other, so that a change to the
schema can never make it skip a check silently. It is not the loader: the loader (pydantic plus
:mod:`policy_engine.config.validate`) stays the authority and also checks what no JSON Schema can,
such as whether a location names a defined policy.
"""

from __future__ import annotations

import copy
import difflib
import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from . import schema
from .jsonc import Path, json_type, key_path

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "https://policy-engine.dev/schema/policy.schema.json"

# A rule given as a string names a preset, as schema.PRESET_REFERENCE says (in ECMA-262, the dialect
# of JSON Schema patterns, \w is ASCII; validate() follows that, see _python_regex).
PRESET_PATTERN = r"^\$[A-Za-z][\w-]*$"

# Rule.message rejects a blank text (its field validator); "contains a non-space character" is the
# pattern for it. ECMA-262's \s and Python's str.strip() agree except on exotic characters: U+001C-
# U+001F and U+0085 are blank to Python only (the schema is looser there), U+FEFF to ECMA only.
NOT_BLANK_PATTERN = r"\S"

# Order of keywords inside one schema object. JSON does not care, but a fixed order keeps the
# shipped file stable across pydantic versions and puts what a reader wants first (what it is,
# then its type, then its parts).
_KEYWORD_ORDER = (
    "$schema",
    "$id",
    "$ref",
    "title",
    "description",
    "type",
    "const",
    "enum",
    "default",
    "minLength",
    "pattern",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "minItems",
    "minProperties",
    "properties",
    "required",
    "additionalProperties",
    "propertyNames",
    "prefixItems",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
    "if",
    "then",
    "else",
    "$defs",
)

# Keywords whose value maps names to schemas (not a schema itself): their keys are data, never
# keywords, so tidying must not touch them (Rule has a property called "pattern", Config one
# called "$schema").
_SCHEMA_MAPS = ("properties", "$defs")
# Keywords whose value is one schema, and those whose value is a list of schemas.
_SCHEMA_VALUED = ("additionalProperties", "propertyNames", "items", "if", "then", "else")
_SCHEMA_LISTS = ("prefixItems", "anyOf", "oneOf", "allOf")


def policy_schema() -> dict[str, Any]:
    """The JSON Schema of a policy file, tidied for editors. Deterministic: same models, same schema."""
    raw = schema.Config.model_json_schema(by_alias=True, mode="validation")
    tidied = _tidy(copy.deepcopy(raw))
    definitions: dict[str, Any] = tidied.get("$defs", {})
    _constrain_preset_strings(definitions)
    _constrain_rules(definitions)
    _constrain_protection(definitions)
    _describe_references(tidied, definitions)
    tidied["$schema"] = DIALECT
    tidied["$id"] = SCHEMA_ID
    tidied["title"] = "policy-engine policy file"
    tidied["description"] = (
        "Policies for the tool calls of AI coding agents: named policies of rules, the directories "
        "they govern, path protection and limits. Read as JSONC (comments and trailing commas allowed)."
    )
    ordered: dict[str, Any] = _ordered(tidied)
    return ordered


def schema_text() -> str:
    """The schema as shipped in ``policy_engine/policy.schema.json`` and ``schema/policy.schema.json``."""
    return json.dumps(policy_schema(), indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------------------------
# post-processing pydantic's output


def _tidy(node: Any) -> Any:
    """Rewrite one schema (and everything below it) into the form editors understand."""
    if not isinstance(node, dict):
        return node
    # pydantic titles every property after its field name ("Allowunanalyzed"); editors would show
    # that instead of the key itself. The document's own title is set afterwards.
    node.pop("title", None)
    # A discriminator names pydantic's internal tags (such as "<action>"), which are never data.
    node.pop("discriminator", None)
    # pydantic's "default": null only says "optional", which required already says; editors insert a
    # default as the value when completing a key, and null is never what one means to write.
    if "default" in node and node["default"] is None:
        del node["default"]
    for keyword in _SCHEMA_MAPS:
        if keyword in node:
            node[keyword] = {name: _tidy(sub) for name, sub in node[keyword].items()}
    for keyword in _SCHEMA_VALUED:
        if keyword in node:
            node[keyword] = _tidy(node[keyword])
    for keyword in _SCHEMA_LISTS:
        if keyword in node:
            node[keyword] = [_tidy(sub) for sub in node[keyword]]
    if "oneOf" in node:
        # pydantic writes oneOf only for discriminated unions. Their forms never overlap in data the
        # model accepts, so anyOf says the same, and it cannot reject a document that happens to fit
        # two forms' schemas (the model picks one by its discriminator and accepts it).
        if "anyOf" in node:
            raise ValueError("a schema with both oneOf and anyOf: extend _tidy")
        node["anyOf"] = node.pop("oneOf")
    if isinstance(node.get("description"), str):
        # Docstrings quote names the reStructuredText way; editors show descriptions as plain text
        # or Markdown, where single backticks read better.
        node["description"] = node["description"].replace("``", "`")
    _merge_optional(node)
    return node


def _merge_optional(node: dict[str, Any]) -> None:
    """``anyOf: [{type: T, ...}, {type: null}]`` (pydantic's ``T | None``) becomes ``type: [T, null]``.

    Editors then show the field's constraints and enum values next to its description rather
    than inside a union, and validate() reports "expected a string or null" instead of a union
    mismatch. A union with a ``$ref`` is left alone: the reference cannot take a second type.
    """
    forms = node.get("anyOf")
    if not (isinstance(forms, list) and len(forms) == 2 and forms[1] == {"type": "null"}):
        return
    form = forms[0]
    if not (isinstance(form, dict) and isinstance(form.get("type"), str) and "$ref" not in form):
        return
    if any(keyword in node for keyword in form if keyword != "type"):
        return  # a keyword on both levels would have to be combined: keep the union
    del node["anyOf"]
    node.update(form)
    node["type"] = [form["type"], "null"]
    if "enum" in form:
        node["enum"] = [*form["enum"], None]


def _definition(definitions: dict[str, Any], name: str) -> dict[str, Any]:
    """A model's schema; a ValueError (not a silently weaker schema) when schema.py renamed it."""
    found = definitions.get(name)
    if not isinstance(found, dict):
        raise ValueError(f"the schema has no $defs/{name}: update policy_engine/config/jsonschema.py")
    return found


def _constrain_preset_strings(definitions: dict[str, Any]) -> None:
    """A rule written as a string must name a preset ("$safe-bash"), which editors can then flag.

    The model takes any string here (the loader reports an unknown preset with a hint), so this is
    stricter than pydantic on purpose: a string that is not a "$name" can never load.
    """
    rules = _definition(definitions, "Policy").get("properties", {}).get("rules", {})
    forms = rules.get("items", {}).get("anyOf", [])
    strings = [form for form in forms if form.get("type") == "string"]
    if len(strings) != 1:
        raise ValueError("Policy.rules is no longer a rule or a string: update _constrain_preset_strings")
    strings[0]["description"] = 'A preset of rules, such as "$safe-bash".'
    strings[0]["pattern"] = PRESET_PATTERN


def _constrain_rules(definitions: dict[str, Any]) -> None:
    """Every model with a rule's action and message: a message is never blank, and nudge needs one.

    Both rules live outside pydantic's schema (a field validator and the loader's own check), so
    they are added by hand here; tests/test_schema.py checks that they agree with the loader.
    """
    found = []
    for definition in definitions.values():
        properties = definition.get("properties", {})
        action, message = properties.get("action"), properties.get("message")
        if not (action and message and "nudge" in action.get("enum", ())):
            continue
        found.append(definition)
        message["pattern"] = NOT_BLANK_PATTERN
        definition["if"] = {"properties": {"action": {"const": "nudge"}}, "required": ["action"]}
        definition["then"] = {
            "description": "a nudge rule needs a message",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
        }
    if not found:
        raise ValueError("no rule model with action and message: update _constrain_rules")


def _constrain_protection(definitions: dict[str, Any]) -> None:
    """``{read, write}`` needs at least one of the two (ProtectionBySense's model validator).

    minProperties is a little looser than the model, which also rejects ``{"read": null}``; it
    catches the mistake people make (``{}``) with a message every editor words well.
    """
    _definition(definitions, "ProtectionBySense")["minProperties"] = 1


def _describe_references(root: dict[str, Any], definitions: dict[str, Any]) -> None:
    """A property that only refers to a model (``agentTimeout``) gets the model's description, so
    that hovering over the key explains it, whichever way an editor resolves references."""
    for holder in [root, *definitions.values()]:
        for prop in holder.get("properties", {}).values():
            if "description" in prop:
                continue
            forms = prop.get("anyOf", [prop])
            targets = [form["$ref"] for form in forms if "$ref" in form]
            if len(targets) == 1 and targets[0].startswith("#/$defs/"):
                target = definitions.get(targets[0].removeprefix("#/$defs/"), {})
                if "description" in target:
                    prop["description"] = target["description"]


def _ordered(node: Any) -> Any:
    """Canonical key order: keywords by _KEYWORD_ORDER, $defs and required sorted by name.

    Properties keep the models' field order (it is the order people read and write them in) and
    enums keep theirs (allow, nudge, log, ask, deny runs from lenient to strict).
    """
    if isinstance(node, list):
        return [_ordered(item) for item in node]
    if not isinstance(node, dict):
        return node
    rank = {keyword: index for index, keyword in enumerate(_KEYWORD_ORDER)}
    result: dict[str, Any] = {}
    for keyword in sorted(node, key=lambda k: (rank.get(k, len(rank)), k)):
        value = node[keyword]
        if keyword == "$defs":
            result[keyword] = {name: _ordered(value[name]) for name in sorted(value)}
        elif keyword == "properties":
            result[keyword] = {name: _ordered(sub) for name, sub in value.items()}
        elif keyword == "required":
            result[keyword] = sorted(value)
        elif keyword in ("enum", "const", "default"):
            result[keyword] = value  # data, not schemas
        else:
            result[keyword] = _ordered(value)
    return result


# ---------------------------------------------------------------------------------------------
# validation

# Keywords that only describe: validation ignores them, but knows them.
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "$defs", "title", "description", "default", "examples", "deprecated"}
)

_TYPE_NAMES = {
    "null": "null",
    "boolean": "a boolean",
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "array": "an array",
    "object": "an object",
}


def validate(instance: Any, schema: Mapping[str, Any]) -> list[str]:
    """Every way ``instance`` breaks ``schema``, as ``"<json path>: <what is wrong>"`` strings.

    An empty list means valid. ``$ref`` resolves against ``schema`` itself (``#/$defs/...``). A
    keyword this validator does not implement raises ValueError instead of passing unchecked.
    """
    return _Validator(schema).check(instance, schema, ())


def _is_type(value: Any, name: str) -> bool:
    # bool is an int in Python but never a number in JSON; an integer is any number without a
    # fraction (1.0 included), as JSON Schema defines it.
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        if isinstance(value, float):
            return math.isfinite(value) and value.is_integer()
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    raise ValueError(f"unknown JSON Schema type {name!r}")


def _json_equal(left: Any, right: Any) -> bool:
    """Equality as JSON sees it: true is not 1, 1 is 1.0, and containers compare deeply."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_json_equal, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_json_equal(left[k], right[k]) for k in left)
    return type(left) is type(right) and bool(left == right)


def _where(path: Path) -> str:
    return key_path(path) or "(top level)"


def _types_text(names: list[str]) -> str:
    words = [_TYPE_NAMES.get(name, name) for name in names]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _show(value: Any) -> str:
    """A value for a message: strings quoted as Python does ('alow'), the rest as JSON writes it
    (null, true), since the reader wrote JSON and None or True would look foreign."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_show(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_show(key)}: {_show(item)}" for key, item in value.items()) + "}"
    return json.dumps(value)


def _number_text(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


class _Validator:
    """One validation run: the root schema (for $ref) and the keyword checks."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.checks: dict[str, Callable[[Any, Any, Mapping[str, Any], Path], list[str]]] = {
            "$ref": self._ref,
            "type": self._type,
            "enum": self._enum,
            "const": self._const,
            "minLength": self._min_length,
            "pattern": self._pattern,
            "minimum": self._minimum,
            "exclusiveMinimum": self._exclusive_minimum,
            "maximum": self._maximum,
            "minItems": self._min_items,
            "minProperties": self._min_properties,
            "properties": self._properties,
            "required": self._required,
            "additionalProperties": self._additional_properties,
            "propertyNames": self._property_names,
            "prefixItems": self._prefix_items,
            "items": self._items,
            "anyOf": self._any_of,
            "oneOf": self._one_of,
            "allOf": self._all_of,
            "if": self._if,
            # then and else are applied by "if"; alone they do nothing (as the standard says).
            "then": lambda *_: [],
            "else": lambda *_: [],
        }

    def check(self, instance: Any, schema: Any, path: Path) -> list[str]:
        if schema is True:
            return []
        if schema is False:
            return [f"{_where(path)}: no value is allowed here"]
        if not isinstance(schema, Mapping):
            raise ValueError(f"not a schema: {schema!r}")
        for keyword in schema:
            if keyword not in self.checks and keyword not in _ANNOTATIONS:
                raise ValueError(f"validate() does not implement the JSON Schema keyword {keyword!r}")
        if "type" in schema:
            # A value of the wrong type breaks the type; enum, pattern and the like would only say
            # the same again ("3 is not one of [...]" after "expected a string, got a number").
            wrong_type = self._type(schema["type"], instance, schema, path)
            if wrong_type:
                return wrong_type
        errors: list[str] = []
        for keyword, value in schema.items():
            if keyword != "type" and keyword in self.checks:
                errors += self.checks[keyword](value, instance, schema, path)
        return errors

    def resolve(self, reference: str) -> Any:
        if not reference.startswith("#/"):
            raise ValueError(f"only local references (#/...) are supported, not {reference!r}")
        node: Any = self.root
        for part in reference[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or part not in node:
                raise ValueError(f"unresolvable reference {reference!r}")
            node = node[part]
        return node

    # -- applicators ---------------------------------------------------------------------------

    def _ref(self, reference: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        return self.check(instance, self.resolve(reference), path)

    def _properties(self, properties: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        if not isinstance(instance, dict):
            return []
        errors: list[str] = []
        for name, sub in properties.items():
            if name in instance:
                errors += self.check(instance[name], sub, (*path, name))
        return errors

    def _additional_properties(
        self, additional: Any, instance: Any, schema: Mapping[str, Any], path: Path
    ) -> list[str]:
        if not isinstance(instance, dict):
            return []
        known = list(schema.get("properties", {}))
        errors: list[str] = []
        for name, value in instance.items():
            if name in known:
                continue
            if additional is False:
                close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
                hint = f"did you mean {close[0]!r}?" if close else "known keys: " + ", ".join(known)
                errors.append(f"{_where((*path, name))}: unknown key {name!r}; {hint}")
            else:
                errors += self.check(value, additional, (*path, name))
        return errors

    def _property_names(self, names: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        if not isinstance(instance, dict):
            return []
        errors: list[str] = []
        for name in instance:
            where = _where((*path, name))
            # The check reports "<path>: <problem>"; say that the problem is with the key itself.
            for error in self.check(name, names, (*path, name)):
                errors.append(f"{where}: key {error.removeprefix(where + ': ')}")
        return errors

    def _prefix_items(self, forms: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        if not isinstance(instance, list):
            return []
        errors: list[str] = []
        for index, (item, sub) in enumerate(zip(instance, forms, strict=False)):
            errors += self.check(item, sub, (*path, index))
        return errors

    def _items(self, items: Any, instance: Any, schema: Mapping[str, Any], path: Path) -> list[str]:
        if not isinstance(instance, list):
            return []
        # In 2020-12, items covers what prefixItems does not.
        start = len(schema.get("prefixItems", ()))
        errors: list[str] = []
        for index in range(start, len(instance)):
            errors += self.check(instance[index], items, (*path, index))
        return errors

    def _any_of(self, forms: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        results = [self.check(instance, form, path) for form in forms]
        if any(not errors for errors in results):
            return []
        return self._union_errors(forms, results, instance, path)

    def _one_of(self, forms: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        results = [self.check(instance, form, path) for form in forms]
        matches = sum(not errors for errors in results)
        if matches == 1:
            return []
        if matches > 1:
            return [f"{_where(path)}: matches {matches} of the forms allowed here, but must match one"]
        return self._union_errors(forms, results, instance, path)

    def _union_errors(self, forms: Any, results: list[list[str]], instance: Any, path: Path) -> list[str]:
        """Why no form of a union fits: the errors of the one form of the value's type (a rule object
        with a misspelt action reports the action), or the types that would have fitted."""
        candidates = [
            errors for form, errors in zip(forms, results, strict=True) if self._admits(form, instance)
        ]
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            return min(candidates, key=len)
        types: list[str] = []
        for form in forms:
            for name in self._shallow_types(form):
                if name not in types:
                    types.append(name)
        if not types:
            return [f"{_where(path)}: {_show(instance)} matches none of the forms allowed here"]
        return [f"{_where(path)}: expected {_types_text(types)}, got {json_type(instance)}"]

    def _shallow_types(self, form: Any) -> list[str]:
        """The JSON types a form can take at its top level, judged by type, const and enum alone."""
        if not isinstance(form, Mapping):
            return []
        if "$ref" in form:
            return self._shallow_types(self.resolve(form["$ref"]))
        declared = form.get("type")
        if declared is not None:
            return [declared] if isinstance(declared, str) else list(declared)
        values = [form["const"]] if "const" in form else form.get("enum", [])
        return [json_type_name(value) for value in values]

    def _admits(self, form: Any, instance: Any) -> bool:
        types = self._shallow_types(form)
        if not types:
            return True  # a form that does not say its type could be meant for anything
        return any(_is_type(instance, name) for name in types)

    def _all_of(self, forms: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        errors: list[str] = []
        for form in forms:
            errors += self.check(instance, form, path)
        return errors

    def _if(self, condition: Any, instance: Any, schema: Mapping[str, Any], path: Path) -> list[str]:
        branch = schema.get("then") if not self.check(instance, condition, path) else schema.get("else")
        if branch is None:
            return []
        errors = self.check(instance, branch, path)
        # The branch's description says why it applies ("a nudge rule needs a message"); without it
        # "missing required key 'message'" would not explain why message is required only here.
        why = branch.get("description") if isinstance(branch, Mapping) else None
        return [f"{error} ({why})" for error in errors] if why else errors

    # -- assertions ----------------------------------------------------------------------------

    def _type(self, declared: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        names = [declared] if isinstance(declared, str) else list(declared)
        if any(_is_type(instance, name) for name in names):
            return []
        return [f"{_where(path)}: expected {_types_text(names)}, got {json_type(instance)}"]

    def _enum(self, values: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        if any(_json_equal(instance, value) for value in values):
            return []
        return [f"{_where(path)}: {_show(instance)} is not one of {_show(values)}"]

    def _const(self, value: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        if _json_equal(instance, value):
            return []
        return [f"{_where(path)}: expected {_show(value)}, got {_show(instance)}"]

    def _min_length(self, limit: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        # len() counts code points, as JSON Schema does (the JSONC reader joins surrogate pairs).
        if not isinstance(instance, str) or len(instance) >= limit:
            return []
        if limit == 1:
            return [f"{_where(path)}: must not be empty"]
        return [f"{_where(path)}: must be at least {limit} characters long, got {len(instance)}"]

    def _pattern(self, pattern: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        # JSON Schema patterns are unanchored searches, in ECMA-262's dialect (see _python_regex).
        if not isinstance(instance, str) or _compiled(pattern).search(instance):
            return []
        if pattern == NOT_BLANK_PATTERN:
            return [f"{_where(path)}: must not be blank"]
        return [f"{_where(path)}: {_show(instance)} does not match {pattern!r}"]

    def _minimum(self, limit: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        if not _is_type(instance, "number") or instance >= limit:
            return []
        return [f"{_where(path)}: must be at least {_number_text(limit)}, got {_show(instance)}"]

    def _exclusive_minimum(self, limit: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        if not _is_type(instance, "number") or instance > limit:
            return []
        return [f"{_where(path)}: must be greater than {_number_text(limit)}, got {_show(instance)}"]

    def _maximum(self, limit: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        if not _is_type(instance, "number") or instance <= limit:
            return []
        return [f"{_where(path)}: must be at most {_number_text(limit)}, got {_show(instance)}"]

    def _min_items(self, limit: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        if not isinstance(instance, list) or len(instance) >= limit:
            return []
        if limit == 1:
            return [f"{_where(path)}: must not be empty"]
        return [f"{_where(path)}: must have at least {limit} items, got {len(instance)}"]

    def _min_properties(self, limit: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        if not isinstance(instance, dict) or len(instance) >= limit:
            return []
        if limit == 1:
            return [f"{_where(path)}: must not be empty"]
        return [f"{_where(path)}: must have at least {limit} keys, got {len(instance)}"]

    def _required(self, names: Any, instance: Any, _: Mapping[str, Any], path: Path) -> list[str]:
        if not isinstance(instance, dict):
            return []
        return [f"{_where(path)}: missing required key {name!r}" for name in names if name not in instance]


def json_type_name(value: Any) -> str:
    """The JSON Schema type name of a JSON value ("integer" for whole numbers, as in _is_type)."""
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is_type(value, name):
            return name
    raise ValueError(f"not a JSON value: {value!r}")


# ECMA-262's white space and line terminators: what \s matches in a JSON Schema pattern.
_ECMA_SPACE = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"


def _python_regex(pattern: str) -> re.Pattern[str]:
    r"""A JSON Schema (ECMA-262) pattern as a Python regular expression with the same meaning.

    The differences that matter for ordinary patterns: \d and \w are ASCII in ECMA-262 (re.ASCII),
    \s is Unicode white space there (re.ASCII would narrow it, so it is spelled out), . stops at
    every line terminator, not only \n, and $ is the end of the text, where Python's $ also matches
    before a final newline.
    """
    translated: list[str] = []
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            escaped = pattern[index + 1]
            if escaped == "s":
                translated.append(_ECMA_SPACE if in_class else f"[{_ECMA_SPACE}]")
            elif escaped == "S" and not in_class:
                translated.append(f"[^{_ECMA_SPACE}]")
            elif escaped == "S":
                raise ValueError(f"pattern {pattern!r}: \\S inside a character class is not supported")
            else:
                translated.append(char + escaped)
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            char = r"\Z"
        elif char == ".":
            char = r"[^\n\r\u2028\u2029]"
        translated.append(char)
        index += 1
    try:
        return re.compile("".join(translated), re.ASCII)
    except re.error as error:
        raise ValueError(f"pattern {pattern!r} uses syntax validate() does not support: {error}") from None


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    # A schema has a handful of patterns and a document checks them many times: compile each once.
    found = _PATTERNS.get(pattern)
    if found is None:
        found = _PATTERNS[pattern] = _python_regex(pattern)
    return found
