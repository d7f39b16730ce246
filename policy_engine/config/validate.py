"""Validation: pydantic for shapes and types, then the checks a schema cannot express.

Every problem is turned into a :class:`Problem` that names the file, line, column and key path of
the offending value, says what is wrong in the file's own terms, and suggests a fix ("did you
mean ...?" for near-miss names). Nothing invalid is skipped: one problem anywhere fails the load.
"""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, ValidationError

from ..agents.toolnames import BASH, canonical_tool
from ..errors import Problem
from ..globs import expand_braces, glob_matches
from ..model import ACTION_NAMES
from . import schema
from .jsonc import Path, json_type, key_path
from .merge import Provenance
from .presets import DEFAULT_POLICY


def did_you_mean(name: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """A hint naming the closest choice to a misspelt ``name``, if any is close."""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f'did you mean "{close[0]}"?' if close else None


def problem_at(
    where: Provenance, path: Path, message: str, hint: str | None = None, *, value: bool = False
) -> Problem:
    """A problem at ``path`` (its value's position when ``value``, else its key's); ancestors stand in
    for paths that do not exist, such as a missing key."""
    found = path
    while found and found not in where:
        found = found[:-1]
    written = where.get(found)
    if written is None:
        return Problem(None, None, None, key_path(path), message, hint)
    place = written.place
    if value and found == path:
        return Problem(written.file, place.value_line, place.value_column, key_path(path), message, hint)
    return Problem(written.file, place.key_line, place.key_column, key_path(path), message, hint)


# ---------------------------------------------------------------------------------------------
# pydantic


def validate_model(
    data: dict[str, Any], where: Provenance, *, partial: bool = False
) -> tuple[schema.Config | None, list[Problem]]:
    """Validate a configuration. ``partial`` (one file of several) ignores missing keys, which a
    later file may supply."""
    try:
        return schema.Config.model_validate(data), []
    except ValidationError as error:
        problems = [
            _translate(item, data, where)
            for item in error.errors(include_url=False)
            if not (partial and item["type"] == "missing")
        ]
        return None, problems


def validate_store(data: Any, where: Provenance) -> tuple[schema.ApprovalStore | None, list[Problem]]:
    """Validate the approvals store (``approvals.json``)."""
    try:
        return schema.ApprovalStore.model_validate(data), []
    except ValidationError as error:
        return None, [
            _translate(item, data, where, _STORE_SHAPES) for item in error.errors(include_url=False)
        ]


_TYPE_NAMES = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "dict_type": "an object",
    "model_type": "an object",
    "list_type": "an array",
}

_KEY_HINTS = {
    ("Rule", "policy"): "policy limits an approval; it belongs to approvalRules entries only",
    ("Config", "rules"): "rules belong inside a policy: policies.<name>.rules",
    ("Config", "defaultAction"): "defaultAction belongs inside a policy: policies.<name>.defaultAction",
    ("Config", "pattern"): "pattern belongs to a rule inside a policy",
}


# The model that validates the object at a path of a policy file, by the path's shape.
_SHAPES: dict[tuple[Any, ...], type[BaseModel]] = {
    (): schema.Config,
    ("policies", str): schema.Policy,
    ("policies", str, "rules", int): schema.Rule,
    ("approvalRules", int): schema.ApprovalRule,
    ("pathProtection", str): schema.ProtectionBySense,
    ("tests", int): schema.PolicyTest,
    ("interpreterAnalysis",): schema.InterpreterAnalysis,
    ("agentTimeout",): schema.AgentTimeout,
    ("nudgeTimeout",): schema.NudgeTimeout,
}
_STORE_SHAPES: dict[tuple[Any, ...], type[BaseModel]] = {
    (): schema.ApprovalStore,
    ("approvals", int): schema.StoredApproval,
}


def _model_at(path: Path, shapes: dict[tuple[Any, ...], type[BaseModel]]) -> type[BaseModel] | None:
    """The model that validates the object at ``path``, judged by the path's shape."""
    for shape, model in shapes.items():
        if len(shape) == len(path) and all(
            part == expected if not isinstance(expected, type) else isinstance(part, expected)
            for part, expected in zip(path, shape, strict=True)
        ):
            return model
    return None


