"""Views of the decision log for ``policy log tail|stats|suggest`` (and what the report shares with
them): pure functions over records.

Records come from ``audit.read``; any of them may be old, partial or hand-edited, so every field is
optional and of any type until checked, and records of an unknown ``event`` are skipped.
"""

from __future__ import annotations

import json
import re
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

Record = Mapping[str, Any]

DECISION = "decision"
OUTCOME = "outcome"
MIN_ASKS = 2

# Asks a rule must not wave through: protected paths, and commands the analysis could not vouch for.
_UNSUGGESTABLE_KINDS = frozenset({"protection", "doubt"})
# A rule's pattern of this shape names a preset, not a command (config.schema.PRESET_REFERENCE).
_PRESET_REFERENCE = re.compile(r"\$[A-Za-z][\w-]*")
_GLOB_CHARACTERS = frozenset("*?")
_TOOL_GLOB_CHARACTERS = frozenset("*?{}[],")

# (policy, rule label, at): what identifies a rule of the configuration in a decision's decided_by.
RuleId = tuple[str, str, str]
# What stats counts a decision under when no rule, protection or default restricted it.
NOTHING_RESTRICTED = "(nothing restricted the call)"


# ---------------------------------------------------------------------------------------------- tail


def tail(
    records: Iterable[Record],
    *,
    action: str | None = None,
    session: str | None = None,
    tool: str | None = None,
    limit: int | None = 20,
) -> list[dict[str, Any]]:
    """The last ``limit`` decision records matching every filter given (newest last); None: all."""
    wanted = {"action": action, "session": session, "tool": tool}
    filters = {key: value for key, value in wanted.items() if value is not None}
    # A deque keeps memory bounded by ``limit`` however long the log is.
    found: deque[Record] = deque(maxlen=None if limit is None else max(limit, 0))
    for record in decisions(records):
        if all(record.get(key) == value for key, value in filters.items()):
            found.append(record)
    return [dict(record) for record in found]


def render_tail(records: Iterable[Record]) -> str:
    """One line per decision: time, session, action (and what was judged), tool, subject, decider."""
    lines = [_tail_line(record) for record in decisions(records)]
    return "\n".join(lines) if lines else "no decisions logged"


def _tail_line(record: Record) -> str:
    action = text_of(record, "action") or "?"
    judged = text_of(record, "judged")
    if judged and judged != action:
        action += f" (judged {judged})"
    breaker = text_of(record, "breaker")
    if breaker:
        action += f" (breaker {breaker})"
    subject = text_of(record, "command") or text_of(record, "path") or "-"
    session, tool = text_of(record, "session") or "-", text_of(record, "tool") or "?"
    parts = [_when(record), session, action, tool, subject]
    by = decider(record) or ""
    if by:
        parts.append(f"[{by}]")
    return "  ".join(printable(part) for part in parts)


def _when(record: Record) -> str:
    time = text_of(record, "time")
    if time:
        return time
    ts = number_of(record.get("ts"))
    return format_ts(ts) if ts is not None else "?"


def decider(record: Record) -> str | None:
    """``<policy>: <rule> at <at>`` of the decision's decided_by (the kind of verdict, ``default``...,
    stands in for a missing rule); None when nothing restricted the call."""
    by = record.get("decided_by")
    if not isinstance(by, Mapping):
        return None
    what = text_of(by, "rule") or text_of(by, "kind") or "?"
    policy = text_of(by, "policy")
    at = text_of(by, "at")
    return f"{policy + ': ' if policy else ''}{what}{' at ' + at if at else ''}"


# --------------------------------------------------------------------------------------------- stats


def stats(records: Iterable[Record], *, since: float | None = None) -> dict[str, Any]:
    """Counts over the decisions with ``ts >= since`` (every decision when ``since`` is None)."""
    counts = Counts(since=since)
    for record in decisions(records):
        counts.add(record)
    return counts.result()


