"""Compilation: policy files -> validated layers -> the immutable :class:`PolicySet` the engine runs.

This is the only place that imports json5, pydantic and pathspec; it runs when the cache misses.
Which files form which layer, and what each keeps of the embedded default, is ``layers.py``'s.
"""

from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING, Any

from ..agents.toolnames import BASH, canonical_tool
from ..errors import ConfigError, Problem
from ..globs import expand_braces
from ..model import Action, Origin
from . import schema
from .compiled import (
    READ_SENSES,
    WRITE_SENSES,
    Breaker,
    Change,
    CompiledPolicy,
    CompiledRule,
    InterpreterSettings,
    Layer,
    LocationEntry,
    PolicySet,
    Protection,
    Sandbox,
)
from .discover import APPROVALS, EXPLICIT, MANAGED, PROJECT, USER
from .jsonc import Document, Path, key_path, parse
from .layers import Member, Plan, changes, default_document, inherited, kept_protections, plan_layers
from .merge import Provenance, merge, provenance_of
from .presets import preset_files
from .ruleorder import winning_order
from .validate import check_local, check_references, check_rule, validate_model, validate_store

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .load import SourceText


def load_presets() -> dict[str, schema.PatternPreset]:
    """The shipped ``$name`` presets, validated: once per process while their texts stay the same
    (the daemon compiles again after every edit of a policy file; the presets are some 5 ms)."""
    global _presets
    texts = []
    for name, path in preset_files():
        with open(path, encoding="utf-8") as handle:
            texts.append((name, path, handle.read()))
    if _presets is None or _presets[0] != texts:
        validated = {
            name: schema.PatternPreset.model_validate(parse(text, path).data) for name, path, text in texts
        }
        _presets = (texts, validated)
    return dict(_presets[1])


_presets: tuple[list[tuple[str, str, str]], dict[str, schema.PatternPreset]] | None = None


def compile_policy_set(inputs: Sequence[SourceText], project_root: str | None) -> PolicySet:
    """Parse, validate and compile ``inputs`` into layers; ConfigError lists every problem found."""
    presets = load_presets()
    stored, problems = _stored_approvals([i for i in inputs if i.source.role == APPROVALS], presets)
    inputs = [item for item in inputs if item.source.role != APPROVALS]
    documents: dict[int, Document] = {}
    for index, item in enumerate(inputs):
        try:
            documents[index] = parse(item.text, item.source.path)
        except ConfigError as error:
            problems += error.problems
    for document in documents.values():
        where = provenance_of(document)
        problems += validate_model(document.data, where, partial=True)[1]
        problems += check_local(document.data, where, presets)
    if len(documents) < len(inputs):  # a file that does not parse cannot be merged
        raise ConfigError(_unique(problems))
    members = [Member(item, documents[index]) for index, item in enumerate(inputs)]
    plans, found = plan_layers(members)
    problems += found
    default = default_document()
    managed = [member for member in members if member.role == MANAGED]
    layers = []
    for plan in plans:
        head = [inherited(default, plan)] if plan.extends else []
        data, where = merge(head + [member.document for member in plan.members])
        config, found = validate_model(data, where)
        problems += found + check_references(data, where)
        if config is not None and not problems:
            layer = _compile_layer(plan, config, where, presets, project_root, head)
            if plan.extends:
                layer = _extend(layer, plan, managed, default, data, presets)
            elif plan.name != "managed":
                layer = layer._replace(changes=tuple(changes(plan, managed, default)) + layer.changes)
            if plan.name != "managed":  # the user's approvals: where the user file applies
                layer = layer._replace(approval_rules=layer.approval_rules + stored)
            layers.append(layer)
    if problems:
        raise ConfigError(_unique(problems))
    return PolicySet(tuple(layers), project_root)


def _stored_approvals(
    items: Sequence[SourceText], presets: dict[str, schema.PatternPreset]
) -> tuple[tuple[CompiledRule, ...], list[Problem]]:
    """The approvals of the approvals store, compiled as the user's own (their allowUnanalyzed is
    honoured), each limited to its project directory if it has one."""
    rules: list[CompiledRule] = []
    problems: list[Problem] = []
    for item in items:
        try:
            document = parse(item.text, item.source.path)
        except ConfigError as error:
            problems += error.problems
            continue
        where = provenance_of(document)
        store, found = validate_store(document.data, where)
        problems += found
        if store is None:
            continue
        found = [
            p
            for index, raw in enumerate(document.data["approvals"])
            for p in check_rule(raw, ("approvals", index), where, presets)
        ]
        problems += found
        if found:  # a rule that is not one (a tool glob with "["): reported, never compiled
            continue
        compiler = _LayerCompiler(where, presets)
        rules += [
            rule._replace(within=approval.project)
            for index, approval in enumerate(store.approvals)
            for rule in compiler.approval(approval, ("approvals", index))
        ]
    return tuple(rules), problems