def _field_names(model: type[BaseModel]) -> list[str]:
    return [field.alias or name for name, field in model.model_fields.items()]


def _data_path(data: Any, loc: tuple[Any, ...]) -> tuple[Path, Any, bool]:
    """Follow a pydantic ``loc`` through the data: (path, value there, whether the value exists).

    Union tags and other parts of ``loc`` that are not keys or indexes of the data are skipped.
    """
    path: list[str | int] = []
    node = data
    for index, part in enumerate(loc):
        in_dict = isinstance(node, dict) and part in node
        if in_dict or (isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)):
            path.append(part)
            node = node[part]
        elif (
            index == len(loc) - 1
            and isinstance(node, dict)
            and isinstance(part, str)
            and part not in schema.UNION_TAGS
        ):
            path.append(part)
            return tuple(path), None, False
    return tuple(path), node, True


def _translate(
    error: Any,
    data: dict[str, Any],
    where: Provenance,
    shapes: dict[tuple[Any, ...], type[BaseModel]] = _SHAPES,
) -> Problem:
    path, value, exists = _data_path(data, error["loc"])
    kind = error["type"]
    parent = path[:-1]
    name = path[-1] if path else ""
    if kind == "extra_forbidden":
        model = _model_at(parent, shapes)
        fields = _field_names(model) if model else []
        hint = _KEY_HINTS.get((model.__name__ if model else "", str(name))) or did_you_mean(str(name), fields)
        if hint is None and fields:
            hint = "known keys here: " + ", ".join(fields)
        return problem_at(where, path, f'unknown key "{name}"', hint)
    if kind == "missing":
        return problem_at(where, parent, f'missing required key "{name}"', None)
    if kind == "literal_error":
        return _literal_problem(where, path, value)
    if kind in ("model_type", "dict_type") and parent[-1:] == ("rules",):
        return problem_at(
            where, path, f'expected a rule object or a "$preset" string, got {json_type(value)}', value=True
        )
    if kind in _TYPE_NAMES:
        return problem_at(where, path, f"expected {_TYPE_NAMES[kind]}, got {json_type(value)}", value=True)
    context = error.get("ctx") or {}
    if kind == "greater_than":
        return problem_at(where, path, f"must be greater than {context.get('gt')}, got {value!r}", value=True)
    if kind == "greater_than_equal":
        return problem_at(where, path, f"must be at least {context.get('ge')}, got {value!r}", value=True)
    if kind == "string_pattern_mismatch" and path[-2:-1] == ("lintIgnore",):
        return problem_at(where, path, f"{value!r} is not a lint id such as PE101", value=True)
    if kind == "less_than_equal":
        limit = context.get("le")
        shown = f"{limit:g}" if isinstance(limit, float) else limit
        return problem_at(where, path, f"must be at most {shown}, got {value!r}", value=True)
    if kind in ("too_short", "string_too_short"):
        return problem_at(where, path, "must not be empty", value=True)
    message = error["msg"].removeprefix("Value error, ")
    return problem_at(where, path, message, value=exists)


def _literal_problem(where: Provenance, path: Path, value: Any) -> Problem:
    field = path[-1] if path else ""
    if path == ("extends",):
        shown = f'"{value}"' if isinstance(value, str) else json_type(value)
        return problem_at(
            where,
            path,
            f'extends must be "default" or null, not {shown}',
            'leave it out (or write "default") to build on the embedded default; null drops it',
            value=True,
        )
    if field == "sandbox":
        names = tuple(schema.SANDBOX_NAMES)
        hint = did_you_mean(str(value), names) or 'use true, "offline", "network" or an object'
        return problem_at(where, path, f'unknown sandbox "{value}"', hint, value=True)
    if not isinstance(value, str):
        return problem_at(where, path, f"expected an action name, got {json_type(value)}", value=True)
    if field == "defaultAction" and value == "nudge":
        return problem_at(
            where,
            path,
            "nudge cannot be a defaultAction",
            "a nudge needs a message, which only rules carry; add a rule "
            '{"action": "nudge", "tool": "*", "message": "..."} or use "log"',
            value=True,
        )
    if field == "unknownAction" and value in ACTION_NAMES:
        return problem_at(
            where,
            path,
            f'unknownAction must be "ask" or "deny", not "{value}"',
            "what cannot be proven safe is never let through silently",
            value=True,
        )
    allowed = ("ask", "deny") if field == "unknownAction" else ACTION_NAMES
    hint = did_you_mean(value, allowed) or "expected one of: " + ", ".join(allowed)
    return problem_at(where, path, f'unknown action "{value}"', hint, value=True)


