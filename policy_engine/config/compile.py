"""Compilation: policy files -> validated layers -> the immutable :class:`PolicySet` the engine runs.

This is the only place that imports json5, pydantic and pathspec; it runs when the cache misses.
It decides the layers (DESIGN.md): the managed file and an untrusted project file only tighten,
while the base layer (explicit files, else the user file merged with a trusted project file, else
the embedded default) decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, Problem
from ..model import Action, Origin
from ..policy import (
    READ_SENSES,
    WRITE_SENSES,
    Breaker,
    CompiledPolicy,
    CompiledRule,
    InterpreterSettings,
    Layer,
    LocationEntry,
    PolicySet,
    Protection,
)
from ..rules import expand_braces, winning_order
from ..tools import BASH, canonical_tool
from . import schema
from .discover import EXPLICIT, MANAGED, PROJECT, USER, Source
from .jsonc import Document, Path, key_path, parse
from .merge import Provenance, merge, provenance_of
from .presets import DEFAULT_POLICY, preset_files
from .validate import check_local, check_references, validate_model

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .load import SourceText


def load_presets() -> dict[str, schema.PatternPreset]:
    """The shipped ``$name`` presets, validated."""
    presets = {}
    for name, path in preset_files():
        with open(path, encoding="utf-8") as handle:
            document = parse(handle.read(), path)
        presets[name] = schema.PatternPreset.model_validate(document.data)
    return presets


def compile_policy_set(inputs: Sequence[SourceText], project_root: str | None) -> PolicySet:
    """Parse, validate and compile ``inputs`` into layers; ConfigError lists every problem found."""
    presets = load_presets()
    problems: list[Problem] = []
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

    def pick(*roles: str, trusted: bool | None = None) -> list[tuple[SourceText, Document]]:
        return [
            (item, documents[i])
            for i, item in enumerate(inputs)
            if item.source.role in roles and (trusted is None or item.trusted == trusted)
        ]

    plans: list[tuple[str, bool, list[tuple[SourceText, Document]]]] = []
    for item, document in pick(MANAGED):
        plans.append(("managed", True, [(item, document)]))
    explicit = pick(EXPLICIT)
    base = explicit or pick(USER, PROJECT, trusted=True)
    if base:
        name = "config" if explicit else "+".join(item.source.role for item, _ in base)
        plans.append((name, False, base))
    else:
        from .load import SourceText

        with open(DEFAULT_POLICY, encoding="utf-8") as handle:
            text = handle.read()
        default = SourceText(Source("default", DEFAULT_POLICY), text)
        plans.append(("embedded default", False, [(default, parse(text, DEFAULT_POLICY))]))
    untrusted = pick(PROJECT, trusted=False)
    if untrusted:
        plans.append(("project (untrusted)", True, pick(USER) + untrusted))

    layers = []
    for name, restrict_only, members in plans:
        data, where = merge([document for _, document in members])
        config, found = validate_model(data, where)
        problems += found + check_references(data, where)
        if config is not None and not problems:
            layers.append(_compile_layer(name, restrict_only, members, config, where, presets, project_root))
    if problems:
        raise ConfigError(_unique(problems))
    return PolicySet(tuple(layers), project_root)


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: dict[Problem, None] = {}
    for problem in problems:
        seen.setdefault(problem, None)
    return sorted(seen, key=lambda p: (p.file or "", p.line or 0, p.column or 0))


def _compile_layer(
    name: str,
    restrict_only: bool,
    members: list[tuple[SourceText, Document]],
    config: schema.Config,
    where: Provenance,
    presets: dict[str, schema.PatternPreset],
    project_root: str | None,
) -> Layer:
    project_files = {item.source.path for item, _ in members if item.source.role == PROJECT}
    user_files = {item.source.path for item, _ in members if item.source.role in (USER, EXPLICIT)}
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
                    'set "selfProtection": false in your user policy file if you really mean it',
                )
            ]
        )
    compiler = _LayerCompiler(where, presets)
    interpreter = config.interpreterAnalysis
    return Layer(
        name=name,
        restrict_only=restrict_only,
        files=tuple(document.file for _, document in members),
        policies={n: compiler.policy(n, p) for n, p in config.policies.items()},
        locations=tuple(
            LocationEntry(
                key,
                policy,
                compiler.origin(("locations", key)),
                project_root if where[("locations", key)].file in project_files else None,
            )
            for key, policy in config.locations.items()
        ),
        default_policy=config.defaultPolicy,
        default_policy_origin=compiler.origin(("defaultPolicy",)) if config.defaultPolicy else None,
        approval_rules=tuple(
            # allowUnanalyzed is the user's to give: an approval from a project or managed file
            # never waives what the analysis could not prove.
            rule if rule.origin.file in user_files else rule._replace(allow_unanalyzed=False)
            for index, approval in enumerate(config.approvalRules)
            for rule in compiler.approval(approval, ("approvalRules", index))
        ),
        protection=tuple(
            entry
            for pattern, value in (config.pathProtection or {}).items()
            for entry in compiler.protection(pattern, value)
        ),
        interpreter=(
            InterpreterSettings(enabled=False)
            if interpreter is None
            else InterpreterSettings(
                interpreter.enabled,
                Action.parse(interpreter.unknownAction),
                interpreter.maxSourceBytes,
                interpreter.maxDepth,
                interpreter.maxNodes,
            )
        ),
        agent_timeout=compiler.breaker("agentTimeout", config.agentTimeout),
        nudge_timeout=compiler.breaker("nudgeTimeout", config.nudgeTimeout),
        cycle_key=config.cycleKey,
        # A mode is the user's or the administrator's: a restricting project layer cannot set it.
        mode=config.mode if not restrict_only or name == "managed" else None,
        self_protection=config.selfProtection,
        log=config.log if not restrict_only or name == "managed" else None,
        on_error=config.onError if not restrict_only or name == "managed" else None,
    )


class _LayerCompiler:
    """Turns validated models into compiled values, giving each one its origin."""

    def __init__(self, where: Provenance, presets: dict[str, schema.PatternPreset]) -> None:
        self.where = where
        self.presets = presets

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
                allow_unanalyzed=rule.allowUnanalyzed,
                read_only=rule.readOnly or bool(preset and preset.readOnly),
                preset=rule.pattern if preset else None,
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
        if isinstance(value, str):
            sides = [(value, Protection._field_defaults["senses"])]
        else:
            sides = [(value.read, READ_SENSES), (value.write, WRITE_SENSES)]
        return [
            Protection(pattern, Action.parse(action), anchor, regex, origin, senses, fixed, exact)
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
