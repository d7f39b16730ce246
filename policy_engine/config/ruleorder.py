"""Which rule wins: specificity, the tie-break between actions, and the per-tool rule index.

Specificity is the number of literal characters before the first wildcard; a rule with a command
``pattern`` is more specific than any rule without one. Compilation sorts a policy's rules in this
order and stores the index with them (the compiled-policy cache); matching (``decide/rules.py``)
walks it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..globs import literal_prefix

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from .compiled import CompiledRule


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
