"""Rule matching: tool and command globs, specificity, the tie-break, and the per-tool rule index.

A glob has two wildcards: ``*`` (any characters, spaces and newlines included) and ``?`` (one
character); it must match the whole text. Specificity is the number of literal characters before
the first wildcard; a rule with a command ``pattern`` is more specific than any rule without one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from .model import Action, Atom
from .policy import CompiledPolicy, CompiledRule
from .record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from .shell.commandline import Reader

_EXACT, _PREFIX, _REGEX, _STARS = 0, 1, 2, 3
# A regex of many `.*` backtracks for ever on a text it almost matches (`git * * * ... Z`): from this
# many stars on, a glob is matched by a walk that backtracks to its last star only (``_wildcard``).
_MANY_STARS = 4


@lru_cache(maxsize=8192)
def _shape(glob: str) -> tuple[int, str]:
    """How to match ``glob`` cheaply: exactly, as ``literal*``, with a regex, or by the wildcard walk;
    and its literal prefix."""
    cut = min((i for i in (glob.find("*"), glob.find("?")) if i >= 0), default=-1)
    if cut < 0:
        return _EXACT, glob
    prefix = glob[:cut]
    if cut == len(glob) - 1 and glob[cut] == "*":
        return _PREFIX, prefix
    return (_STARS if glob.count("*") >= _MANY_STARS else _REGEX), prefix


def _wildcard(glob: str, text: str) -> bool:
    """``glob`` matched against ``text`` in full, in time proportional to their lengths' product at
    worst: on a mismatch, only the last star seen takes one more character."""
    g = t = 0
    star, mark = -1, 0
    while t < len(text):
        if g < len(glob) and glob[g] == "*":
            star, mark = g, t
            g += 1
        elif g < len(glob) and (glob[g] == "?" or glob[g] == text[t]):
            g += 1
            t += 1
        elif star >= 0:
            g, mark = star + 1, mark + 1
            t = mark
        else:
            return False
    return all(c == "*" for c in glob[g:])


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
    if kind == _STARS:
        return _wildcard(glob, text)
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


# Where a policy's rules can match, by position in winning order: for each tool glob, the rules
# without a command pattern, the rules whose pattern fixes the command's first word (by that word),
# and the rules whose pattern only constrains how the command starts (with that start). Plain data,
# so that the compiled-policy cache stores it and a hook call decodes only the rules it looks at.
ToolIndex = tuple[tuple[int, ...], dict[str, tuple[int, ...]], tuple[tuple[int, str], ...]]
RuleIndex = dict[str, ToolIndex]


def rule_index(rules: Sequence[CompiledRule]) -> RuleIndex:
    """The index of ``rules`` (in winning order). A pattern whose literal prefix holds a space
    (``git push *``) fixes the first word (``git``); one without (``ls*``, ``*.sh``) does not."""
    index: dict[str, tuple[list[int], dict[str, list[int]], list[tuple[int, str]]]] = {}
    for position, rule in enumerate(rules):
        plain, by_word, loose = index.setdefault(rule.tool, ([], {}, []))
        if rule.pattern is None:
            plain.append(position)
            continue
        head, space, _ = literal_prefix(rule.pattern).partition(" ")
        if space:
            by_word.setdefault(head, []).append(position)
        else:
            loose.append((position, head))
    return {
        tool: (tuple(plain), {word: tuple(at) for word, at in by_word.items()}, tuple(loose))
        for tool, (plain, by_word, loose) in index.items()
    }


class RuleMatch(Record):
    """The rule that decides (None: the default action applies), the matching rules it beat, and the
    restrictive rules that may match depending on what bash computes (``possible``)."""

    winner: CompiledRule | None
    beaten: tuple[CompiledRule, ...]
    possible: tuple[CompiledRule, ...] = ()


class RuleBook:
    """A policy's rules in winning order, looked up through their index by tool and command word.

    The first rule that matches wins; the other matching rules are what it beat. Matching only
    looks at rules that can match at all: those of the tool, and among command patterns those
    whose literal prefix agrees with the command's first word.

    A restrictive rule (not allow) whose pattern does not match the command's text may still match
    its options, in any order and spelling (``shell/commandline.py``): ``git push --force*`` matches
    ``git push origin main -f``. Such a rule decides only where it is at least as strict as the rule
    (or the default action) that decides without it, so option-awareness never loosens a verdict.
    """

    __slots__ = ("_default", "_explicit", "_index", "_tools", "rules")

    def __init__(
        self, rules: Sequence[CompiledRule], index: RuleIndex | None = None, default: Action = Action.ALLOW
    ) -> None:
        self.rules = rules
        self._index = rule_index(rules) if index is None else index
        self._tools: dict[str, _ToolRules] = {}
        self._explicit: dict[str, tuple[CompiledRule, ...]] = {}
        self._default = default

    @classmethod
    def of(cls, policy: CompiledPolicy) -> RuleBook:
        # Rules read from the compiled-policy cache carry their index (config/cache.py).
        return cls(policy.rules, getattr(policy.rules, "book_index", None), policy.default_action)

    def explicit(self, tool: str) -> tuple[CompiledRule, ...]:
        """The rules written for exactly ``tool`` (no glob, no pattern), in winning order."""
        found = self._explicit.get(tool)
        if found is None:
            entry = self._index.get(tool)
            found = self._explicit[tool] = () if entry is None else tuple(self.rules[p] for p in entry[0])
        return found

    def match(
        self, atom: Atom, reader: Callable[[], Reader] | None = None, sandboxes: bool = True
    ) -> RuleMatch:
        """The winning rule for ``atom`` and the other rules that matched it.

        A rule with a command pattern matches only commands; a readOnly rule only atoms that
        provably read and nothing else; a rule that allows a command only in a sandbox, only where
        ``sandboxes`` are possible. With a ``reader`` (what gives the shell knowledge's reader,
        asked only when a restrictive rule's text does not match), restrictive rules also match by
        options (see the class).
        """
        tool_rules = self._tools.get(atom.tool)
        if tool_rules is None:
            entries = [entry for glob, entry in self._index.items() if glob_matches(glob, atom.tool)]
            tool_rules = self._tools[atom.tool] = _ToolRules(self.rules, entries)
        command = atom.command
        read_only = atom.read_only
        matched: list[CompiledRule] = []
        by_options: list[CompiledRule] = []
        possible: list[CompiledRule] = []
        for rule in tool_rules.candidates(command):
            if (rule.read_only and not read_only) or (rule.sandbox is not None and not sandboxes):
                continue
            if rule.pattern is None or glob_matches(rule.pattern, command):  # type: ignore[arg-type]
                matched.append(rule)
            elif reader is not None and rule.action is not Action.ALLOW:
                words = atom.words or tuple(command.split())  # type: ignore[union-attr]
                found = reader().matches(rule.pattern, words, glob_matches, atom.computed)
                if found is True:
                    matched.append(rule)
                    by_options.append(rule)
                elif found:
                    possible.append(rule)
        if by_options:  # what decides without them sets how strict they must be to decide
            # Stricter, not as strict: a rule of the same action would change which rule decides,
            # and the circuit breakers count by rule (a third force push must not start a new count).
            baseline = next((r.action for r in matched if r not in by_options), self._default)
            weaker = [r for r in by_options if r.action <= baseline]
            matched = [r for r in matched if r not in weaker]
            if not matched:
                return RuleMatch(None, (), tuple(possible))
            return RuleMatch(matched[0], (*matched[1:], *weaker), tuple(possible))
        if not matched:
            return RuleMatch(None, (), tuple(possible))
        return RuleMatch(matched[0], tuple(matched[1:]), tuple(possible))


class _ToolRules:
    """The rules for one tool (the index entries of every tool glob that matches it), with the
    candidates for each command's first word memoized."""

    __slots__ = ("_by_word", "_loose", "_memo", "_plain", "_rules", "plain")

    MEMO_LIMIT = 4096

    def __init__(self, rules: Sequence[CompiledRule], entries: list[ToolIndex]) -> None:
        self._rules = rules
        self._plain = sorted(p for entry in entries for p in entry[0])
        self.plain = tuple(rules[p] for p in self._plain)
        self._by_word: dict[str, list[int]] = {}
        for entry in entries:
            for word, positions in entry[1].items():
                self._by_word.setdefault(word, []).extend(positions)
        self._loose = [pair for entry in entries for pair in entry[2]]
        self._memo: dict[str, tuple[CompiledRule, ...]] = {}

    def candidates(self, command: str | None) -> tuple[CompiledRule, ...]:
        """Rules that may match ``command``, in winning order (only pattern-less ones for no command)."""
        if command is None:
            return self.plain
        word = command.split(" ", 1)[0]
        found = self._memo.get(word)
        if found is None:
            positions = self._plain + self._by_word.get(word, [])
            positions += [position for position, head in self._loose if word.startswith(head)]
            found = tuple(self._rules[p] for p in sorted(positions))
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