class Counts:
    """The counts of ``policy log stats``, gathered one decision record at a time, so that a view
    reading the log once for more (the report) shows exactly the figures ``stats`` prints."""

    def __init__(self, *, since: float | None = None) -> None:
        self.since = since
        self.actions: Counter[str] = Counter()
        self.tools: Counter[str] = Counter()
        self.rules: Counter[str] = Counter()
        self.breakers: Counter[str] = Counter()
        self.first: float | None = None
        self.last: float | None = None

    def add(self, record: Record) -> bool:
        """Count a decision record; False when it is older than ``since`` (or has no time then)."""
        if not within(record, self.since):
            return False
        ts = number_of(record.get("ts"))
        if ts is not None:
            self.first = ts if self.first is None else min(self.first, ts)
            self.last = ts if self.last is None else max(self.last, ts)
        self.actions[text_of(record, "action") or "?"] += 1
        self.tools[text_of(record, "tool") or "?"] += 1
        self.rules[decider(record) or NOTHING_RESTRICTED] += 1
        breaker = text_of(record, "breaker")
        if breaker:
            self.breakers[breaker] += 1
        return True

    def result(self) -> dict[str, Any]:
        return {
            "decisions": self.actions.total(),
            "from": self.first,
            "to": self.last,
            "actions": dict(self.actions.most_common()),
            "tools": dict(self.tools.most_common()),
            "rules": dict(self.rules.most_common()),
            "breakers": dict(self.breakers.most_common()),
        }


def within(record: Record, since: float | None) -> bool:
    """Whether a decision counts from ``since`` on (None: every decision; else it needs a time)."""
    if since is None:
        return True
    ts = number_of(record.get("ts"))
    return ts is not None and ts >= since


def render_stats(result: Mapping[str, Any]) -> str:
    count = result.get("decisions") or 0
    if not count:
        return "no decisions logged"
    start, end = number_of(result.get("from")), number_of(result.get("to"))
    span = f", {format_ts(start)} to {format_ts(end)}" if start is not None and end is not None else ""
    lines = [f"{plural(count, 'decision')}{span}"]
    for title in ("actions", "tools", "breakers"):
        counts = result.get(title) or {}
        if counts:
            listed = ", ".join(f"{printable(str(name))} {n}" for name, n in counts.items())
            lines.append(f"{title}: {listed}")
    rules = result.get("rules") or {}
    if rules:
        lines.append("decided by:")
        lines += [f"  {n:>6}  {printable(str(rule))}" for rule, n in rules.items()]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------- suggest


@dataclass(frozen=True)
class Atom:
    """What an allow rule would name: a bash command, or a file tool's path, in one policy."""

    policy: str
    tool: str
    command: str | None
    path: str | None


@dataclass
class Tally:
    """How often an atom was asked about (once per call), and what the person's answers became:
    the call ran, was blocked, or no outcome was reported (some agents report only calls that ran)."""

    asked: int = 0
    ran: int = 0
    blocked: int = 0


class Asks:
    """The asks of a log and what became of them, gathered one record at a time, so that
    ``suggest`` and the report count them alike.

    Per atom asked about (an atom's action "ask" in a decision whose applied action was "ask"),
    and per reason it was asked: ``None`` when a rule or a default asked (a rule may allow it),
    else the kind of verdict that no rule should wave through ("protection", "doubt").
    """

    def __init__(self) -> None:
        self.decisions = 0
        self.denied: set[Atom] = set()
        self.used: set[RuleId] = set()
        self._asks: list[tuple[frozenset[tuple[Atom, str | None]], tuple[str, str] | None]] = []
        self._ran: dict[tuple[str, str], bool] = {}

    def add(self, record: Record) -> None:
        """Take a decision or outcome record (any other record is left alone)."""
        event = record.get("event")
        if event == OUTCOME:
            _note_outcome(record, self._ran)
        elif event == DECISION:
            self.decisions += 1
            by = _decided_by(record)
            if by:
                self.used.add(by)
            self.denied.update(atom for atom, _ in _atoms(record, "deny"))
            if record.get("action") == "ask":
                self._asks.append((frozenset(_atoms(record, "ask")), _call(record)))

    def tallies(self) -> dict[tuple[Atom, str | None], Tally]:
        """Per atom and reason: the decisions that asked about it, and what became of their calls
        (outcomes reported after the asks were added count too)."""
        tallies: dict[tuple[Atom, str | None], Tally] = {}
        for atoms, call in self._asks:
            outcome = self._ran.get(call) if call is not None else None
            for key in atoms:  # a set: a command twice in one line is still one ask
                tally = tallies.setdefault(key, Tally())
                tally.asked += 1
                tally.ran += outcome is True
                tally.blocked += outcome is False
        return tallies

    def allowable(self, min_asks: int = MIN_ASKS) -> list[dict[str, Any]]:
        """``suggest``'s allow list: the atoms a rule may allow (reason None), asked at least
        ``min_asks`` times, that ran every time and were never denied, most asked first per policy."""
        mine = {atom: tally for (atom, why), tally in self.tallies().items() if why is None}
        return _allowable(mine, self.denied, min_asks)