def _extend(
    layer: Layer,
    plan: Plan,
    managed: list[Member],
    default: Document,
    data: dict[str, Any],
    presets: dict[str, schema.PatternPreset],
) -> Layer:
    """``layer`` with what it keeps of the embedded default: its protections, and its locations and
    defaultPolicy for the paths the layer's own do not cover (none when the layer has a
    defaultPolicy of its own)."""
    compiler = _LayerCompiler(provenance_of(default), presets)
    kept = tuple(
        entry
        for pattern, value in kept_protections(plan, managed, default)
        for entry in compiler.protection(pattern, _protection_value(value))
    )
    own_default = layer.default_policy is not None
    fallback = default.data.get("defaultPolicy")
    locations = [
        LocationEntry(key, policy, compiler.origin(("locations", key)))
        for key, policy in default.data.get("locations", {}).items()
    ]
    policies = dict(layer.policies)
    if not own_default:
        # A project file may define a policy of a name the default's locations send paths to, but
        # not thereby judge what no location covers: those paths keep the user's definition.
        keys = {
            name: _outside_project(name, policies, plan, default, presets)
            for name in {entry.policy for entry in locations} | ({fallback} if fallback else set())
        }
        locations = [entry._replace(policy=keys[entry.policy]) for entry in locations]
        fallback = keys[fallback] if fallback else None
    return layer._replace(
        policies=policies,
        extends=True,
        protection=kept + layer.protection,
        fallback=() if own_default else tuple(locations),
        fallback_policy=None if own_default else fallback,
        changes=tuple(changes(plan, managed, default)) + layer.changes,
    )


def _outside_project(
    name: str,
    policies: dict[str, CompiledPolicy],
    plan: Plan,
    default: Document,
    presets: dict[str, schema.PatternPreset],
) -> str:
    """The key of the policy ``name`` as the layer's files but its project file define it (the
    user's, else the default's): where a project file redefines it, compiled apart into
    ``policies`` under a key of its own, keeping ``name`` as its name."""
    projects = [m for m in plan.members if m.role == PROJECT and name in _policy_names(m.document)]
    if not projects:
        return name
    others = Plan(plan.name, plan.restrict_only, tuple(m for m in plan.members if m.role != PROJECT), True)
    data, where = merge([inherited(default, others)] + [m.document for m in others.members])
    key = f"{name} (outside the project file)"
    policies[key] = _LayerCompiler(where, presets).policy(
        name, schema.Policy.model_validate(data["policies"][name])
    )
    return key


def _policy_names(document: Document) -> list[str]:
    policies = document.data.get("policies") if isinstance(document.data, dict) else None
    return list(policies) if isinstance(policies, dict) else []


def _protection_value(value: Any) -> str | schema.ProtectionBySense:
    return value if isinstance(value, str) else schema.ProtectionBySense.model_validate(value)


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: dict[Problem, None] = {}
    for problem in problems:
        seen.setdefault(problem, None)
    return sorted(seen, key=lambda p: (p.file or "", p.line or 0, p.column or 0))


# What a layer takes from its user-level files alone (user, --config, and the embedded default it
# extends): a project file's value of these applies to the whole machine, so it cannot be one of
# the project's to set. Its interpreterAnalysis can only tighten the user's.
SETTINGS = (
    "defaultPolicy",
    "pathProtection",
    "interpreterAnalysis",
    "agentTimeout",
    "nudgeTimeout",
    "mode",
    "log",
    "onError",
    "cycleKey",
    "selfProtection",
)


