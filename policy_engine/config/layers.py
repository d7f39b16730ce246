"""Which files form which layer, and what each layer keeps of the embedded default.

Layers (DESIGN.md): the managed file and an untrusted project file only tighten; the base layer
(explicit files, else the user file merged with a trusted project file, else nothing) decides.

The embedded default is the base every configuration builds on, so that no file, however small,
leaves the machine less protected than no file at all. A layer that extends it (every one but the
managed layer, unless a user, explicit or managed file says ``"extends": null``) keeps:

- the default's **protections**: a file's ``pathProtection`` adds to them; a user, explicit or
  managed file that names one of the default's patterns again replaces its action (that is how one
  protection is weakened, visibly); a project file's spelling of it applies beside the default's;
- the default's **policies**, under their names, unless a file defines a policy of the same name,
  which then replaces the default's whole (never inheriting its rules: a file's `"project":
  {"defaultAction": "deny"}` denies everything, as it says);
- the default's **judgement of what no location covers**: a path that none of the files'
  locations and no defaultPolicy of theirs covers is judged by the default's locations and
  defaultPolicy (``$cwd`` -> ``project``, else ``elsewhere``).

A project file, trusted or not, can remove none of it. Self-protection is not part of the default:
it has its own switch (``selfProtection``), which a project file cannot turn off either.
"""

from __future__ import annotations

from typing import Any

from ..errors import Problem
from ..model import Action, Origin
from ..record import Record
from .compiled import Change, Layer
from .discover import EXPLICIT, MANAGED, PROJECT, USER
from .jsonc import Document, Path, key_path, parse
from .presets import DEFAULT_POLICY

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .load import SourceText

DEFAULT = "default"  # the value of "extends" that names the embedded default


class Member(Record):
    """A file of a layer: its text as read and its parsed document."""

    item: SourceText
    document: Document

    @property
    def role(self) -> str:
        return self.item.source.role


class Plan(Record):
    """A layer to compile: its name, whether it only tightens, its files in merge order, and
    whether it extends the embedded default."""

    name: str
    restrict_only: bool
    members: tuple[Member, ...]
    extends: bool


def default_document() -> Document:
    """The embedded default, parsed."""
    with open(DEFAULT_POLICY, encoding="utf-8") as handle:
        return parse(handle.read(), DEFAULT_POLICY)


def plan_layers(members: Sequence[Member]) -> tuple[list[Plan], list[Problem]]:
    """The layers ``members`` form, in judging order, and the problems of who may drop the default."""

    def pick(*roles: str, trusted: bool | None = None) -> list[Member]:
        return [m for m in members if m.role in roles and (trusted is None or m.item.trusted == trusted)]

    explicit = pick(EXPLICIT)
    deciding = explicit or pick(USER)
    extends, problems = _extends(pick(MANAGED), deciding, pick(PROJECT))
    plans = [Plan("managed", True, (member,), False) for member in pick(MANAGED)]
    base = explicit or pick(USER, PROJECT, trusted=True)
    if base:
        name = "config" if explicit else "+".join(member.role for member in base)
    else:
        name = "embedded default" if extends else "none"
    plans.append(Plan(name, False, tuple(base), extends))
    untrusted = pick(PROJECT, trusted=False)
    if untrusted:
        plans.append(Plan("project (untrusted)", True, tuple(pick(USER) + untrusted), extends))
    return plans, problems


def _extends(
    managed: list[Member], deciding: list[Member], projects: list[Member]
) -> tuple[bool, list[Problem]]:
    """Whether the layers extend the default: the managed file's ``extends`` if it says, else the
    last user (or explicit) file's that says, else yes. A project file cannot drop it."""
    problems = [
        _problem_at(member.document, ("extends",), "a project file cannot drop the embedded default")
        for member in projects
        if isinstance(member.document.data, dict)
        and "extends" in member.document.data
        and member.document.data["extends"] is None
    ]
    for member in [*managed, *reversed(deciding)]:
        if isinstance(member.document.data, dict) and "extends" in member.document.data:
            return member.document.data["extends"] == DEFAULT, problems
    return True, problems