def suggest(
    records: Iterable[Record], rules: Sequence[tuple[str, str, str]], *, min_asks: int = MIN_ASKS
) -> dict[str, Any]:
    """`rules` lists the current configuration's rules as (policy, rule label as in decided_by.rule, at).
    Returns {"allow": [{"policy": p, "tool": t, "pattern": command_or_None, "path": path_or_None,
    "asked": n, "ran": n}], "unused": [{"policy": p, "rule": label, "at": at}], "decisions": N}.

    allow: atoms asked about (atom action "ask", kind neither "protection" nor "doubt", in a decision
    whose applied action was "ask") at least ``min_asks`` times, whose call ran every time (an
    outcome record with ran true for the same session and tool_call: an ask without one counts as
    not run, since some agents report only the calls that ran), and never denied in any decision.
    Names an allow rule could not spell literally are left out. unused: rules of ``rules`` that
    never appear as any decision's decided_by.
    """
    asks = Asks()
    for record in records:
        asks.add(record)
    return {
        "allow": asks.allowable(min_asks),
        "unused": _unused(rules, asks.used),
        "decisions": asks.decisions,
    }


def _note_outcome(record: Record, ran: dict[tuple[str, str], bool]) -> None:
    call = _call(record)
    if call is not None:
        # Several outcomes for one call: it ran only if none of them says otherwise.
        ran[call] = ran.get(call, True) and record.get("ran") is True


def _call(record: Record) -> tuple[str, str] | None:
    session, tool_call = text_of(record, "session"), text_of(record, "tool_call")
    return (session, tool_call) if session is not None and tool_call else None


def _decided_by(record: Record) -> RuleId | None:
    by = record.get("decided_by")
    if not isinstance(by, Mapping):
        return None
    policy, rule, at = text_of(by, "policy"), text_of(by, "rule"), text_of(by, "at")
    return (policy, rule, at) if policy is not None and rule is not None and at is not None else None


def _atoms(record: Record, action: str) -> Iterator[tuple[Atom, str | None]]:
    """The decision's atoms with this action, each with the kind of its verdict when no rule may
    allow it ("protection", "doubt"; None otherwise)."""
    atoms = record.get("atoms")
    for atom in atoms if isinstance(atoms, list) else ():
        if not isinstance(atom, Mapping) or atom.get("action") != action:
            continue
        found = _atom(record, atom)
        if found is not None:
            kind = atom.get("kind")
            yield found, kind if kind in _UNSUGGESTABLE_KINDS else None


def _atom(record: Record, atom: Mapping[str, Any]) -> Atom | None:
    policy = text_of(atom, "policy")
    if not policy:
        return None
    command, path, tool = text_of(atom, "command"), text_of(atom, "path"), text_of(record, "tool")
    if command is not None:
        return Atom(policy, "bash", command, None)
    if path is not None and tool:
        return Atom(policy, tool, None, path)
    return None


def _allowable(tallies: Mapping[Atom, Tally], denied: set[Atom], min_asks: int) -> list[dict[str, Any]]:
    return [
        {
            "policy": atom.policy,
            "tool": atom.tool,
            "pattern": atom.command,
            "path": atom.path,
            "asked": tally.asked,
            "ran": tally.ran,
        }
        for atom, tally in sorted(tallies.items(), key=_most_asked_first)
        if tally.asked >= min_asks and tally.ran == tally.asked and atom not in denied and _literal(atom)
    ]


def _most_asked_first(item: tuple[Atom, Tally]) -> tuple[str, int, str, str, str]:
    atom, tally = item
    return atom.policy, -tally.asked, atom.tool, atom.command or "", atom.path or ""