def _compile_layer(
    plan: Plan,
    config: schema.Config,
    where: Provenance,
    presets: dict[str, schema.PatternPreset],
    project_root: str | None,
    head: list[Document],
) -> Layer:
    """The layer ``plan`` compiles to. ``config`` is the merge of all its files (and ``head``,
    what it extends); a project file among them governs only its project directory (DESIGN.md): its
    locations there, its defaultPolicy for what they leave of it, its approvals for calls there, its
    protections beside the user's; the settings that reach beyond (SETTINGS) stay the user's."""
    name, restrict_only = plan.name, plan.restrict_only
    projects = [m for m in plan.members if m.role == PROJECT]
    project_files = {m.item.source.path for m in projects}
    user_files = {m.item.source.path for m in plan.members if m.role in (USER, EXPLICIT)}
    _no_self_protection_off(config, where, project_files)
    settings, settings_where = _user_settings(plan, config, where, head)
    compiler = _LayerCompiler(where, presets, project_files)
    notes: list[Change] = []
    locations = []
    for key, policy in config.locations.items():
        written = where[("locations", key)]
        entry = LocationEntry(
            key,
            policy,
            compiler.origin(("locations", key)),
            project_root if written.file in project_files else None,
        )
        if entry.base is not None and not restrict_only and not _in_project(key, project_root or "/"):
            notes.append(
                Change(
                    "noted",
                    f'location "{key}" of a project file lies outside its project directory '
                    f"{project_root}: a project file governs only its own directory, so it does not apply",
                    entry.origin,
                )
            )
            continue
        locations.append(entry)
    default_policy = config.defaultPolicy
    default_origin = compiler.origin(("defaultPolicy",)) if default_policy else None
    if default_policy is not None and where[("defaultPolicy",)].file in project_files and not restrict_only:
        # A project's defaultPolicy judges what its own locations leave of its directory, no more.
        locations.append(LocationEntry(".", default_policy, default_origin, project_root))  # type: ignore[arg-type]
        default_policy = settings.defaultPolicy
    approvals = []
    for index, approval in enumerate(config.approvalRules):
        for rule in compiler.approval(approval, ("approvalRules", index)):
            if rule.origin.file in project_files:  # for calls made in the project, on its paths
                rule = rule._replace(within=project_root, confined=project_root)
            if rule.origin.file not in user_files:
                # allowUnanalyzed is the user's to give: an approval from a project or managed file
                # never waives what the analysis could not prove.
                rule = rule._replace(allow_unanalyzed=False)
            approvals.append(rule)
    settings_compiler = _LayerCompiler(settings_where, presets)
    protection = [
        entry
        for pattern, value in (settings.pathProtection or {}).items()
        for entry in settings_compiler.protection(pattern, value)
    ]
    for member in projects:  # beside the user's, never instead of them
        own = member.document.data.get("pathProtection")
        if isinstance(own, dict):
            project_compiler = _LayerCompiler(provenance_of(member.document), presets)
            protection += [
                entry
                for pattern, value in own.items()
                for entry in project_compiler.protection(pattern, _protection_value(value))
            ]
    interpreter = _interpreter(settings.interpreterAnalysis)
    for member in projects:
        own = member.document.data.get("interpreterAnalysis", _ABSENT)
        if own is not _ABSENT:
            interpreter = _tightened(interpreter, schema.Config.model_validate({"interpreterAnalysis": own}))
    notes += _project_settings_notes(projects)
    return Layer(
        name=name,
        restrict_only=restrict_only,
        files=tuple(member.document.file for member in plan.members),
        policies={n: compiler.policy(n, p) for n, p in config.policies.items()},
        locations=tuple(locations),
        default_policy=default_policy,
        approval_rules=tuple(approvals),
        protection=tuple(protection),
        interpreter=interpreter,
        agent_timeout=settings_compiler.breaker("agentTimeout", settings.agentTimeout),
        nudge_timeout=settings_compiler.breaker("nudgeTimeout", settings.nudgeTimeout),
        cycle_key=settings.cycleKey,
        # A mode is the user's or the administrator's: a restricting project layer cannot set it.
        mode=settings.mode if not restrict_only or name == "managed" else None,
        self_protection=settings.selfProtection,
        log=settings.log if not restrict_only or name == "managed" else None,
        on_error=settings.onError if not restrict_only or name == "managed" else None,
        changes=tuple(notes),
    )


_ABSENT = object()


def _no_self_protection_off(config: schema.Config, where: Provenance, project_files: set[str]) -> None:
    if config.selfProtection is False and where[("selfProtection",)].file in project_files:
        written = where[("selfProtection",)]
        raise ConfigError(
            [
                Problem(
                    written.file,
                    written.place.key_line,
                    written.place.key_column,
                    "selfProtection",
                    "a project file cannot turn self-protection off",
                    "remove the key: self-protection is its user's to set, never a project's",
                )
            ]
        )


