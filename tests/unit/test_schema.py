"""The JSON Schema for editors: shipped up to date, accepts every example, rejects typical mistakes
at the right key, and agrees with the real loader on generated documents."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from policy_engine.config import jsonc, schema
from policy_engine.config.compile import load_presets
from policy_engine.config.editorschema import DIALECT, PRESET_PATTERN, policy_schema, schema_text
from policy_engine.config.validate import check_local

REPO = Path(__file__).resolve().parents[2]
SHIPPED = {
    "package": REPO / "policy_engine" / "policy.schema.json",
    "repository": REPO / "schema" / "policy.schema.json",
}
# Every policy file under examples/, layered/ included (other files there, such as CI snippets, are not
# policy files).
EXAMPLES = sorted((REPO / "examples").rglob("*.jsonc"))

SCHEMA = policy_schema()
PRESETS = load_presets()


VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
PRESET_STRING = jsonschema.Draft202012Validator({"pattern": PRESET_PATTERN})


def _leaves(errors: Iterable[jsonschema.ValidationError]) -> Iterator[jsonschema.ValidationError]:
    """The errors that say what is wrong: an anyOf or oneOf error stands for its branches' errors."""
    for error in errors:
        if error.context:
            yield from _leaves(error.context)
        else:
            yield error


def _errors(data: Any) -> list[str]:
    """Every way ``data`` breaks the schema, as ``"<key path>: <keyword>: <message>"``; an unknown
    key is reported at the key itself, as the loader does."""
    found: list[str] = []
    for error in _leaves(VALIDATOR.iter_errors(data)):
        path = tuple(error.absolute_path)
        if error.validator == "additionalProperties":
            known = error.schema.get("properties", {})
            paths = [(*path, key) for key in error.instance if key not in known]
        else:
            paths = [path]
        found += [f"{jsonc.key_path(p) or '(top level)'}: {error.validator}: {error.message}" for p in paths]
    return found


# ---------------------------------------------------------------------------------------------
# the shipped files


@pytest.mark.parametrize("where", sorted(SHIPPED))
def test_shipped_schema_is_current(where: str) -> None:
    path = SHIPPED[where]
    relative = path.relative_to(REPO)
    regenerate = (
        f"{relative} is out of date with policy_engine/config/schema.py; regenerate it with\n"
        '  python -c "from policy_engine.config.editorschema import schema_text; '
        f"print(schema_text(), end='')\" > {relative}"
    )
    assert path.exists(), regenerate
    assert path.read_bytes() == schema_text().encode("utf-8"), regenerate


def test_schema_is_2020_12_json() -> None:
    loaded = json.loads(SHIPPED["repository"].read_text(encoding="utf-8"))
    assert loaded == SCHEMA
    assert loaded["$schema"] == DIALECT == "https://json-schema.org/draft/2020-12/schema"
    assert loaded["$id"].endswith("/policy.schema.json")
    assert loaded["title"] and loaded["description"]
    assert loaded["type"] == "object" and loaded["additionalProperties"] is False
    assert schema_text() == schema_text()  # deterministic within a run, too


