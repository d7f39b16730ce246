"""Views of the decision log for ``policy log tail|stats|suggest``: pure functions over records.

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
    action = _text(record, "action") or "?"
    judged = _text(record, "judged")
    if judged and judged != action:
        action += f" (judged {judged})"
    breaker = _text(record, "breaker")
    if breaker:
        action += f" (breaker {breaker})"
    subject = _text(record, "command") or _text(record, "path") or "-"
    parts = [_when(record), _text(record, "session") or "-", action, _text(record, "tool") or "?", subject]
    decider = _decider(record) or ""
    if decider:
        parts.append(f"[{decider}]")
    return "  ".join(_printable(part) for part in parts)


def _when(record: Record) -> str:
    time = _text(record, "time")
    if time:
        return time
    ts = _number(record.get("ts"))
    return _format_ts(ts) if ts is not None else "?"


def _decider(record: Record) -> str | None:
    """``<policy>: <rule> at <at>`` of the decision's decided_by (the kind of verdict, ``default``...,
    stands in for a missing rule); None when nothing restricted the call."""
    by = record.get("decided_by")
    if not isinstance(by, Mapping):
        return None
    what = _text(by, "rule") or _text(by, "kind") or "?"
    policy = _text(by, "policy")
    at = _text(by, "at")
    return f"{policy + ': ' if policy else ''}{what}{' at ' + at if at else ''}"


# --------------------------------------------------------------------------------------------- stats


def stats(records: Iterable[Record], *, since: float | None = None) -> dict[str, Any]:
    """Counts over the decisions with ``ts >= since`` (every decision when ``since`` is None)."""
    actions: Counter[str] = Counter()
    tools: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    breakers: Counter[str] = Counter()
    times: list[float] = []
    for record in decisions(records):
        ts = _number(record.get("ts"))
        if since is not None and (ts is None or ts < since):
            continue
        if ts is not None:
            times.append(ts)
        actions[_text(record, "action") or "?"] += 1
        tools[_text(record, "tool") or "?"] += 1
        rules[_decider(record) or "(nothing restricted the call)"] += 1
        breaker = _text(record, "breaker")
        if breaker:
            breakers[breaker] += 1
    return {
        "decisions": actions.total(),
        "from": min(times, default=None),
        "to": max(times, default=None),
        "actions": dict(actions.most_common()),
        "tools": dict(tools.most_common()),
        "rules": dict(rules.most_common()),
        "breakers": dict(breakers.most_common()),
    }


def render_stats(result: Mapping[str, Any]) -> str:
    count = result.get("decisions") or 0
    if not count:
        return "no decisions logged"
    start, end = _number(result.get("from")), _number(result.get("to"))
    span = f", {_format_ts(start)} to {_format_ts(end)}" if start is not None and end is not None else ""
    lines = [f"{_plural(count, 'decision')}{span}"]
    for title in ("actions", "tools", "breakers"):
        counts = result.get(title) or {}
        if counts:
            listed = ", ".join(f"{_printable(str(name))} {n}" for name, n in counts.items())
            lines.append(f"{title}: {listed}")
    rules = result.get("rules") or {}
    if rules:
        lines.append("decided by:")
        lines += [f"  {n:>6}  {_printable(str(rule))}" for rule, n in rules.items()]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------- suggest


@dataclass(frozen=True)
class _Atom:
    """What an allow rule would name: a bash command, or a file tool's path, in one policy."""

    policy: str
    tool: str
    command: str | None
    path: str | None


@dataclass
class _Tally:
    asked: int = 0
    ran: int = 0


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
    asks: list[tuple[frozenset[_Atom], tuple[str, str] | None]] = []
    denied: set[_Atom] = set()
    used: set[RuleId] = set()
    ran: dict[tuple[str, str], bool] = {}
    count = 0
    for record in records:
        event = record.get("event")
        if event == OUTCOME:
            _note_outcome(record, ran)
        elif event == DECISION:
            count += 1
            decider = _decided_by(record)
            if decider:
                used.add(decider)
            denied.update(_atoms(record, "deny"))
            if record.get("action") == "ask":
                asks.append((frozenset(_atoms(record, "ask")), _call(record)))
    return {
        "allow": _allowable(_tally(asks, ran), denied, min_asks),
        "unused": _unused(rules, used),
        "decisions": count,
    }


def _note_outcome(record: Record, ran: dict[tuple[str, str], bool]) -> None:
    call = _call(record)
    if call is not None:
        # Several outcomes for one call: it ran only if none of them says otherwise.
        ran[call] = ran.get(call, True) and record.get("ran") is True