def _literal(atom: Atom) -> bool:
    """Whether an allow rule can name exactly this atom and nothing more."""
    if _TOOL_GLOB_CHARACTERS & set(atom.tool) or not atom.tool:
        return False
    if atom.command is not None:
        # * and ? are wildcards in a pattern, and "$name" would name a preset.
        return bool(atom.command) and not (
            _GLOB_CHARACTERS & set(atom.command) or _PRESET_REFERENCE.fullmatch(atom.command)
        )
    path = atom.path or ""
    # An approval's path is a glob too, and is absolute or under ~/.
    return path.startswith(("/", "~/")) and not _GLOB_CHARACTERS & set(path)


def _unused(rules: Sequence[tuple[str, str, str]], used: set[RuleId]) -> list[dict[str, str]]:
    unique = dict.fromkeys(tuple(rule) for rule in rules)  # keeps the configuration's order
    return [
        {"policy": policy, "rule": rule, "at": at}
        for policy, rule, at in unique
        if (policy, rule, at) not in used
    ]


def render_suggestions(result: Mapping[str, Any]) -> str:
    """JSONC to paste, grouped by policy: allow rules for bash commands (``policies.<p>.rules``),
    approvals for file tools' paths (``approvalRules``: a policy rule has no ``path``), and the rules
    that never decided anything, as comments. Each rule object is valid JSON on its own line."""
    allow: list[Mapping[str, Any]] = list(result.get("allow") or [])
    unused: list[Mapping[str, Any]] = list(result.get("unused") or [])
    count = result.get("decisions") or 0
    policies = sorted({str(entry.get("policy")) for entry in [*allow, *unused]})
    if not policies:
        return f"// nothing to suggest from {plural(count, 'logged decision')}"
    blocks = [_policy_block(policy, allow, unused, count) for policy in policies]
    return "\n\n".join(block for block in blocks if block)


def _policy_block(
    policy: str, allow: list[Mapping[str, Any]], unused: list[Mapping[str, Any]], count: int
) -> str:
    mine = [entry for entry in allow if entry.get("policy") == policy]
    commands = [entry for entry in mine if entry.get("pattern") is not None]
    paths = [entry for entry in mine if entry.get("pattern") is None]
    stale = [entry for entry in unused if entry.get("policy") == policy]
    where = printable(_policy_key(policy))
    lines: list[str] = []
    if commands:
        lines.append(f"// {where}.rules — asked and ran every time, never denied: add to that array")
        lines += [_suggestion_line(entry, {"pattern": entry["pattern"]}) for entry in commands]
    if paths:
        lines.append(
            f"// approvalRules — {where}: file paths asked and ran every time, never denied "
            "(a policy rule has no path): add to that array"
        )
        lines += [_suggestion_line(entry, {"path": entry.get("path"), "policy": policy}) for entry in paths]
    if stale:
        lines.append(
            f"// {where}.rules — never decided in {plural(count, 'logged decision')}: candidates for removal"
        )
        lines += ["//   " + printable(f"{entry.get('rule')} at {entry.get('at')}") for entry in stale]
    return "\n".join(lines)


def _suggestion_line(entry: Mapping[str, Any], names: Mapping[str, Any]) -> str:
    rule = {"action": "allow", "tool": entry.get("tool"), **names}
    body = printable(json.dumps(rule, ensure_ascii=False))
    asked, ran = entry.get("asked") or 0, entry.get("ran") or 0
    return f"{{ {body[1:-1]} }},  // asked {plural(asked, 'time')}, ran {plural(ran, 'time')}"


def _policy_key(policy: str) -> str:
    return f"policies.{policy}" if policy.isidentifier() else f"policies[{json.dumps(policy)}]"


# ------------------------------------------------------------------------------------------- helpers


def decisions(records: Iterable[Record]) -> Iterator[Record]:
    """The decision records; outcomes and unknown events are left out."""
    return (record for record in records if isinstance(record, Mapping) and record.get("event") == DECISION)


def text_of(record: Mapping[str, Any], key: str) -> str | None:
    value = record.get(key)
    return value if isinstance(value, str) else None


def number_of(value: Any) -> float | None:
    # bool is an int, but never a time.
    if isinstance(value, int | float) and not isinstance(value, bool) and value == value:
        return float(value)
    return None


def format_ts(ts: float) -> str:
    try:
        return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return str(ts)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def printable(text: str) -> str:
    """``text`` with control and other invisible characters escaped as in JSON, so that a logged
    command cannot drive the terminal or hide what it is; valid inside a JSON string too."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)
