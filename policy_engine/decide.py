"""Judging atoms: pathProtection, location -> policy -> rules, doubts; and combining the verdicts.

Every access of every atom is judged under the policy of the location that holds its path (both its
literal and its symlink-resolved spelling); an atom that touches no path is judged at the working
directory. The most restrictive verdict of all wins (``deny > ask > log > nudge > allow``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .locations import location_directory, resolve_location
from .model import Action, Verdict
from .paths import spellings
from .protect import protections_hit
from .rules import RuleBook

if TYPE_CHECKING:
    from collections.abc import Callable

    from .model import Atom
    from .policy import Layer, LocationEntry


class Context(NamedTuple):
    """What a judgement depends on besides the atom: the call's cwd, the home directory, the
    project root, and how to spell a directory (literal and symlink-resolved, memoized)."""

    cwd: str
    home: str
    project_root: str
    spell: Callable[[str], tuple[str, ...]]


class LayerJudge:
    """One layer and the rule indexes of its policies, built as policies are first used."""

    __slots__ = ("_books", "_directories", "layer")

    def __init__(self, layer: Layer) -> None:
        self.layer = layer
        self._books: dict[str, RuleBook] = {}
        self._directories: dict[tuple[int, str], tuple[str, ...]] = {}

    def _book(self, name: str) -> RuleBook:
        book = self._books.get(name)
        if book is None:
            book = self._books[name] = RuleBook.of(self.layer.policies[name])
        return book

    def judge(self, atom: Atom, context: Context) -> list[Verdict]:
        """Every verdict this layer gives on ``atom``: protections, policies per target, doubts."""
        layer = self.layer
        verdicts: list[Verdict] = []
        targets: list[str] = []
        for access in atom.accesses:
            for path in spellings(access.path):
                if path not in targets:
                    targets.append(path)
                for hit in protections_hit(layer.protection, path, context.home, context.project_root):
                    verdicts.append(
                        Verdict(
                            hit.action,
                            "protection",
                            layer.name,
                            atom,
                            path,
                            origin=hit.origin,
                            detail=hit.pattern,
                        )
                    )
        if not targets:
            targets = list(context.spell(context.cwd))
        policy_verdicts = [self._policy_verdict(atom, target, context) for target in targets]
        verdicts += policy_verdicts
        if atom.doubts and not _trusted_unanalyzed(policy_verdicts):
            action = layer.interpreter.unknown_action
            verdicts += [
                Verdict(action, "doubt", layer.name, atom, targets[0], detail=doubt) for doubt in atom.doubts
            ]
        return verdicts

    def _policy_verdict(self, atom: Atom, target: str, context: Context) -> Verdict:
        layer = self.layer

        def directories(index: int, entry: LocationEntry) -> tuple[str, ...]:
            found = self._directories.get((index, context.cwd))
            if found is None:
                found = context.spell(location_directory(entry, context.cwd, context.home))
                self._directories[index, context.cwd] = found
            return found

        entry = resolve_location(layer.locations, target, directories)
        if entry is not None:
            name, where = entry.policy, entry.key
        elif layer.default_policy is not None:
            name, where = layer.default_policy, "defaultPolicy"
        else:
            return Verdict(Action.ALLOW, "unrestricted", layer.name, atom, target)
        policy = layer.policies[name]
        winner, beaten = self._book(name).match(atom)
        if winner is None:
            return Verdict(
                policy.default_action,
                "default",
                layer.name,
                atom,
                target,
                name,
                where,
                origin=policy.default_origin,
            )
        return Verdict(
            winner.action,
            "rule",
            layer.name,
            atom,
            target,
            name,
            where,
            winner,
            winner.origin,
            winner.message,
            beaten,
        )


def _trusted_unanalyzed(verdicts: list[Verdict]) -> bool:
    """An atom's doubts are waived when every policy verdict on it is an allow rule with allowUnanalyzed."""
    return bool(verdicts) and all(
        v.kind == "rule" and v.action is Action.ALLOW and v.rule is not None and v.rule.allow_unanalyzed
        for v in verdicts
    )


def combine(verdicts: list[Verdict]) -> Verdict | None:
    """The most restrictive verdict (the first of equals), or None when there is none."""
    if not verdicts:
        return None
    return max(verdicts, key=lambda v: v.action)
