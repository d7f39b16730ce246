"""Rule matching: tool and command globs, specificity, the tie-break, and the per-tool rule index.

A glob has two wildcards: ``*`` (any characters, spaces and newlines included) and ``?`` (one
character); it must match the whole text. Specificity is the number of literal characters before
the first wildcard; a rule with a command ``pattern`` is more specific than any rule without one.
"""

import re
from functools import lru_cache
from typing import NamedTuple

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
    if rule.command is not None:  # an exact command (approvals): every character is literal
        return 1, len(rule.command)
    if rule.pattern is not None:
        return 1, len(literal_prefix(rule.pattern))
    return 0, len(literal_prefix(rule.tool))


def winning_order(rule: CompiledRule) -> tuple[int, int, int]:
    """Sort key that puts the rule that wins first: most specific, then least disruptive action."""
    has_pattern, literal = specificity(rule)
    return -has_pattern, -literal, rule.action.tie_rank


class RuleMatch(NamedTuple):
    """The rule that decides (None: the default action applies) and the matching rules it beat."""

    winner: CompiledRule | None
    beaten: tuple[CompiledRule, ...]


class RuleBook:
    """A policy's rules in winning order, indexed lazily by tool name and then by command word.

    The first rule that matches wins; the other matching rules are what it beat. Matching only
    looks at rules that can match at all: those of the tool, and among command patterns those
    whose literal prefix agrees with the command's first word.
    """

    __slots__ = ("_explicit", "_tools", "rules")

    def __init__(self, rules: tuple[CompiledRule, ...]) -> None:
        self.rules = rules
        self._tools: dict[str, _ToolRules] = {}
        self._explicit: dict[str, tuple[CompiledRule, ...]] = {}

    def explicit(self, tool: str) -> tuple[CompiledRule, ...]:
        """The rules written for exactly ``tool`` (no glob, no pattern), in winning order."""
        found = self._explicit.get(tool)
        if found is None:
            found = self._explicit[tool] = tuple(
                r for r in self.rules if r.tool == tool and r.pattern is None
            )
        return found

    @classmethod
    def of(cls, policy: CompiledPolicy) -> "RuleBook":
        return cls(policy.rules)

    def match(self, atom: Atom) -> RuleMatch:
        """The winning rule for ``atom`` and the other rules that matched it.

        A rule with a command pattern matches only commands; a readOnly rule only atoms that
        provably read and nothing else.
        """
        tool_rules = self._tools.get(atom.tool)
        if tool_rules is None:
            globs = {glob: glob_matches(glob, atom.tool) for glob in {r.tool for r in self.rules}}
            tool_rules = self._tools[atom.tool] = _ToolRules(tuple(r for r in self.rules if globs[r.tool]))
        command = atom.command
        read_only = atom.read_only
        matched = [
            rule
            for rule in tool_rules.candidates(command)
            if (read_only or not rule.read_only)
            and (rule.pattern is None or glob_matches(rule.pattern, command))  # type: ignore[arg-type]
        ]
        if not matched:
            return RuleMatch(None, ())
        return RuleMatch(matched[0], tuple(matched[1:]))


class _ToolRules:
    """The rules for one tool, with the candidates for each command's first word memoized.

    A command pattern whose literal prefix holds a space (``git push *``) fixes the command's
    first word (``git``); one without (``ls*``, ``*.sh``) only constrains how it starts.
    """

    __slots__ = ("_by_word", "_loose", "_memo", "_plain", "plain")

    MEMO_LIMIT = 4096

    def __init__(self, rules: tuple[CompiledRule, ...]) -> None:
        self.plain = tuple(r for r in rules if r.pattern is None)
        self._plain = [(i, r) for i, r in enumerate(rules) if r.pattern is None]
        self._by_word: dict[str, list[tuple[int, CompiledRule]]] = {}
        self._loose: list[tuple[int, CompiledRule, str]] = []
        for position, rule in enumerate(rules):
            if rule.pattern is None:
                continue
            head, space, _ = literal_prefix(rule.pattern).partition(" ")
            if space:
                self._by_word.setdefault(head, []).append((position, rule))
            else:
                self._loose.append((position, rule, head))
        self._memo: dict[str, tuple[CompiledRule, ...]] = {}

    def candidates(self, command: str | None) -> tuple[CompiledRule, ...]:
        """Rules that may match ``command``, in winning order (only pattern-less ones for no command)."""
        if command is None:
            return self.plain
        word = command.split(" ", 1)[0]
        found = self._memo.get(word)
        if found is None:
            ranked = self._plain + self._by_word.get(word, [])
            ranked += [(position, rule) for position, rule, head in self._loose if word.startswith(head)]
            ranked.sort(key=lambda pair: pair[0])
            found = tuple(rule for _, rule in ranked)
            if len(self._memo) < self.MEMO_LIMIT:
                self._memo[word] = found
        return found


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