def _user_settings(
    plan: Plan, config: schema.Config, where: Provenance, head: list[Document]
) -> tuple[schema.Config, Provenance]:
    """The SETTINGS as the layer's files but its project files give them."""
    if not any(m.role == PROJECT for m in plan.members):
        return config, where
    documents = head + [m.document for m in plan.members if m.role != PROJECT]
    data, settings_where = merge(documents)
    settings, _ = validate_model({k: v for k, v in data.items() if k in SETTINGS}, settings_where)
    return (settings or schema.Config()), settings_where


def _in_project(key: str, root: str) -> bool:
    """Whether a project file's location key names a directory inside its project: ``$cwd`` (the
    agent's working directory, inside the project it found), or a relative path that stays in."""
    from ..paths import inside, normalize

    if key == "$cwd" or key.startswith("$cwd/"):
        rest = key[len("$cwd") :].lstrip("/")
        return ".." not in rest.split("/")
    if key.startswith(("/", "~")):
        return False
    return inside(normalize(key, root, "/"), root)


def _interpreter(value: schema.InterpreterAnalysis | None) -> InterpreterSettings:
    if value is None:
        return InterpreterSettings(enabled=False)
    return InterpreterSettings(
        value.enabled,
        Action.parse(value.unknownAction),
        value.maxSourceBytes,
        value.maxDepth,
        value.maxNodes,
    )


def _tightened(settings: InterpreterSettings, config: schema.Config) -> InterpreterSettings:
    """``settings`` made no looser by a project file's interpreterAnalysis: on if either turns it
    on, the stricter unknown action, the smaller limits."""
    theirs = _interpreter(config.interpreterAnalysis)
    if not theirs.enabled:
        return settings
    if not settings.enabled:
        return theirs
    return InterpreterSettings(
        True,
        max(settings.unknown_action, theirs.unknown_action),
        min(settings.max_source_bytes, theirs.max_source_bytes),
        min(settings.max_depth, theirs.max_depth),
        min(settings.max_nodes, theirs.max_nodes),
    )


def _project_settings_notes(projects: list[Member]) -> list[Change]:
    """What a project file sets that only the user's files can (SETTINGS): said where it is."""
    notes = []
    for member in projects:
        data = member.document.data
        for key in SETTINGS:
            if key in data and key not in (
                "pathProtection",
                "interpreterAnalysis",
                "defaultPolicy",
                "selfProtection",
            ):
                place = member.document.places.get((key,))
                origin = (
                    Origin(member.document.file, place.key_line, place.key_column, key) if place else None
                )
                notes.append(
                    Change(
                        "noted",
                        f"{key} of a project file does not apply: it reaches beyond the project, so it is "
                        "the user's to set",
                        origin,
                    )
                )
    return notes


def _sandbox(value: bool | str | schema.SandboxSettings) -> Sandbox | None:
    """A rule's ``sandbox`` compiled: None for false, a named one's settings, or its own."""
    if value is False:
        return None
    settings = (
        value
        if isinstance(value, schema.SandboxSettings)
        else schema.SANDBOX_NAMES["offline" if value is True else str(value)]
    )
    return Sandbox(settings.network, tuple(settings.write))