# ---------------------------------------------------------------------------------------------
# checks a schema cannot express (run on raw data, so that they also see every file on its own)


def check_local(data: dict[str, Any], where: Provenance, presets: dict[str, Any]) -> list[Problem]:
    """Checks that need no other file: rules, location keys and protection patterns."""
    problems: list[Problem] = []
    policies = data.get("policies")
    if isinstance(policies, dict):
        for name, policy in policies.items():
            if not name:
                problems.append(problem_at(where, ("policies", name), "a policy name must not be empty"))
            rules = policy.get("rules") if isinstance(policy, dict) else None
            if isinstance(rules, list):
                for index, rule in enumerate(rules):
                    problems += check_rule(rule, ("policies", name, "rules", index), where, presets)
    approvals = data.get("approvalRules")
    if isinstance(approvals, list):
        for index, rule in enumerate(approvals):
            if isinstance(rule, str):
                continue  # the schema reports it
            problems += check_rule(rule, ("approvalRules", index), where, presets)
    locations = data.get("locations")
    if isinstance(locations, dict):
        for key in locations:
            message = location_key_problem(key)
            if message:
                problems.append(problem_at(where, ("locations", key), *message))
    protection = data.get("pathProtection")
    if isinstance(protection, dict):
        from .compile import compile_protection_pattern

        for pattern in protection:
            try:
                compile_protection_pattern(pattern)
            except ValueError as error:
                problems.append(problem_at(where, ("pathProtection", pattern), str(error)))
    return problems


def location_key_problem(key: str) -> tuple[str, str] | None:
    """What is wrong with a ``locations`` key, as (message, hint), or None."""
    if not key.strip():
        return "a location must not be empty", 'use "$cwd", "~/dir", "/abs/dir" or a relative directory'
    if key.startswith("$") and key != "$cwd" and not key.startswith("$cwd/"):
        return (
            f'unknown variable in location "{key}"',
            'only "$cwd" (the agent\'s working directory) is expanded',
        )
    if key.startswith("~") and key != "~" and not key.startswith("~/"):
        return f'"{key}": ~user paths are not expanded', "write the home directory's absolute path"
    return None


def check_rule(rule: Any, path: Path, where: Provenance, presets: dict[str, Any]) -> list[Problem]:
    if isinstance(rule, str):
        return _check_preset_name(rule, path, where, presets, value=True)
    if not isinstance(rule, dict):
        return []
    problems: list[Problem] = []
    action, tool, pattern = rule.get("action"), rule.get("tool"), rule.get("pattern")
    if action == "nudge" and not rule.get("message"):
        problems.append(
            problem_at(
                where,
                path,
                "a nudge rule needs a message",
                'add "message": "<what the model should do instead>", or use "log" to only record the call',
            )
        )
    tools: tuple[str, ...] = ()
    if isinstance(tool, str) and tool:
        try:
            tools = tuple(canonical_tool(t) for t in expand_braces(tool))
        except ValueError as error:
            problems.append(problem_at(where, (*path, "tool"), str(error), value=True))
    if isinstance(pattern, str):
        if not pattern:
            problems.append(
                problem_at(
                    where,
                    (*path, "pattern"),
                    "an empty pattern matches only an empty command",
                    'use "*" for every command, or leave pattern out',
                    value=True,
                )
            )
        elif schema.PRESET_REFERENCE.fullmatch(pattern):
            problems += _check_preset_name(pattern, (*path, "pattern"), where, presets, value=True)
        if tools and not any(glob_matches(t, BASH) for t in tools):
            problems.append(
                problem_at(
                    where,
                    (*path, "pattern"),
                    f'a pattern only matches bash commands, but tool "{tool}" is never bash',
                    'use "tool": "bash", or leave pattern out to match every call of the tool',
                    value=True,
                )
            )
    sandbox = rule.get("sandbox")
    if sandbox not in (None, False):
        problems += _check_sandbox(rule, sandbox, tools, path, where)
    if rule.get("allowUnanalyzed") is True and action not in (None, "allow"):
        problems.append(
            problem_at(
                where,
                (*path, "allowUnanalyzed"),
                f"allowUnanalyzed only applies to allow rules, not {action}",
                value=True,
            )
        )
    return problems


