"""The policy file format as a JSON Schema (draft 2020-12) for editors.

The schema is generated from the pydantic models in :mod:`policy_engine.config.schema`, so it
cannot drift from what the loader accepts; pydantic's raw output is then tidied for editors
(VS Code, JetBrains, yaml/json language servers): they complete keys and enum values and show
descriptions, but they do not know pydantic's conventions (discriminator tags, generated titles).
It is not the loader: the loader (pydantic plus :mod:`policy_engine.config.validate`) stays the
authority and also checks what no JSON Schema can, such as whether a location names a defined policy.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from . import schema

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "https://policy-engine.dev/schema/policy.schema.json"

# A rule given as a string names a preset, as schema.PRESET_REFERENCE says (in ECMA-262, the dialect
# of JSON Schema patterns, \w is ASCII).
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
        raise ValueError(f"the schema has no $defs/{name}: update policy_engine/config/editorschema.py")
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
    they are added by hand here; tests/unit/test_schema.py checks that they agree with the loader.
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