def _problem_at(document: Document, path: Path, message: str) -> Problem:
    place = document.places.get(path)
    return Problem(
        document.file,
        place.key_line if place else None,
        place.key_column if place else None,
        key_path(path),
        message,
        '"extends": null belongs in your user policy file (or the managed one); a project can '
        "tighten the default, never remove it",
    )


def inherited(default: Document, plan: Plan) -> Document:
    """What the files of a layer are merged over: the default's policies that none of them defines
    (its locations and defaultPolicy judge only what the files leave uncovered; its protections are
    kept apart, see :func:`kept_protections`)."""
    defined = {
        name
        for member in plan.members
        if isinstance(member.document.data, dict) and isinstance(member.document.data.get("policies"), dict)
        for name in member.document.data["policies"]
    }
    policies = {name: p for name, p in default.data["policies"].items() if name not in defined}
    return Document(default.file, {"policies": policies}, default.places)


def same_pattern(pattern: str) -> str:
    """How patterns are compared to find the default's again: ``~/.ssh`` names ``~/.ssh/``."""
    return pattern.rstrip("/") or pattern


def kept_protections(plan: Plan, managed: Sequence[Member], default: Document) -> list[tuple[str, Any]]:
    """The default's pathProtection entries a layer keeps: all but those a user, explicit or managed
    file names again (their own entry then applies instead)."""
    if not plan.extends:
        return []
    named = {
        same_pattern(pattern)
        for member in (*plan.members, *managed)
        if member.role in (USER, EXPLICIT, MANAGED)
        for pattern in _protection_of(member.document)
    }
    return [
        (pattern, value)
        for pattern, value in default.data["pathProtection"].items()
        if same_pattern(pattern) not in named
    ]


def _protection_of(document: Document) -> dict[str, Any]:
    value = document.data.get("pathProtection") if isinstance(document.data, dict) else None
    return value if isinstance(value, dict) else {}


def changes(plan: Plan, managed: Sequence[Member], default: Document) -> list[Change]:
    """What the files of ``plan`` (and the managed file) remove or override of the default."""
    found: list[Change] = []
    if not plan.extends:
        decided = next((m for m in [*managed, *reversed(plan.members)] if "extends" in m.document.data), None)
        found.append(
            Change(
                "dropped",
                'the embedded default is dropped ("extends": null): its protections, its policies and '
                "its judgement of the paths no location covers do not apply",
                _origin(decided.document, ("extends",)) if decided else None,
            )
        )
        return found + _self_protection(plan)
    defaults = {same_pattern(p): (p, v) for p, v in default.data["pathProtection"].items()}
    for member in (*managed, *plan.members):
        for pattern, value in _protection_of(member.document).items():
            if same_pattern(pattern) not in defaults:
                continue
            shown, old = defaults[same_pattern(pattern)]
            origin = _origin(member.document, ("pathProtection", pattern))
            if member.role == PROJECT:
                found.append(
                    Change(
                        "kept",
                        f'pathProtection "{pattern}": a project file cannot change the default\'s '
                        f"{_shown(old)} for it; both apply",
                        origin,
                    )
                )
            elif _differs(value, old):
                kind = "weakened" if _weaker(value, old) else "overridden"
                found.append(
                    Change(
                        kind,
                        f'pathProtection "{pattern}" replaces the default\'s "{shown}": '
                        f"{_shown(old)} becomes {_shown(value)}",
                        origin,
                    )
                )
    for member in plan.members:
        if member.role in (USER, EXPLICIT) and member.document.data.get("pathProtection", {}) is None:
            found.append(
                Change(
                    "noted",
                    'pathProtection null removes none of the default\'s protections; "extends": null '
                    "drops the whole default",
                    _origin(member.document, ("pathProtection",)),
                )
            )
    for name in default.data["policies"]:
        for member in plan.members:
            policies = member.document.data.get("policies")
            if isinstance(policies, dict) and name in policies:
                found.append(
                    Change(
                        "redefined",
                        f'policy "{name}" replaces the default\'s of that name, to which the '
                        f"default's locations ({_fallback_text(default)}) send the paths none of "
                        "yours cover",
                        _origin(member.document, ("policies", name)),
                    )
                )
    # A project file's defaultPolicy judges only its own directory (compile.py): not a replacement.
    writer = next(
        (
            m
            for m in reversed(plan.members)
            if "defaultPolicy" in m.document.data and (m.role != PROJECT or plan.restrict_only)
        ),
        None,
    )
    if writer is not None and writer.document.data["defaultPolicy"] is not None:
        found.append(
            Change(
                "replaced",
                f'defaultPolicy "{writer.document.data["defaultPolicy"]}" judges every path your locations '
                f"do not cover, so the default's ({_fallback_text(default)}) judges none",
                _origin(writer.document, ("defaultPolicy",)),
            )
        )
    return found + _self_protection(plan)


