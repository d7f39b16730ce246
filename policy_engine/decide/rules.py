"""Rule matching: the rule that decides an atom, among a policy's rules in winning order.

The globs are matched by ``globs.py``; which rule wins (specificity, the tie-break) and the index
compiled with the rules are ``config/ruleorder.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..config.compiled import CompiledPolicy, CompiledRule
from ..config.ruleorder import RuleIndex, ToolIndex, rule_index
from ..globs import glob_matches, literal_prefix
from ..model import Action, Atom
from ..record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from ..analysis.shell.commandline import Reader


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

    __slots__ = ("_by_word", "_heads", "_loose", "_memo", "_plain", "_rules", "plain")

    MEMO_LIMIT = 4096

    def __init__(self, rules: Sequence[CompiledRule], entries: list[ToolIndex]) -> None:
        self._rules = rules
        self._plain = sorted(p for entry in entries for p in entry[0])
        self.plain = tuple(rules[p] for p in self._plain)
        self._by_word: dict[str, list[int]] = {}
        for entry in entries:
            for word, positions in entry[1].items():
                self._by_word.setdefault(word, []).extend(positions)
        # Rules whose first word is only known by its start (``sha256sum*``), by that start's first
        # character: a command's first word is compared with the few that can start it.
        self._loose: dict[str, list[tuple[int, str]]] = {}
        for entry in entries:
            for position, head in entry[2]:
                self._loose.setdefault(head[:1], []).append((position, head))
        self._memo: dict[str, tuple[tuple[CompiledRule, ...], tuple[str | None, ...]]] = {}
        self._heads: dict[str, tuple[CompiledRule, ...]] = {}

    def candidates(self, command: str | None) -> tuple[CompiledRule, ...]:
        """Rules that may match ``command``, in winning order (only pattern-less ones for no command).

        Those of its first word; of a word with many (``git``: seventy allow rules), less the allow
        rules whose text cannot match it, known by the command's first two words: an allow rule
        matches by its text alone (rules.match), so only a command that starts with the text
        before its first wildcard (``git log `` for ``git log *``)."""
        if command is None:
            return self.plain
        space = command.find(" ")
        rules, prefixes = self._first_word(command if space < 0 else command[:space])
        if len(rules) <= _FEW:
            return rules
        end = command.find(" ", space + 1) if space >= 0 else -1
        head = command if end < 0 else command[:end]  # the command starts with it, to its 2nd word
        found = self._heads.get(head)
        if found is None:
            found = tuple(
                rule
                for rule, prefix in zip(rules, prefixes, strict=True)
                if prefix is None
                or (head.startswith(prefix) if len(prefix) <= len(head) else prefix.startswith(head))
            )
            if len(self._heads) >= self.MEMO_LIMIT:
                self._heads.clear()
            self._heads[head] = found
        return found

    def _first_word(self, word: str) -> tuple[tuple[CompiledRule, ...], tuple[str | None, ...]]:
        """The rules that may match a command whose first word is ``word``, and for each the text
        a command it matches must start with (None: any, a restrictive rule or one without a
        pattern: those may match by options)."""
        found = self._memo.get(word)
        if found is None:
            positions = self._plain + self._by_word.get(word, [])
            for first in {word[:1], ""}:  # "": a start of nothing, which every word has
                positions += [
                    position for position, head in self._loose.get(first, ()) if word.startswith(head)
                ]
            rules = tuple(self._rules[p] for p in sorted(positions))
            prefixes = tuple(
                literal_prefix(rule.pattern)
                if rule.action is Action.ALLOW and rule.pattern is not None
                else None
                for rule in rules
            )
            found = (rules, prefixes)
            if len(self._memo) < self.MEMO_LIMIT:
                self._memo[word] = found
        return found


_FEW = 8  # rules of a first word below which they are tried as they are