def _call(record: Record) -> tuple[str, str] | None:
    session, tool_call = _text(record, "session"), _text(record, "tool_call")
    return (session, tool_call) if session is not None and tool_call else None


def _decided_by(record: Record) -> RuleId | None:
    by = record.get("decided_by")
    if not isinstance(by, Mapping):
        return None
    policy, rule, at = _text(by, "policy"), _text(by, "rule"), _text(by, "at")
    return (policy, rule, at) if policy is not None and rule is not None and at is not None else None


def _atoms(record: Record, action: str) -> Iterator[_Atom]:
    """The decision's atoms with this action (asks only when a rule may allow them)."""
    atoms = record.get("atoms")
    for atom in atoms if isinstance(atoms, list) else ():
        if not isinstance(atom, Mapping) or atom.get("action") != action:
            continue
        if action == "ask" and atom.get("kind") in _UNSUGGESTABLE_KINDS:
            continue
        found = _atom(record, atom)
        if found is not None:
            yield found


def _atom(record: Record, atom: Mapping[str, Any]) -> _Atom | None:
    policy = _text(atom, "policy")
    if not policy:
        return None
    command, path, tool = _text(atom, "command"), _text(atom, "path"), _text(record, "tool")
    if command is not None:
        return _Atom(policy, "bash", command, None)
    if path is not None and tool:
        return _Atom(policy, tool, None, path)
    return None


def _tally(
    asks: list[tuple[frozenset[_Atom], tuple[str, str] | None]], ran: Mapping[tuple[str, str], bool]
) -> dict[_Atom, _Tally]:
    """Per atom: the decisions that asked about it, and how many of their calls ran."""
    tallies: dict[_Atom, _Tally] = {}
    for atoms, call in asks:
        did_run = call is not None and ran.get(call, False)
        for atom in atoms:  # a set: a command twice in one line is still one ask
            tally = tallies.setdefault(atom, _Tally())
            tally.asked += 1
            tally.ran += did_run
    return tallies


def _allowable(tallies: Mapping[_Atom, _Tally], denied: set[_Atom], min_asks: int) -> list[dict[str, Any]]:
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


def _most_asked_first(item: tuple[_Atom, _Tally]) -> tuple[str, int, str, str, str]:
    atom, tally = item
    return atom.policy, -tally.asked, atom.tool, atom.command or "", atom.path or ""


def _literal(atom: _Atom) -> bool:
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
        return f"// nothing to suggest from {_plural(count, 'logged decision')}"
    blocks = [_policy_block(policy, allow, unused, count) for policy in policies]
    return "\n\n".join(block for block in blocks if block)


def _policy_block(
    policy: str, allow: list[Mapping[str, Any]], unused: list[Mapping[str, Any]], count: int
) -> str:
    mine = [entry for entry in allow if entry.get("policy") == policy]
    commands = [entry for entry in mine if entry.get("pattern") is not None]
    paths = [entry for entry in mine if entry.get("pattern") is None]
    stale = [entry for entry in unused if entry.get("policy") == policy]
    where = _printable(_policy_key(policy))
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
            f"// {where}.rules — never decided in {_plural(count, 'logged decision')}: candidates for removal"
        )
        lines += ["//   " + _printable(f"{entry.get('rule')} at {entry.get('at')}") for entry in stale]
    return "\n".join(lines)


def _suggestion_line(entry: Mapping[str, Any], names: Mapping[str, Any]) -> str:
    rule = {"action": "allow", "tool": entry.get("tool"), **names}
    body = _printable(json.dumps(rule, ensure_ascii=False))
    asked, ran = entry.get("asked") or 0, entry.get("ran") or 0
    return f"{{ {body[1:-1]} }},  // asked {_plural(asked, 'time')}, ran {_plural(ran, 'time')}"


def _policy_key(policy: str) -> str:
    return f"policies.{policy}" if policy.isidentifier() else f"policies[{json.dumps(policy)}]"


# ------------------------------------------------------------------------------------------- helpers


def decisions(records: Iterable[Record]) -> Iterator[Record]:
    """The decision records; outcomes and unknown events are left out."""
    return (record for record in records if isinstance(record, Mapping) and record.get("event") == DECISION)


def _text(record: Mapping[str, Any], key: str) -> str | None:
    value = record.get(key)
    return value if isinstance(value, str) else None


def _number(value: Any) -> float | None:
    # bool is an int, but never a time.
    if isinstance(value, int | float) and not isinstance(value, bool) and value == value:
        return float(value)
    return None


def _format_ts(ts: float) -> str:
    try:
        return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return str(ts)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _printable(text: str) -> str:
    """``text`` with control and other invisible characters escaped as in JSON, so that a logged
    command cannot drive the terminal or hide what it is; valid inside a JSON string too."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)