def _self_protection(plan: Plan) -> list[Change]:
    return [
        Change(
            "off",
            "selfProtection is off: the agent may change the policy files and the hook settings "
            "that judge it",
            _origin(member.document, ("selfProtection",)),
        )
        for member in plan.members
        if member.role in (USER, EXPLICIT) and member.document.data.get("selfProtection") is False
    ]


def _fallback_text(default: Document) -> str:
    locations = default.data.get("locations") or {}
    parts = [f"{key} -> {policy}" for key, policy in locations.items()]
    if default.data.get("defaultPolicy"):
        parts.append(f"else {default.data['defaultPolicy']}")
    return ", ".join(parts)


def _origin(document: Document, path: Path) -> Origin | None:
    place = document.places.get(path)
    if place is None:
        return None
    return Origin(document.file, place.key_line, place.key_column, key_path(path))


def _sides(value: Any) -> tuple[Action, Action]:
    """(read, write) actions of a pathProtection value; a side it leaves out is allow."""
    if isinstance(value, str):
        return Action.parse(value), Action.parse(value)
    if isinstance(value, dict):
        read, write = value.get("read"), value.get("write")
        return (
            Action.parse(read) if isinstance(read, str) else Action.ALLOW,
            Action.parse(write) if isinstance(write, str) else Action.ALLOW,
        )
    return Action.ALLOW, Action.ALLOW


def _differs(value: Any, old: Any) -> bool:
    try:
        return _sides(value) != _sides(old)
    except ValueError:  # an unknown action: validation reports it
        return True


def _weaker(value: Any, old: Any) -> bool:
    try:
        return any(new < was for new, was in zip(_sides(value), _sides(old), strict=True))
    except ValueError:  # an unknown action: validation reports it
        return False


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f'"{k}": "{v}"' for k, v in value.items()) + "}"
    return f'"{value}"'


def inheritance(layer: Layer) -> dict[str, Any]:
    """What a compiled layer keeps of the embedded default, for ``policy config``: the protections
    and policies it still takes from it, and how it judges what its own locations do not cover."""
    from_default = [p.pattern for p in layer.protection if p.origin.file == DEFAULT_POLICY]
    policies = [
        name
        for name, policy in layer.policies.items()
        if policy.default_origin.file == DEFAULT_POLICY
        and all(rule.origin.file == DEFAULT_POLICY for rule in policy.rules)
    ]
    if layer.default_policy is not None:
        uncovered = f'your defaultPolicy "{layer.default_policy}"'
    elif layer.extends:
        parts = [f"{entry.key} -> {entry.policy}" for entry in layer.fallback]
        if layer.fallback_policy:
            parts.append(f"else {layer.fallback_policy}")
        uncovered = "the embedded default's locations: " + ", ".join(parts)
    else:
        uncovered = "nothing: such paths are unrestricted"
    return {
        "extends": layer.extends,
        "protections": list(dict.fromkeys(from_default)),
        "inherited_policies": policies,
        "uncovered": uncovered,
        "changes": [
            {"kind": change.kind, "text": change.text, "at": str(change.origin) if change.origin else None}
            for change in layer.changes
        ],
    }