def _check_sandbox(
    rule: dict[str, Any], sandbox: Any, tools: tuple[str, ...], path: Path, where: Provenance
) -> list[Problem]:
    """A sandbox confines a bash command that an allow rule lets through; nothing else runs in one."""
    problems = []
    action = rule.get("action")
    if action not in (None, "allow"):
        problems.append(
            problem_at(
                where,
                (*path, "sandbox"),
                f"sandbox only applies to allow rules, not {action}",
                "a sandbox is how an allowed command runs; leave it out of other rules",
                value=True,
            )
        )
    if any(tool != BASH for tool in tools):
        problems.append(
            problem_at(
                where,
                (*path, "sandbox"),
                f'only bash commands run in a sandbox, but tool "{rule.get("tool")}" is not bash',
                'use "tool": "bash"',
                value=True,
            )
        )
    if isinstance(sandbox, dict):
        for index, directory in enumerate(sandbox.get("write") or []):
            if isinstance(directory, str) and directory and not directory.startswith(("/", "~/")):
                problems.append(
                    problem_at(
                        where,
                        (*path, "sandbox", "write", index),
                        f'"{directory}" is not an absolute path',
                        "write directories are absolute or start with ~/",
                        value=True,
                    )
                )
    return problems


def _check_preset_name(
    name: str, path: Path, where: Provenance, presets: dict[str, Any], *, value: bool
) -> list[Problem]:
    if name in presets:
        return []
    if not schema.PRESET_REFERENCE.fullmatch(name):
        return [
            problem_at(
                where,
                path,
                f'"{name}" is not a rule',
                'a rule is an object; a string entry must name a preset such as "$safe-bash"',
                value=value,
            )
        ]
    hint = did_you_mean(name, sorted(presets)) or "known presets: " + ", ".join(sorted(presets))
    return [problem_at(where, path, f'unknown preset "{name}"', hint, value=value)]


def check_references(data: dict[str, Any], where: Provenance) -> list[Problem]:
    """Names that must resolve within one layer: every location's policy and defaultPolicy."""
    policies = data.get("policies")
    names = sorted(policies) if isinstance(policies, dict) else []
    # The embedded default's policies (config/layers.py) are there to use, but are not the files'.
    inherited = [n for n in names if getattr(where.get(("policies", n)), "file", None) == DEFAULT_POLICY]
    own = [n for n in names if n not in inherited]
    defined = "defined policies: " + (", ".join(own) if own else "none")
    if inherited:
        defined += "; the embedded default's: " + ", ".join(inherited)
    references: list[tuple[Path, Any]] = []
    locations = data.get("locations")
    if isinstance(locations, dict):
        references += [(("locations", key), policy) for key, policy in locations.items()]
    references.append((("defaultPolicy",), data.get("defaultPolicy")))
    problems = []
    for path, name in references:
        if isinstance(name, str) and name not in names:
            hint = did_you_mean(name, names) or defined
            problems.append(problem_at(where, path, f'unknown policy "{name}"', hint, value=True))
    return problems
