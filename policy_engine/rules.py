"""Rule matching: tool and command globs, specificity, the tie-break, and the per-tool rule index.

A glob has two wildcards: ``*`` (any characters, spaces and newlines included) and ``?`` (one
character); it must match the whole text. Specificity is the number of literal characters before
the first wildcard; a rule with a command ``pattern`` is more specific than any rule without one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from .model import Action, Atom
from .policy import CompiledPolicy, CompiledRule
from .record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from .shell.commandline import Reader

_EXACT, _PREFIX, _WALK = 0, 1, 2


@lru_cache(maxsize=8192)
def _shape(glob: str) -> tuple[int, str]:
    """How to match ``glob`` cheaply: exactly, as ``literal*``, or by the segment walk
    (``_walk``); and its literal prefix."""
    cut = min((i for i in (glob.find("*"), glob.find("?")) if i >= 0), default=-1)
    if cut < 0:
        return _EXACT, glob
    prefix = glob[:cut]
    if cut == len(glob) - 1 and glob[cut] == "*":
        return _PREFIX, prefix
    return _WALK, prefix


# A segment: the text between two stars, as its length and its literal pieces (offset, text) once
# its ``?`` are taken out, and the longest piece (offset, text), which ``_find`` looks for first.
_Segment = tuple[int, tuple[tuple[int, str], ...], tuple[int, str]]


def _segment(text: str) -> _Segment:
    pieces: list[tuple[int, str]] = []
    offset = 0
    for piece in text.split("?"):
        if piece:
            pieces.append((offset, piece))
        offset += len(piece) + 1
    return len(text), tuple(pieces), max(pieces, key=lambda p: len(p[1]), default=(0, ""))


@lru_cache(maxsize=4096)
def _segments(glob: str) -> tuple[_Segment, ...]:
    """The segments of ``glob`` between its stars: the first and the last are anchored at the ends
    of the text (empty when the glob starts or ends with ``*``), the middle ones float (runs of
    stars leave no empty segment among them). A glob without a star is one segment."""
    parts = glob.split("*")
    if len(parts) == 1:  # no star: one segment, the whole text
        return (_segment(glob),)
    middle = [part for part in parts[1:-1] if part]
    return tuple(_segment(part) for part in (parts[0], *middle, parts[-1]))


def _fits(segment: _Segment, text: str, at: int) -> bool:
    """Whether ``segment`` matches ``text`` at ``at`` (the caller knows it fits in the text)."""
    return all(text.startswith(piece, at + offset) for offset, piece in segment[1])


def _find(segment: _Segment, text: str, start: int, end: int, steps: list[int] | None) -> int:
    """The first position from ``start`` where ``segment`` matches within ``text[:end]``, or -1.

    The segment's longest literal piece is found by ``str.find``; a candidate where the rest does
    not match moves the search on by one character, so every position is tried at most once.
    ``steps`` (tests only) counts the positions passed over and tried."""
    length, _, (offset, anchor) = segment
    if not anchor:  # only `?`: any place with room
        return start if end - start >= length else -1
    last = end - length + offset  # the last place the anchor may start at
    while True:
        if last < start + offset:  # no room left (and str.find would read a negative end from the end)
            return -1
        found = text.find(anchor, start + offset, last + len(anchor))
        if steps is not None:
            steps[0] += max((found if found >= 0 else last) - (start + offset) + 1, 1)
        if found < 0:
            return -1
        at = found - offset
        if _fits(segment, text, at):
            return at
        start = at + 1


def _walk(glob: str, text: str, steps: list[int] | None = None) -> bool:
    """``glob`` matched against ``text`` in full, in time linear in the text (times a segment's
    length at worst, for segments with ``?``), never backtracking.

    A glob is its segments between stars: the first must match where the text starts, the last
    where it ends, and each middle one is placed at the first position it matches after the one
    before. The first place is always as good as any later one: what is left after it is a
    superset of what is left after a later place. So no choice is ever revisited.
    """
    segments = _segments(glob)
    if len(segments) == 1:  # no star: `?` and literals, one character each
        return len(text) == len(glob) and _fits(segments[0], text, 0)
    head, *middle, tail = segments
    end = len(text) - tail[0]
    if end < head[0] or not _fits(head, text, 0) or not _fits(tail, text, end):
        return False
    at = head[0]
    for segment in middle:
        found = _find(segment, text, at, end, steps)
        if found < 0:
            return False
        at = found + segment[0]
    return True


def glob_steps(glob: str, text: str) -> tuple[bool, int]:
    """Whether ``text`` matches ``glob`` (by the segment walk), and the steps the walk took:
    the text positions it passed over or tried, plus one. For tests: the work is linear."""
    steps = [1]
    return _walk(glob, text, steps), steps[0]


def glob_matches(glob: str, text: str) -> bool:
    """Whether ``text`` matches ``glob`` in full."""
    kind, prefix = _shape(glob)
    if kind == _EXACT:
        return text == glob
    if not text.startswith(prefix):
        return False
    return kind == _PREFIX or _walk(glob, text)


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