def _subschemas(node: Any, path: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object in the schema, with where it sits; names in properties/$defs are data."""
    if not isinstance(node, dict):
        return
    yield path, node
    for keyword, value in node.items():
        if keyword in ("properties", "$defs"):
            for name, sub in value.items():
                yield from _subschemas(sub, f"{path}/{keyword}/{name}")
        elif keyword in ("anyOf", "oneOf", "allOf", "prefixItems"):
            for index, sub in enumerate(value):
                yield from _subschemas(sub, f"{path}/{keyword}/{index}")
        elif keyword in ("items", "additionalProperties", "propertyNames", "if", "then", "else"):
            yield from _subschemas(value, f"{path}/{keyword}")


def test_schema_is_tidy_for_editors() -> None:
    for where, sub in _subschemas(SCHEMA):
        # pydantic's internals never reach editors: no discriminator, no generated titles.
        assert "discriminator" not in sub, where
        assert "oneOf" not in sub, where
        if where != "#":
            assert "title" not in sub, where
        if "$ref" in sub:
            assert sub["$ref"].removeprefix("#/$defs/") in SCHEMA["$defs"], where
        if "required" in sub:
            assert sub["required"] == sorted(sub["required"]), where
    assert list(SCHEMA["$defs"]) == sorted(SCHEMA["$defs"])
    # pydantic's union tags name forms, never data.
    assert not any(tag in schema_text() for tag in schema.UNION_TAGS)
    rules = SCHEMA["$defs"]["Policy"]["properties"]["rules"]["items"]["anyOf"]
    assert {"$ref": "#/$defs/Rule"} in rules
    assert [form["pattern"] for form in rules if form.get("type") == "string"] == [PRESET_PATTERN]


def test_schema_is_valid_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    # Every keyword is one Draft 2020-12 validates or a known annotation, so none is skipped silently.
    # (then and else are applied by the if keyword.)
    annotations = {"$schema", "$id", "$comment", "$defs", "title", "description", "default", "examples"}
    known = set(jsonschema.Draft202012Validator.VALIDATORS) | annotations | {"then", "else"}
    for where, sub in _subschemas(SCHEMA):
        assert set(sub) <= known, f"{where}: {sorted(set(sub) - known)}"
        if "$ref" in sub:
            assert sub["$ref"].startswith("#/$defs/"), where


# ---------------------------------------------------------------------------------------------
# examples and mistakes


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: str(path.relative_to(REPO / "examples")))
def test_examples_validate(path: Path) -> None:
    assert len(EXAMPLES) > 10 and any(example.parent.name == "layered" for example in EXAMPLES)
    data = jsonc.parse(path.read_text(encoding="utf-8"), str(path)).data
    assert _errors(data) == []


def _policy(*rules: Any, default: Any = "deny") -> dict[str, Any]:
    return {"policies": {"strict": {"defaultAction": default, "rules": list(rules)}}}


MISTAKES = [
    # (document, the path an error must name, words its keyword and message must contain)
    ({"polices": {}}, "polices", "additionalProperties"),
    (_policy({"action": "allow", "tol": "read"}), "policies.strict.rules[0].tol", "additionalProperties"),
    (_policy({"action": "alow", "tool": "read"}), "policies.strict.rules[0].action", "'alow' is not one of"),
    (_policy(default="nudge"), "policies.strict.defaultAction", "is not one of"),
    (
        _policy({"action": "nudge", "tool": "read"}),
        "policies.strict.rules[0]",
        "'message' is a required property",
    ),
    (
        _policy({"action": "nudge", "tool": "read", "message": None}),
        "policies.strict.rules[0].message",
        "string",
    ),
    (
        _policy({"action": "log", "tool": "read", "message": "  "}),
        "policies.strict.rules[0].message",
        "pattern: '  ' does not match",
    ),
    (_policy({"action": "allow", "tool": ""}), "policies.strict.rules[0].tool", "empty"),
    (
        _policy({"action": "allow", "tool": "bash", "readOnly": "true"}),
        "policies.strict.rules[0].readOnly",
        "boolean",
    ),
    (_policy("safe-bash"), "policies.strict.rules[0]", "does not match"),
    (_policy("$safe bash"), "policies.strict.rules[0]", "does not match"),
    (_policy(7), "policies.strict.rules[0]", "type"),
    ({"policies": {"strict": {"rules": []}}}, "policies.strict", "'defaultAction' is a required property"),
    ({"policies": []}, "policies", "type"),
    ({"locations": {"$cwd": 1}}, "locations.$cwd", "type"),
    ({"approvalRules": [{"action": "nudge", "tool": "bash"}]}, "approvalRules[0]", "message"),
    (
        {"approvalRules": [{"action": "allow", "tool": "bash", "command": ""}]},
        "approvalRules[0].command",
        "empty",
    ),
    ({"agentTimeout": {"maxDenies": 0, "windowSeconds": 60}}, "agentTimeout.maxDenies", "exclusiveMinimum"),
    (
        {"agentTimeout": {"maxDenies": 3, "windowSeconds": 90000}},
        "agentTimeout.windowSeconds",
        "maximum",
    ),
    ({"agentTimeout": {"maxDenies": 2.5, "windowSeconds": 60}}, "agentTimeout.maxDenies", "integer"),
    ({"agentTimeout": {"maxDenies": True, "windowSeconds": 60}}, "agentTimeout.maxDenies", "integer"),
    ({"nudgeTimeout": {"maxNudges": 3}}, "nudgeTimeout", "'windowSeconds' is a required property"),
    ({"pathProtection": {"~/.ssh/": "block"}}, 'pathProtection["~/.ssh/"]', "is not one of"),
    (
        {"pathProtection": {".env": {"read": "allow", "wirte": "deny"}}},
        'pathProtection[".env"].wirte',
        "additionalProperties",
    ),
    ({"pathProtection": {".env": {}}}, 'pathProtection[".env"]', "empty"),
    ({"pathProtection": {".env": 1}}, 'pathProtection[".env"]', "type"),
    (
        {"interpreterAnalysis": {"unknownAction": "allow"}},
        "interpreterAnalysis.unknownAction",
        "is not one of",
    ),
    ({"interpreterAnalysis": {"maxDepth": -1}}, "interpreterAnalysis.maxDepth", "minimum"),
    ({"onError": "ask"}, "onError", "is not one of"),
    ({"mode": 3}, "mode", "type"),
    ({"log": "yes"}, "log", "type"),
    ({"cycleKey": ""}, "cycleKey", "empty"),
]


@pytest.mark.parametrize(
    ("data", "path", "words"), MISTAKES, ids=[case[1] + ":" + case[2] for case in MISTAKES]
)
def test_mistakes_are_reported_at_their_key(data: dict[str, Any], path: str, words: str) -> None:
    errors = _errors(data)
    assert any(error.startswith(f"{path}: ") and words in error for error in errors), errors


def test_error_form() -> None:
    # The path, the keyword, and jsonschema's message naming the value as written.
    errors = _errors(_policy({"action": "alow", "tool": "read"}))
    assert "policies.strict.rules[0].action: enum: 'alow' is not one of " + str(ACTIONS) in errors
    assert _errors({"schema_": "x"})[0].startswith("schema_: additionalProperties: ")
    assert _errors(None) == ["(top level): type: None is not of type 'object'"]


# ---------------------------------------------------------------------------------------------
# agreement with the loader on generated documents
#
# The schema is generated from the models, but some rules live elsewhere; where the schema
# differs from pydantic's Config it does so on purpose:
#
# Stricter than the model (the loader's own checks in config/validate.py reject these as well, which
# the property asserts, so the schema is never stricter than loading the file):
#   - a rule given as a string that is not "$name"-shaped (the model takes any string);
#   - a nudge rule, in rules or approvalRules, without a message (or with a null one).
# Stricter than the model and the loader alike (test_python_field_name_is_not_a_key):
#   - the key "schema_": the model's populate_by_name takes the field's Python name besides "$schema";
#     it is an implementation detail no file should use.
# Looser than the model (the schema cannot or does not say it); a document the model rejects only for
# these reasons is excluded from "rejected => errors" (see _unstated):
#   - the models' validators other than Rule.message's: {"read": null} in pathProtection (the schema
#     only asks for a non-empty object), an approval with both command and pattern, a test whose
#     command, input and tool do not fit together;
#   - a whole number written with a fraction (3.0) where an integer is due: JSON Schema's integer
#     takes it, pydantic's strict int does not.
# Cross-references (a location naming an undefined policy, an unknown preset) are not the model's
# business either; the loader checks them and neither side here does.

ACTIONS = ["allow", "nudge", "log", "ask", "deny"]

# Documents the model accepts (mostly: a nudge rule may lack its message, a preset string may not be
# "$name"-shaped); three in four then get one mistake, so that every kind of mistake is seen alone.
TEXT = st.sampled_from(["a reminder", "x", " y "])
RULE = st.fixed_dictionaries(
    {"action": st.sampled_from(ACTIONS), "tool": st.sampled_from(["bash", "read", "github_*", "B"])},
    optional={
        "pattern": st.sampled_from([None, "git *", "$safe-bash", "$nope", ""]),
        "message": st.one_of(st.none(), TEXT),
        "allowUnanalyzed": st.booleans(),
        "readOnly": st.booleans(),
    },
)
PRESET_NAME = st.sampled_from(
    ["$safe-bash", "$interpreters", "$a_b-1", "$nope", "safe-bash", "$1x", "$a b", "$aé"]
)
APPROVAL = st.fixed_dictionaries(
    {"action": st.sampled_from(ACTIONS), "tool": st.sampled_from(["bash", "write"])},
    optional={
        "message": st.one_of(st.none(), TEXT),
        "policy": st.sampled_from([None, "main"]),
        "command": st.sampled_from([None, "make test"]),
        "path": st.sampled_from([None, "~/x/*"]),
        "readOnly": st.booleans(),
    },
)
POLICY = st.fixed_dictionaries(
    {"defaultAction": st.sampled_from(["allow", "log", "ask", "deny"])},
    optional={"rules": st.lists(st.one_of(RULE, RULE, PRESET_NAME), min_size=1, max_size=3)},
)
SENSE = st.sampled_from([None, *ACTIONS])
PROTECTION = st.one_of(
    st.sampled_from(ACTIONS),
    st.fixed_dictionaries({"read": SENSE}, optional={"write": st.sampled_from(ACTIONS)}),
    st.fixed_dictionaries({"write": st.sampled_from(ACTIONS)}),
)
SECONDS = st.sampled_from([60, 0.5, 86400, 1e-3])
COUNT = st.sampled_from([1, 3, 10**9])
TEST = st.one_of(
    st.fixed_dictionaries(
        {"expect": st.sampled_from(ACTIONS), "command": st.just("ls")}, optional={"tool": st.just("bash")}
    ),
    st.fixed_dictionaries(
        {"expect": st.sampled_from(ACTIONS), "tool": st.just("read"), "input": st.just({"path": "a"})}
    ),
)
VALID_CONFIG = st.fixed_dictionaries(
    {},
    optional={
        "$schema": st.sampled_from([None, "./policy.schema.json"]),
        "policies": st.dictionaries(st.sampled_from(["main", "other", ""]), POLICY, min_size=1, max_size=2),
        "locations": st.dictionaries(
            st.sampled_from(["$cwd", "/srv", "~x"]), st.sampled_from(["main", "nowhere"]), max_size=2
        ),
        "defaultPolicy": st.sampled_from([None, "main"]),
        "approvalRules": st.lists(APPROVAL, max_size=2),
        "agentTimeout": st.one_of(
            st.none(), st.fixed_dictionaries({"maxDenies": COUNT, "windowSeconds": SECONDS})
        ),
        "nudgeTimeout": st.one_of(
            st.none(), st.fixed_dictionaries({"maxNudges": COUNT, "windowSeconds": SECONDS})
        ),
        "pathProtection": st.one_of(
            st.none(), st.dictionaries(st.sampled_from([".env", "~/.ssh/"]), PROTECTION, max_size=2)
        ),
        "onError": st.sampled_from(["deny", "allow", None]),
        "log": st.sampled_from([True, False, None]),
        "selfProtection": st.sampled_from([True, False, None]),
        "interpreterAnalysis": st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {},
                optional={
                    "enabled": st.booleans(),
                    "unknownAction": st.sampled_from(["ask", "deny"]),
                    "maxSourceBytes": COUNT,
                    "maxDepth": st.sampled_from([0, 4]),
                    "maxNodes": COUNT,
                },
            ),
        ),
        "cycleKey": st.sampled_from(["ctrl+x", "k"]),
        "mode": st.sampled_from(["enforce", "inform", "ignore", None]),
        "tests": st.lists(TEST, max_size=2),
    },
)
# What a mistake puts in place of a value: every JSON type, and the near misses people write.
WRONG_VALUES = [
    None,
    True,
    False,
    0,
    -1,
    1,
    2.5,
    3.0,
    86401,
    86400.5,
    "",
    "  ",
    "x",
    "alow",
    "Deny",
    "ask",
    "nudge",
]
WRONG_VALUES += ["$safe-bash", "safe-bash", "3", "true", [], [1], ["$safe-bash"], {}, {"x": 1}]
WRONG_KEYS = ["tol", "rule", "Policies", "run", "x", "schema"]


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value below the top level (the top level stays an object, as JSONC gives)."""
    if path:
        yield path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from _places(item, (*path, key))


def _shape(path: tuple[Any, ...]) -> tuple[Any, ...]:
    """A place's kind: the path with policy names, pattern keys and indexes left out."""
    shape: list[Any] = []
    for index, part in enumerate(path):
        named = index > 0 and path[index - 1] in ("policies", "locations", "pathProtection")
        shape.append("#" if isinstance(part, int) or named else part)
    return tuple(shape)


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    # A copy: st.just and sampled_from hand out the same objects every time, and mutating one would
    # change what later examples draw.
    data: dict[str, Any] = copy.deepcopy(draw(VALID_CONFIG))
    if draw(st.integers(0, 3)) == 0:
        return data
    # A kind of place first, then one place of that kind: a rule's action gets as many mistakes as
    # the log switch, although a document has many more places inside its rules.
    kinds: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {(): [()]}
    for place in _places(data):
        kinds.setdefault(_shape(place), []).append(place)
    kind = draw(st.sampled_from(sorted(kinds, key=repr)))
    target = draw(st.sampled_from(kinds[kind]))
    parent: Any = data
    for part in target[:-1]:
        parent = parent[part]
    mistake = draw(st.sampled_from(["replace", "replace", "add key", "drop key"]))
    if mistake == "replace" and target:
        parent[target[-1]] = copy.deepcopy(draw(st.sampled_from(WRONG_VALUES)))
        return data
    holder = parent[target[-1]] if target else data
    if not isinstance(holder, dict):
        holder = parent if isinstance(parent, dict) else data
    if mistake == "drop key" and holder:
        del holder[draw(st.sampled_from(sorted(holder)))]
    else:
        holder[draw(st.sampled_from(WRONG_KEYS))] = copy.deepcopy(draw(st.sampled_from(WRONG_VALUES)))
    return data
    places = list(_places(data))
    target: tuple[Any, ...] = draw(st.sampled_from(places)) if places else ()
    parent: Any = data
    for part in target[:-1]:
        parent = parent[part]
    mistake = draw(st.sampled_from(["replace", "add key", "drop key"]))
    if mistake == "replace" and target:
        parent[target[-1]] = copy.deepcopy(draw(st.sampled_from(WRONG_VALUES)))
    else:
        holder = parent[target[-1]] if target else data
        if not isinstance(holder, dict):
            holder = parent if isinstance(parent, dict) else data
        if mistake == "drop key" and holder:
            del holder[draw(st.sampled_from(sorted(holder)))]
        else:
            holder[draw(st.sampled_from(WRONG_KEYS))] = copy.deepcopy(draw(st.sampled_from(WRONG_VALUES)))
    return data


def _rules(data: dict[str, Any]) -> Iterator[Any]:
    policies = data.get("policies")
    for policy in policies.values() if isinstance(policies, dict) else ():
        rules = policy.get("rules") if isinstance(policy, dict) else None
        yield from rules if isinstance(rules, list) else ()
    approvals = data.get("approvalRules")
    yield from approvals if isinstance(approvals, list) else ()


def _stricter_than_model(data: dict[str, Any]) -> bool:
    """Cases the schema rejects on purpose although the model accepts them (the loader rejects them)."""
    for rule in _rules(data):
        if isinstance(rule, str) and not PRESET_STRING.is_valid(rule):
            return True
        if isinstance(rule, dict) and rule.get("action") == "nudge" and rule.get("message") is None:
            return True
    return False


def _model_errors(data: dict[str, Any]) -> list[Any] | None:
    """pydantic's errors for the document, or None when the model accepts it."""
    try:
        schema.Config.model_validate(data)
    except ValidationError as error:
        return list(error.errors(include_url=False))
    return None


def _model_accepts(data: dict[str, Any]) -> bool:
    return _model_errors(data) is None


def _unstated(error: Any) -> bool:
    """Whether a model error comes from a rule the schema does not state (see above)."""
    if error["type"] == "int_type":
        value = error["input"]
        return isinstance(value, float) and math.isfinite(value) and value.is_integer()
    if error["type"] != "value_error":
        return False
    # Model and field validators, except Rule.message's (the schema states it as a pattern) and
    # ProtectionBySense's on an empty object (minProperties states that much).
    return error["loc"][-1:] != ("message",) and error["input"] != {}


def _assert_agreement(data: dict[str, Any]) -> None:
    errors = _errors(data)
    model_errors = _model_errors(data)
    if model_errors is None:
        if _stricter_than_model(data):
            assert errors, f"the schema should reject what the loader rejects after the model: {data}"
            assert check_local(data, {}, PRESETS), f"the schema rejects what the loader accepts: {errors}"
        else:
            assert errors == [], f"the model accepts {data}, the schema does not: {errors}"
    elif not all(_unstated(error) for error in model_errors):
        assert errors, f"the model rejects {data} ({model_errors}), the schema does not"


@given(documents())
@settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_schema_agrees_with_the_loader(data: dict[str, Any]) -> None:
    _assert_agreement(data)


# Every key and every form of the format at once, for the exhaustive test below.
FULL: dict[str, Any] = {
    "$schema": "./policy.schema.json",
    "policies": {
        "main": {
            "defaultAction": "ask",
            "rules": [
                {
                    "action": "allow",
                    "tool": "bash",
                    "pattern": "make *",
                    "allowUnanalyzed": True,
                    "readOnly": False,
                },
                {"action": "nudge", "tool": "grep", "message": "Prefer the index."},
                "$safe-bash",
            ],
        },
    },
    "locations": {"$cwd": "main"},
    "defaultPolicy": "main",
    "approvalRules": [
        {"action": "allow", "tool": "bash", "command": "make test", "policy": "main"},
        {"action": "allow", "tool": "write", "pattern": None, "path": "~/x/*", "message": "ok"},
    ],
    "agentTimeout": {"maxDenies": 3, "windowSeconds": 60},
    "nudgeTimeout": {"maxNudges": 2, "windowSeconds": 30.5},
    "pathProtection": {
        "~/.ssh/": "deny",
        ".env": {"read": "ask", "write": "deny"},
        "*.pem": {"write": "deny"},
    },
    "onError": "deny",
    "log": True,
    "selfProtection": True,
    "interpreterAnalysis": {
        "enabled": True,
        "unknownAction": "deny",
        "maxSourceBytes": 1000,
        "maxDepth": 0,
        "maxNodes": 5,
    },
    "cycleKey": "ctrl+alt+p",
    "mode": "enforce",
    "tests": [
        {"command": "ls", "expect": "allow"},
        {"tool": "read", "input": {"path": "a"}, "cwd": "/w", "expect": "ask", "reason": "x"},
    ],
}


def _near(value: Any) -> list[Any]:
    """Values close to ``value`` that a person might write instead: the edges of its constraints."""
    if isinstance(value, bool):
        return [not value, "true", 1]
    if isinstance(value, int | float):
        return [0, -value, value + 86400, value + 0.5, float(value)]
    if isinstance(value, str):
        return ["", "  ", value[:-1], value.upper(), value.lstrip("$")]
    if isinstance(value, dict):
        return [{}]
    if isinstance(value, list):
        return [[]]
    return []


def _single_mistakes(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The document with one mistake: each place replaced by each wrong or near value, each key
    dropped, and a wrong key added to each object."""
    for place in [(), *_places(document)]:
        parent: Any = document
        for part in place[:-1]:
            parent = parent[part]
        current = parent[place[-1]] if place else document
        if place:
            for value in [*WRONG_VALUES, *_near(current)]:
                changed = copy.deepcopy(document)
                holder = changed
                for part in place[:-1]:
                    holder = holder[part]
                holder[place[-1]] = copy.deepcopy(value)
                yield changed
        if isinstance(current, dict):
            for key in [*current, *WRONG_KEYS]:
                changed = copy.deepcopy(document)
                holder = changed
                for part in place:
                    holder = holder[part]
                if key in holder:
                    del holder[key]
                else:
                    holder[key] = "x"
                yield changed


def test_full_document_is_valid() -> None:
    assert _model_accepts(FULL) and _errors(FULL) == [] and not check_local(FULL, {}, PRESETS)


def test_schema_agrees_with_the_loader_on_every_single_mistake() -> None:
    # Exhaustive where the property above samples: every constraint of the schema is exercised at
    # its edge, so that dropping or misstating one fails here.
    count = 0
    for changed in _single_mistakes(FULL):
        _assert_agreement(changed)
        count += 1
    assert count > 1000


def test_generated_documents_cover_both_outcomes() -> None:
    # The property above means little if nearly every generated document is valid, or invalid.
    outcomes: set[bool] = set()

    @given(documents())
    @settings(max_examples=300, deadline=None, database=None)
    def collect(data: dict[str, Any]) -> None:
        outcomes.add(_model_accepts(data))

    collect()
    assert outcomes == {True, False}


def test_python_field_name_is_not_a_key() -> None:
    # Deliberately stricter than the model (see above): "schema_" is how pydantic names "$schema".
    assert _model_accepts({"schema_": "x"})
    assert [error.split(": ")[:2] for error in _errors({"schema_": "x"})] == [
        ["schema_", "additionalProperties"]
    ]


def test_the_presets_are_validated_again_when_one_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped presets are validated once per process (the daemon compiles after every policy
    edit), and again as soon as the text of one of them changes."""
    from policy_engine.config import compile as compiling

    preset = tmp_path / "mine.jsonc"
    monkeypatch.setattr(compiling, "preset_files", lambda: [("$mine", str(preset))])
    preset.write_text('{ "description": "d", "patterns": ["x *"] }')
    first = load_presets()
    assert first["$mine"].patterns == ["x *"] and load_presets()["$mine"] is first["$mine"]
    preset.write_text('{ "description": "d", "patterns": ["y *"] }')
    assert load_presets()["$mine"].patterns == ["y *"]
    preset.write_text('{ "description": "d", "patterns": [] }')
    with pytest.raises(ValidationError):
        load_presets()