class _LayerCompiler:
    """Turns validated models into compiled values, giving each one its origin. A rule written in
    one of ``project_files`` never waives what the analysis cannot prove (allowUnanalyzed is the
    user's to give)."""

    def __init__(
        self,
        where: Provenance,
        presets: dict[str, schema.PatternPreset],
        project_files: set[str] | None = None,
    ) -> None:
        self.where = where
        self.presets = presets
        self.project_files = project_files or set()

    def origin(self, path: Path) -> Origin:
        found = path
        while found not in self.where:
            found = found[:-1]
        written = self.where[found]
        return Origin(written.file, written.place.key_line, written.place.key_column, key_path(path))

    def policy(self, name: str, policy: schema.Policy) -> CompiledPolicy:
        path: Path = ("policies", name)
        rules = [
            rule
            for index, entry in enumerate(policy.rules)
            for rule in self._entry(entry, (*path, "rules", index))
        ]
        ordered = sorted(enumerate(rules), key=lambda pair: (*winning_order(pair[1]), pair[0]))
        return CompiledPolicy(
            name,
            Action.parse(policy.defaultAction),
            self.origin((*path, "defaultAction")),
            tuple(rule for _, rule in ordered),
        )

    def _entry(self, entry: schema.Rule | str, path: Path) -> list[CompiledRule]:
        if isinstance(entry, str):
            return self.rules(schema.Rule(action="allow", tool=BASH, pattern=entry), path)
        return self.rules(entry, path)

    def rules(self, rule: schema.Rule, path: Path) -> list[CompiledRule]:
        """The compiled rules a policy-file rule stands for: one per tool alternative and preset pattern."""
        origin = self.origin(path)
        tools = [canonical_tool(tool) for tool in expand_braces(rule.tool)]
        preset = self.presets.get(rule.pattern) if rule.pattern is not None else None
        patterns: list[str | None] = list(preset.patterns) if preset else [rule.pattern]
        return [
            CompiledRule(
                action=Action.parse(rule.action),
                tool=tool,
                pattern=pattern,
                origin=origin,
                message=rule.message,
                allow_unanalyzed=rule.allowUnanalyzed and origin.file not in self.project_files,
                read_only=rule.readOnly or bool(preset and preset.readOnly),
                preset=rule.pattern if preset else None,
                sandbox=_sandbox(rule.sandbox),
            )
            for tool in tools
            for pattern in patterns
        ]

    def approval(self, approval: schema.ApprovalRule, path: Path) -> list[CompiledRule]:
        """The compiled rules of an approval: like a rule's, plus its policy, path and command."""
        return [
            rule._replace(policy=approval.policy, path=approval.path, command=approval.command)
            for rule in self.rules(approval, path)
        ]

    def protection(self, pattern: str, value: str | schema.ProtectionBySense) -> list[Protection]:
        """One entry for an action; one per side for ``{"read": ..., "write": ...}``."""
        anchor, regex = compile_protection_pattern(pattern)
        fixed, exact = fixed_directory(pattern)
        origin = self.origin(("pathProtection", pattern))
        sides: list[tuple[str | None, tuple[str, ...]]]
        excepted = ""
        if isinstance(value, str):
            sides = [(value, Protection._field_defaults["senses"])]
        else:
            sides = [(value.read, READ_SENSES), (value.write, WRITE_SENSES)]
            if value.except_:
                excepted = "|".join(fnmatch.translate(name) for name in value.except_)
        return [
            Protection(pattern, Action.parse(action), anchor, regex, origin, senses, fixed, exact, excepted)
            for action, senses in sides
            if action is not None
        ]

    def breaker(self, key: str, value: Any) -> Breaker | None:
        if value is None:
            return None
        events = value.maxDenies if isinstance(value, schema.AgentTimeout) else value.maxNudges
        return Breaker(events, value.windowSeconds, self.origin((key,)))


_GLOB_CHARACTERS = frozenset("*?[\\")


def fixed_directory(pattern: str) -> tuple[str, bool]:
    """The leading literal path of a pattern, relative to its anchor, and whether the pattern names
    exactly that path: ``~/.ssh/*`` -> (".ssh", False), ``~/.netrc`` -> (".netrc", True),
    ``.env*`` -> ("", False) (no slash: it matches in any directory)."""
    body = pattern[1:] if pattern.startswith("~") else pattern
    if not pattern.startswith(("/", "~")) and "/" not in pattern.rstrip("/"):
        return "", False
    parts = [part for part in body.split("/") if part]
    fixed = []
    for part in parts:
        if _GLOB_CHARACTERS.intersection(part):
            break
        fixed.append(part)
    return "/".join(fixed), len(fixed) == len(parts)


def compile_protection_pattern(pattern: str) -> tuple[str, str]:
    """(anchor, regex) for a pathProtection pattern; ValueError says what is wrong with it.

    ``/x`` is absolute, ``~/x`` is under the home directory, a pattern with a slash elsewhere is
    relative to the project root, and one without (``.env*``) matches in any directory.
    """
    if not pattern.strip():
        raise ValueError("a protected path pattern must not be empty")
    if pattern.startswith("!"):
        raise ValueError(
            "negated patterns (!) are not supported: protections only add restrictions; "
            "narrow the pattern instead"
        )
    if pattern.startswith("~") and pattern != "~" and not pattern.startswith("~/"):
        raise ValueError("~user patterns are not expanded; write the home directory's absolute path")
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    if pattern in ("~", "~/"):
        anchor, body = "home", "/**"
    elif pattern.startswith("~/"):
        anchor, body = "home", pattern[1:]
    elif pattern.startswith("/"):
        anchor, body = "absolute", pattern
    elif "/" in pattern.rstrip("/"):
        anchor, body = "project", pattern
    else:
        anchor, body = "anywhere", pattern
    compiled = GitIgnoreSpecPattern(body)
    if compiled.regex is None:
        raise ValueError("the pattern matches nothing")
    return anchor, compiled.regex.pattern
