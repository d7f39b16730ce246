"""Rule matching: tool and command globs, specificity, the tie-break, and the per-tool rule index.

A glob has two wildcards: ``*`` (any characters, spaces and newlines included) and ``?`` (one
character); it must match the whole text. Specificity is the number of literal characters before
the first wildcard; a rule with a command ``pattern`` is more specific than any rule without one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .model import Atom
    from .policy import CompiledPolicy, CompiledRule

_EXACT, _PREFIX, _REGEX = 0, 1, 2


@lru_cache(maxsize=8192)
def _shape(glob: str) -> tuple[int, str]:
    """How to match ``glob`` cheaply: exactly, as ``literal*``, or with a regex; and its literal prefix."""
    cut = min((i for i in (glob.find("*"), glob.find("?")) if i >= 0), default=-1)
    if cut < 0:
        return _EXACT, glob
    prefix = glob[:cut]
    if cut == len(glob) - 1 and glob[cut] == "*":
        return _PREFIX, prefix
    return _REGEX, prefix


@lru_cache(maxsize=4096)
def glob_regex(glob: str) -> re.Pattern[str]:
    """The regex equivalent of ``glob`` (anchored by ``fullmatch``)."""
    parts = re.split(r"([*?])", glob)
    body = "".join(".*" if p == "*" else "." if p == "?" else re.escape(p) for p in parts)
    return re.compile(body, re.DOTALL)


def glob_matches(glob: str, text: str) -> bool:
    """Whether ``text`` matches ``glob`` in full."""
    kind, prefix = _shape(glob)
    if kind == _EXACT:
        return text == glob
    if not text.startswith(prefix):
        return False
    return kind == _PREFIX or glob_regex(glob).fullmatch(text) is not None


def literal_prefix(glob: str) -> str:
    """The characters of ``glob`` before its first wildcard."""
    return _shape(glob)[1]


def specificity(rule: CompiledRule) -> tuple[int, int]:
    """(has a command pattern, literal characters before the first wildcard of what it matches on)."""
    if rule.pattern is not None:
        return 1, len(literal_prefix(rule.pattern))
    return 0, len(literal_prefix(rule.tool))


def winning_order(rule: CompiledRule) -> tuple[int, int, int]:
    """Sort key that puts the rule that wins first: most specific, then least disruptive action."""
    has_pattern, literal = specificity(rule)
    return -has_pattern, -literal, rule.action.tie_rank


def rule_matches(rule: CompiledRule, atom: Atom) -> bool:
    """Whether ``rule`` applies to ``atom``, its tool glob aside (the index has checked that).

    A rule with a command pattern matches only commands; a readOnly rule only atoms that
    provably read and nothing else.
    """
    if rule.read_only and not atom.read_only:
        return False
    if rule.pattern is None:
        return True
    return atom.command is not None and glob_matches(rule.pattern, atom.command)


class RuleMatch(NamedTuple):
    """The rule that decides (None: the default action applies) and the matching rules it beat."""

    winner: CompiledRule | None
    beaten: tuple[CompiledRule, ...]


class RuleBook:
    """A sequence of rules in winning order, indexed lazily by tool name."""

    __slots__ = ("_by_tool", "rules")

    def __init__(self, rules: tuple[CompiledRule, ...]) -> None:
        self.rules = rules
        self._by_tool: dict[str, tuple[CompiledRule, ...]] = {}

    @classmethod
    def of(cls, policy: CompiledPolicy) -> RuleBook:
        return cls(policy.rules)

    def for_tool(self, tool: str) -> tuple[CompiledRule, ...]:
        """The rules whose tool glob matches ``tool``, still in winning order."""
        found = self._by_tool.get(tool)
        if found is None:
            found = tuple(r for r in self.rules if glob_matches(r.tool, tool))
            self._by_tool[tool] = found
        return found

    def match(self, atom: Atom) -> RuleMatch:
        """The winning rule for ``atom`` and the other rules that matched it."""
        matched = [r for r in self.for_tool(atom.tool) if rule_matches(r, atom)]
        if not matched:
            return RuleMatch(None, ())
        return RuleMatch(matched[0], tuple(matched[1:]))


def expand_braces(glob: str) -> tuple[str, ...]:
    """``{read,write}`` alternatives of a tool glob, expanded: ``("read", "write")``.

    One level of braces, as pi-control's tool globs allowed; ValueError for anything else.
    """
    if "[" in glob or "]" in glob:
        raise ValueError("[...] is not a wildcard in tool names; only *, ? and {a,b} are")
    start = glob.find("{")
    if start < 0:
        if "}" in glob:
            raise ValueError("unbalanced } in tool name")
        return (glob,)
    end = glob.find("}", start)
    if end < 0 or "{" in glob[start + 1 : end]:
        raise ValueError("unbalanced or nested { in tool name")
    head, tail = glob[:start], glob[end + 1 :]
    return tuple(
        variant
        for choice in glob[start + 1 : end].split(",")
        for variant in expand_braces(head + choice + tail)
    )
