"""``policy lint``: the mistakes a policy file can hold that the loader accepts, and its own tests.

Errors are what the loader rejects (PE001) and in-file tests that fail (PE002). Warnings point at
rules and settings that do not do what their author meant; each has an id, silenced per rule or per
file with ``"lintIgnore": ["PE101"]``. Files linted together are judged together where it matters
(a policy used only by another file's locations is used).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..agents.toolnames import ALIASES, BASH, SENSES, canonical_tool
from ..errors import ConfigError
from ..globs import expand_braces, literal_prefix
from ..model import Action, Origin
from ..record import Record

if TYPE_CHECKING:
    from ..engine import Engine

ERROR, WARNING, INFO = "error", "warning", "info"

# What each id means (SARIF's rule list, and `policy lint --help`).
RULES: dict[str, str] = {
    "PE001": "the policy file is invalid",
    "PE002": "an in-file test does not get its expected decision",
    "PE101": "the rule never decides: another rule with the same tool and pattern wins the tie",
    "PE102": "the rule never decides: a broader rule of the same specificity wins over it",
    "PE103": "the rule duplicates another",
    "PE104": "the pattern limits a rule for several tools to bash calls",
    "PE105": "no known agent has a tool of this name",
    "PE106": "the location's directory does not exist",
    "PE107": "no location and no defaultPolicy uses the policy",
    "PE108": 'no defaultPolicy and "extends": null: paths outside every location are unrestricted',
    "PE109": "the command runs code the analysis cannot see, which the wildcard lets through",
    "PE110": "the pattern can never match: redirects and ;, &&, | are not part of a command's text",
    "PE111": "allowUnanalyzed on a broad pattern waives the analysis for every such command",
    "PE112": "the protected pattern matches nothing under the project directory",
    "PE113": "the file removes or weakens a protection of the embedded default",
    "PE114": "the file overrides a part of the embedded default",
    "PE115": "the pattern names an option the command knowledge does not list",
}

# Tools the agents have that are not in agents/toolnames.py's tables, and families of tool names
# (MCP servers).
KNOWN_TOOLS = frozenset({*ALIASES, *ALIASES.values(), *SENSES, "web_fetch", "web_search", "todo", "task"})
TOOL_FAMILIES = ("mcp__", "mcp_", "github_")

# Commands whose argument is code the analysis does not follow (it runs elsewhere): an allow
# pattern that ends in a wildcard lets `ssh host 'a; rm -rf ~'` through whole.
OPAQUE_CODE = ("ssh ", "docker exec ", "podman exec ", "kubectl exec ", "lxc exec ", "vagrant ssh ")

_OPERATOR = re.compile(r"(?:^|\s)(?:;|&&|\|\||\||>>?|<|[0-9]?>&?[0-9]?|&>)(?:\s|$)")
WALK_LIMIT = 5000


class Finding(Record):
    """One thing `policy lint` reports."""

    id: str
    severity: str
    file: str
    line: int | None
    column: int | None
    message: str
    hint: str | None = None

    def __str__(self) -> str:
        place = self.file + (f":{self.line}:{self.column}" if self.line is not None else "")
        text = f"{place}: {self.id} {self.severity}: {self.message}"
        return text + (f"\n    hint: {self.hint}" if self.hint else "")


class _Rule(Record):
    """A rule as written (before presets expand), where it is, and what lint needs of it."""

    policy: str
    position: int
    line: int
    column: int
    action: Action
    tools: tuple[str, ...]
    pattern: str | None
    read_only: bool
    unanalyzed: bool
    message: str | None
    ignore: frozenset[str]


def lint(
    paths: Sequence[str], env: Mapping[str, str], advance: Callable[[int], None] | None = None
) -> list[Finding]:
    """Every finding for the policy files at ``paths``, linted together; ``advance(1)`` is called
    as each file is done (the command's progress bar)."""
    done = advance or (lambda n: None)
    from ..config.jsonc import parse
    from ..config.load import read_text

    findings: list[Finding] = []
    documents = {}
    for path in paths:
        try:
            documents[path] = parse(read_text(path), path)
            findings += _changes(path, _load(path, env))
        except ConfigError as error:
            findings += [_problem(path, problem) for problem in error.problems]
            documents.pop(path, None)
            done(1)  # nothing more to do with it
        except OSError as error:
            findings.append(Finding("PE001", ERROR, path, None, None, f"cannot be read: {error.strerror}"))
            done(1)
    used = {name for document in documents.values() for name in _used_policies(document.data)}
    # A file that extends the embedded default judges what its locations leave uncovered by it.
    has_default = any(document.data.get("defaultPolicy") for document in documents.values()) or not any(
        "extends" in document.data and document.data["extends"] is None for document in documents.values()
    )
    for path, document in documents.items():
        ignored = frozenset(document.data.get("lintIgnore") or ())
        found = _warnings(path, document, used, has_default, env) + _tests(path, env)
        findings += [f for f in found if f.id not in ignored]
        done(1)
    return sorted(findings, key=lambda f: (f.file, f.line or 0, f.column or 0, f.id))


def _problem(path: str, problem: Any) -> Finding:
    message = f"{problem.key}: {problem.message}" if problem.key else problem.message
    return Finding("PE001", ERROR, problem.file or path, problem.line, problem.column, message, problem.hint)


def _load(path: str, env: Mapping[str, str]) -> Engine:
    """Load the file alone, as `policy check --config FILE` would (ConfigError when it is invalid)."""
    from ..engine import Engine

    return Engine(path, cwd=_directory(path), env={**env, "POLICY_ENGINE_MANAGED_CONFIG": ""})


def _changes(path: str, engine: Engine) -> list[Finding]:
    """What the file removes of the embedded default (a warning), and what it overrides that may
    surprise (a note): a policy of the default's name, a setting that does less than it seems.
    A defaultPolicy of its own, or a protection made stricter, is what it says."""
    found = []
    for layer in engine.policy_set.layers:
        for change in layer.changes:
            origin = change.origin
            if (origin is not None and origin.file != path) or change.kind in ("replaced", "overridden"):
                continue
            id_, severity = ("PE113", WARNING) if change.removes else ("PE114", INFO)
            line, column = (origin.line, origin.column) if origin else (None, None)
            found.append(Finding(id_, severity, path, line, column, change.text, None))
    return found


def _directory(path: str) -> str:
    from .filetests import default_cwd

    return default_cwd(path)


def _tests(path: str, env: Mapping[str, str]) -> list[Finding]:
    from .filetests import describe, run_file

    return [
        Finding("PE002", ERROR, path, r.line, r.column, describe(r).split(": ", 1)[1].splitlines()[0])
        for r in run_file(path, env, assume_trusted=True)  # what the file says, trusted or not
        if not r.passed
    ]


def _used_policies(data: Mapping[str, Any]) -> set[str]:
    used = {value for value in (data.get("locations") or {}).values() if isinstance(value, str)}
    if data.get("extends", "default") is not None:  # the default's locations use its policies' names
        used |= set(_default_policy_names())
    if isinstance(data.get("defaultPolicy"), str):
        used.add(data["defaultPolicy"])
    used |= {a["policy"] for a in data.get("approvalRules") or () if isinstance(a, dict) and a.get("policy")}
    return used


def _default_policy_names() -> list[str]:
    from ..config.layers import default_document

    return list(default_document().data["policies"])


def _rules(document: Any) -> list[_Rule]:
    found = []
    for name, policy in (document.data.get("policies") or {}).items():
        for index, rule in enumerate(policy.get("rules") or ()):
            if not isinstance(rule, dict):
                continue  # a "$preset" string: its patterns are a vetted set
            place = document.places[("policies", name, "rules", index)]
            found.append(
                _Rule(
                    name,
                    index,
                    place.key_line,
                    place.key_column,
                    Action.parse(rule["action"]),
                    tuple(canonical_tool(tool) for tool in expand_braces(rule["tool"])),
                    rule.get("pattern"),
                    bool(rule.get("readOnly")),
                    bool(rule.get("allowUnanalyzed")),
                    rule.get("message"),
                    frozenset(rule.get("lintIgnore") or ()),
                )
            )
    return found


def _warnings(
    path: str, document: Any, used: set[str], has_default: bool, env: Mapping[str, str]
) -> list[Finding]:
    rules = _rules(document)
    findings = []
    for rule in rules:
        findings += [
            Finding(id_, WARNING, path, rule.line, rule.column, message, hint)
            for id_, message, hint in _rule_warnings(rule, rules)
            if id_ not in rule.ignore
        ]
    findings += _setting_warnings(path, document, used, has_default, env)
    return findings


def _rule_warnings(rule: _Rule, rules: Sequence[_Rule]) -> Iterable[tuple[str, str, str | None]]:
    others = [
        o for o in rules if o.policy == rule.policy and o.position != rule.position and o.tools == rule.tools
    ]
    for other in others:
        same = (other.pattern, other.read_only) == (rule.pattern, rule.read_only)
        duplicate = same and other.action is rule.action and other.position < rule.position
        if duplicate and (other.message, other.unanalyzed) == (rule.message, rule.unanalyzed):
            yield "PE103", f"duplicates the rule at line {other.line}", "remove one of them"
            return
        if same and other.action is not rule.action and other.action.tie_rank < rule.action.tie_rank:
            yield (
                "PE101",
                f"never decides: the {other.action} rule at line {other.line} has the same tool and pattern, "
                f"and the least disruptive action wins the tie",
                "remove one, or make the pattern of the one meant to win more specific",
            )
            return
        if _shadows(other, rule):
            yield (
                "PE102",
                f'never decides: the {other.action} rule at line {other.line} ("{other.pattern}") matches '
                "every command this one matches, with as many literal characters, and wins the tie",
                "make this rule's literal prefix longer than the other's",
            )
            return
    yield from _pattern_warnings(rule)


def _shadows(broad: _Rule, narrow: _Rule) -> bool:
    """Whether ``broad`` (``prefix*``) matches everything ``narrow`` does at the same specificity and
    wins the tie."""
    if broad.pattern is None or narrow.pattern is None or broad.pattern == narrow.pattern:
        return False
    prefix = literal_prefix(broad.pattern)
    if broad.pattern != prefix + "*" or literal_prefix(narrow.pattern) != prefix:
        return False
    if broad.read_only and not narrow.read_only:
        return False
    return broad.action.tie_rank < narrow.action.tie_rank


def _pattern_warnings(rule: _Rule) -> Iterable[tuple[str, str, str | None]]:
    for tool in rule.tools:
        if any(c in tool for c in "*?") and rule.pattern is not None:
            yield "PE104", f'the pattern limits this rule for "{tool}" to bash calls', 'write "tool": "bash"'
        elif (
            not any(c in tool for c in "*?")
            and tool not in KNOWN_TOOLS
            and not tool.startswith(TOOL_FAMILIES)
        ):
            close = difflib.get_close_matches(tool, sorted(KNOWN_TOOLS), n=1)
            hint = (
                f'did you mean "{close[0]}"?'
                if close
                else "check the agents' tool names (policy check --tool)"
            )
            yield "PE105", f'no known agent has a tool named "{tool}"', hint
    pattern = rule.pattern
    if pattern is None or pattern.startswith("$"):
        if rule.unanalyzed and pattern is None:
            yield (
                "PE111",
                "allowUnanalyzed on a rule without a pattern waives the analysis for every command",
                None,
            )
        return
    if _OPERATOR.search(pattern):
        yield (
            "PE110",
            f'"{pattern}" can never match: each command of a line is matched alone, without its redirects',
            "match the command itself, and govern writes with a write rule",
        )
    if rule.action is Action.ALLOW and pattern.endswith("*") and pattern.startswith(OPAQUE_CODE):
        yield (
            "PE109",
            f'"{pattern}" also allows any code given to it, which runs elsewhere and is not analysed '
            "(ssh host 'a; rm -rf ~')",
            "allow the exact commands instead, or ask",
        )
    yield from _option_warnings(rule, pattern)
    if rule.unanalyzed and len(literal_prefix(pattern).split()) <= 1:
        yield (
            "PE111",
            f'allowUnanalyzed on "{pattern}" waives the analysis for every command that starts so',
            "approve exact commands instead (policy approve)",
        )


def _option_warnings(rule: _Rule, pattern: str) -> Iterable[tuple[str, str, str | None]]:
    """Options a pattern names that the knowledge does not list: they match only as written, so a
    deny of one misses its other spellings (and a typo matches nothing)."""
    if BASH not in rule.tools or not any(word.startswith("-") for word in pattern.split()[1:]):
        return
    from ..analysis.shell.commandline import read_pattern
    from ..analysis.shell.knowledge import knowledge

    reading = read_pattern(pattern, knowledge())
    if reading is None:
        return
    command = " ".join(reading.path)
    if not reading.known:
        yield (
            "PE115",
            f'the command knowledge does not know `{reading.path[0]}`: the options in "{pattern}" '
            "match only as written, and a bundle such as -rf letter by letter",
            "spell each option as the command is given it, or match it with *",
        )
        return
    for want in reading.options:
        if not want.known:
            shown = want.glob or want.names[0]
            yield (
                "PE115",
                f"`{command}` has no option {shown} in the command knowledge: it matches only as written",
                "check the spelling; an option the knowledge lists matches in each of its spellings",
            )


def _setting_warnings(
    path: str, document: Any, used: set[str], has_default: bool, env: Mapping[str, str]
) -> list[Finding]:
    from ..config.compiled import LocationEntry
    from ..decide.locations import location_directory
    from ..paths import expand_home

    data, places, findings = document.data, document.places, []
    home = env.get("HOME") or os.path.expanduser("~")
    cwd = _directory(path)
    for name in data.get("policies") or {}:
        if name not in used:
            place = places[("policies", name)]
            findings.append(
                Finding(
                    "PE107",
                    WARNING,
                    path,
                    place.key_line,
                    place.key_column,
                    f'policy "{name}" is not used',
                    "add a location for it, or remove it",
                )
            )
    if data.get("locations") and not has_default:
        place = places[("locations",)]
        findings.append(
            Finding(
                "PE108",
                WARNING,
                path,
                place.key_line,
                place.key_column,
                RULES["PE108"],
                'add "defaultPolicy"',
            )
        )
    for key in data.get("locations") or {}:
        directory = location_directory(LocationEntry(key, "", Origin(path, 0, 0, ""), cwd), cwd, home)
        if not os.path.isdir(expand_home(directory, home)):
            place = places[("locations", key)]
            findings.append(
                Finding(
                    "PE106",
                    WARNING,
                    path,
                    place.key_line,
                    place.key_column,
                    f"{directory} does not exist",
                    None,
                )
            )
    findings += _unprotected(path, data, places, cwd)
    return findings


def _unprotected(path: str, data: Mapping[str, Any], places: Mapping[Any, Any], root: str) -> list[Finding]:
    """PE112: project-relative and floating protections that match nothing under the project."""
    from ..config.compile import compile_protection_pattern

    patterns = [p for p in data.get("pathProtection") or {} if not p.startswith(("/", "~"))]
    if not patterns:
        return []
    entries = []
    for directory, names, files in os.walk(root):
        names[:] = [n for n in names if n not in (".git", "node_modules")]
        entries += [os.path.relpath(os.path.join(directory, n), root) for n in (*names, *files)]
        if len(entries) > WALK_LIMIT:
            return []  # too large to tell
    findings = []
    for pattern in patterns:
        regex = re.compile(compile_protection_pattern(pattern)[1])
        if not any(regex.match(entry) or regex.match(entry + "/") for entry in entries):
            place = places[("pathProtection", pattern)]
            findings.append(
                Finding(
                    "PE112",
                    INFO,
                    path,
                    place.key_line,
                    place.key_column,
                    f'"{pattern}" matches nothing under {root}',
                    "check the spelling, or ignore if the files come later",
                )
            )
    return findings


def failed(findings: Sequence[Finding], strict: bool) -> bool:
    """Errors fail; with ``strict``, warnings too (info never does)."""
    return any(f.severity == ERROR or (strict and f.severity == WARNING) for f in findings)


# ---- Output formats ------------------------------------------------------------------------------


def render_text(findings: Sequence[Finding], files: int) -> str:
    counts = {s: sum(f.severity == s for f in findings) for s in (ERROR, WARNING, INFO)}
    summary = f"{files} files: {counts[ERROR]} errors, {counts[WARNING]} warnings, {counts[INFO]} notes"
    return "\n".join([*(str(f) for f in findings), summary])


def render_json(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    return [f._asdict() for f in findings]


_SARIF_LEVELS = {ERROR: "error", WARNING: "warning", INFO: "note"}


def render_sarif(findings: Sequence[Finding], base: str) -> dict[str, Any]:
    """SARIF 2.1.0, for code scanning: one run, our rules, a result per finding."""
    from ..version import __version__

    rules = [{"id": id_, "shortDescription": {"text": text}} for id_, text in sorted(RULES.items())]
    results = []
    for f in findings:
        region = {"startLine": f.line or 1, **({"startColumn": f.column} if f.column else {})}
        uri = os.path.relpath(f.file, base) if os.path.isabs(f.file) else f.file
        results.append(
            {
                "ruleId": f.id,
                "level": _SARIF_LEVELS[f.severity],
                "message": {"text": f.message + (f" ({f.hint})" if f.hint else "")},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region}}],
            }
        )
    driver = {
        "name": "policy-engine",
        "version": __version__,
        "informationUri": "https://github.com/",
        "rules": rules,
    }
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }


def render_github(findings: Sequence[Finding]) -> str:
    """GitHub Actions workflow commands: an annotation per finding."""

    def escape(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    lines = []
    for f in findings:
        kind = {ERROR: "error", WARNING: "warning", INFO: "notice"}[f.severity]
        where = f"file={escape(f.file)}" + (f",line={f.line},col={f.column or 1}" if f.line else "")
        message = f.message + (f" ({f.hint})" if f.hint else "")
        lines.append(f"::{kind} {where},title={f.id}::{escape(message)}")
    return "\n".join(lines)
