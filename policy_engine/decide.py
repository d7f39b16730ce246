"""Judging atoms: pathProtection, location -> policy -> rules, doubts; and combining the verdicts.

Every access of every atom is judged under the policy of the location that holds its path (both its
literal and its symlink-resolved spelling); an atom that touches no path is judged at the working
directory. The most restrictive verdict of all wins (``deny > ask > log > nudge > allow``).
"""

from collections.abc import Callable
from typing import NamedTuple

from .locations import location_directory, resolve_location
from .model import Action, Atom, Sense, Verdict
from .paths import spellings
from .policy import CompiledRule, Layer, LocationEntry
from .protect import protections_hit
from .rules import RuleBook


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
        # Every spelling of every path, with every sense the atom touches it with (a path can be read
        # and deleted by one command: `find ~ -delete`).
        targets: dict[str, list[Sense | None]] = {}
        for access in atom.accesses:
            for path in spellings(access.path):
                senses = targets.setdefault(path, [])
                if access.sense in senses:
                    continue
                senses.append(access.sense)
                for hit in protections_hit(layer.protection, path, context.home, context.project_root):
                    protected = Verdict(hit.action, "protection", layer.name, atom, path, origin=hit.origin)
                    verdicts.append(protected._replace(detail=hit.pattern, sense=access.sense))
        if not targets:
            targets = {path: [None] for path in context.spell(context.cwd)}
        policy_verdicts = []
        for target, senses in targets.items():
            located = self._locate(target, context)
            verdict = self._policy_verdict(atom, target, located)._replace(sense=senses[-1])
            policy_verdicts.append(verdict)
            verdicts.append(verdict)
            if atom.command is None or located is None:
                continue
            for sense in senses:
                tool = _EXPLICIT.get(sense) if sense is not None else None
                found = self._explicit_verdict(atom, target, located, tool) if tool else None
                if found is not None:
                    verdicts.append(found._replace(sense=sense))
        if atom.doubts and not _trusted_unanalyzed(policy_verdicts):
            action = layer.interpreter.unknown_action
            first = next(iter(targets))
            verdicts += [
                Verdict(action, "doubt", layer.name, atom, first, detail=doubt) for doubt in atom.doubts
            ]
        return verdicts

    def _locate(self, target: str, context: Context) -> tuple[str, str] | None:
        """(policy name, location key or "defaultPolicy") for ``target``; None when nothing covers it."""

        def directories(index: int, entry: LocationEntry) -> tuple[str, ...]:
            found = self._directories.get((index, context.cwd))
            if found is None:
                found = context.spell(location_directory(entry, context.cwd, context.home))
                self._directories[index, context.cwd] = found
            return found

        entry = resolve_location(self.layer.locations, target, directories)
        if entry is not None:
            return entry.policy, entry.key
        if self.layer.default_policy is not None:
            return self.layer.default_policy, "defaultPolicy"
        return None

    def _policy_verdict(self, atom: Atom, target: str, located: tuple[str, str] | None) -> Verdict:
        layer = self.layer
        if located is None:
            return Verdict(Action.ALLOW, "unrestricted", layer.name, atom, target)
        name, where = located
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
        return self._rule_verdict(atom, target, located, winner, beaten)

    def _explicit_verdict(
        self, atom: Atom, target: str, located: tuple[str, str], tool: str
    ) -> Verdict | None:
        """A bash read or write judged by the policy's explicit ``read``/``write`` rules, if it has any
        (DESIGN.md: bash reads and writes are reads and writes)."""
        rules = self._book(located[0]).explicit(tool)
        if not rules:
            return None
        detail = f"the command's {tool} of this path is governed by the policy's {tool} rules"
        return self._rule_verdict(atom, target, located, rules[0], rules[1:], detail)

    def _rule_verdict(
        self,
        atom: Atom,
        target: str,
        located: tuple[str, str],
        rule: CompiledRule,
        beaten: tuple[CompiledRule, ...],
        detail: str | None = None,
    ) -> Verdict:
        """The verdict of ``rule`` of the located policy, having beaten ``beaten``."""
        name, where = located
        return Verdict(
            rule.action,
            "rule",
            self.layer.name,
            atom,
            target,
            name,
            where,
            rule,
            rule.origin,
            rule.message,
            beaten,
            detail,
        )


# Which explicit tool rules govern a bash access of each sense.
_EXPLICIT = {Sense.READ: "read", Sense.WRITE: "write", Sense.DELETE: "write"}


def _trusted_unanalyzed(verdicts: list[Verdict]) -> bool:
    """An atom's doubts are waived when every policy verdict on it is an allow rule with allowUnanalyzed."""
    return bool(verdicts) and all(
        v.kind == "rule" and v.action is Action.ALLOW and v.rule is not None and v.rule.allow_unanalyzed
        for v in verdicts
    )


# Among equally restrictive verdicts, the one that explains best decides: a protection or a rule
# says more than a doubt, a doubt more than a policy's default.
_EXPLAINS = {"protection": 4, "rule": 3, "doubt": 2, "default": 1, "unrestricted": 0}


def combine(verdicts: list[Verdict]) -> Verdict | None:
    """The most restrictive verdict (of equals, the best explained, then the first), or None."""
    if not verdicts:
        return None
    return max(verdicts, key=lambda v: (v.action, _EXPLAINS[v.kind]))
