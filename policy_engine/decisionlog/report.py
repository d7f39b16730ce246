"""``policy log report``: the decision log as one self-contained HTML page, a pure function of its
records.

A log holds whatever an agent tried to run, and the page is opened in a browser: every text taken
from the log is made printable and HTML-escaped, the page carries no script at all, and its
Content-Security-Policy forbids scripts and every fetch, so that not even a mistake here can make
a logged command run in the browser or the page load anything. Charts are inline SVG, styles inline
CSS: the file opens the same offline, mailed, or years later.

Its figures come from the accumulators of ``policy log stats`` (``views.Counts``) and ``policy log
suggest`` (``views.Asks``), fed in the same single pass as the report's own, so the page cannot
disagree with those views.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .views import (
    DECISION,
    MIN_ASKS,
    NOTHING_RESTRICTED,
    OUTCOME,
    Asks,
    Counts,
    Record,
    decider,
    format_ts,
    number_of,
    plural,
    printable,
    text_of,
)

ACTIONS = ("allow", "nudge", "log", "ask", "deny")  # least to most restrictive: the stacking order

_TOP = 25  # rows of a table before "N more"
_MAX_BARS = 60  # bars of the decisions-over-time chart: the bucket grows until they fit
_BUCKETS = (60, 300, 900, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 7 * 86400, 30 * 86400)
_HOURS_SHOWN = 72  # the asks-per-hour chart shows the most recent hours that had decisions
_SUBJECT_SHOWN = 160  # characters of a command shown in a table cell (all of it in its tooltip)

# No script, no fetch of any kind: only the page's own inline styles may apply.
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


# ------------------------------------------------------------------------------------------ figures


@dataclass
class Protection:
    """A protection that fired: the actions its decisions took and the paths it guarded."""

    actions: Counter[str] = field(default_factory=Counter)
    targets: Counter[str] = field(default_factory=Counter)


@dataclass
class Figures:
    """Everything the page shows, gathered in one pass over the log."""

    counts: Counts
    asks: Asks = field(default_factory=Asks)
    # (minute since the epoch, action) -> decisions: bounded by the minutes with decisions, and
    # enough for any bucket the time chart picks once it knows the span.
    minutes: Counter[tuple[int, str]] = field(default_factory=Counter)
    untimed: int = 0
    denied_tools: Counter[str] = field(default_factory=Counter)
    denied_by: Counter[str] = field(default_factory=Counter)
    denied_calls: Counter[str] = field(default_factory=Counter)  # the command line, or the path
    protections: dict[str, Protection] = field(default_factory=dict)

    def add(self, record: Record) -> None:
        """Take one record of the log (decisions before ``since`` and unknown events are left out)."""
        event = record.get("event")
        if event == OUTCOME:
            self.asks.add(record)
        elif event == DECISION and self.counts.add(record):
            self.asks.add(record)
            self._decision(record)

    def _decision(self, record: Record) -> None:
        action = text_of(record, "action") or "?"
        ts = number_of(record.get("ts"))
        if ts is None or not math.isfinite(ts):
            self.untimed += 1
        else:
            self.minutes[int(ts // 60), action] += 1
        if action == "deny":
            self.denied_tools[text_of(record, "tool") or "?"] += 1
            self.denied_by[decider(record) or NOTHING_RESTRICTED] += 1
            self.denied_calls[text_of(record, "command") or text_of(record, "path") or "?"] += 1
        by = record.get("decided_by")
        if isinstance(by, Mapping) and by.get("kind") == "protection":
            protection = self.protections.setdefault(decider(record) or "protection", Protection())
            protection.actions[action] += 1
            target = text_of(by, "target") or text_of(record, "path") or text_of(record, "command")
            protection.targets[target or "?"] += 1


def gather(records: Iterable[Record], *, since: float | None = None) -> Figures:
    """The page's figures over the decisions with ``ts >= since`` (all when None)."""
    figures = Figures(Counts(since=since))
    for record in records:
        if isinstance(record, Mapping):
            figures.add(record)
    return figures


def time_buckets(minutes: Mapping[tuple[int, str], int]) -> tuple[int, list[tuple[int, Counter[str]]]]:
    """(bucket seconds, [(bucket start, decisions per action)]) over the whole span, empty buckets
    included, in the smallest bucket that keeps the chart within ``_MAX_BARS`` bars."""
    if not minutes:
        return _BUCKETS[0], []
    first = min(minute for minute, _ in minutes) * 60
    last = max(minute for minute, _ in minutes) * 60
    step = next((s for s in _BUCKETS if last // s - first // s < _MAX_BARS), _BUCKETS[-1])
    while last // step - first // step >= _MAX_BARS:
        step *= 2
    bars: dict[int, Counter[str]] = {}
    for (minute, action), n in minutes.items():
        bars.setdefault(minute * 60 // step, Counter())[action] += n
    return step, [(k * step, bars.get(k, Counter())) for k in range(first // step, last // step + 1)]


def hourly_asks(minutes: Mapping[tuple[int, str], int]) -> list[tuple[int, int]]:
    """(hour start, asks) for every hour that had a decision, oldest first: an hour without any is
    an hour nobody worked with an agent, not an hour without prompts."""
    hours: Counter[int] = Counter()
    for (minute, action), n in minutes.items():
        hours[minute // 60] += n if action == "ask" else 0
    return [(hour * 3600, hours[hour]) for hour in sorted(hours)]


# --------------------------------------------------------------------------------------------- page


def report(
    records: Iterable[Record],
    *,
    generated: float,
    source: str,
    since: float | None = None,
    min_asks: int = MIN_ASKS,
) -> str:
    """The page for the decisions with ``ts >= since``; ``source`` names the log, ``generated`` is
    when the page was made (seconds since the epoch)."""
    figures = gather(records, since=since)
    counted = figures.counts.result()
    sections = [_header(counted, generated=generated, source=source, since=since)]
    if counted["decisions"]:
        sections += [
            _summary(counted),
            _timeline(figures),
            _asks_per_hour(figures),
            _most_asked(figures, min_asks),
            _refused(figures, counted),
            _protections(figures),
            _all_counts(counted),
        ]
    else:
        sections.append('<p class="empty">No decisions logged.</p>')
    return _page("\n".join(sections))


def _page(body: str) -> str:
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_POLICY}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>policy-engine: decision log report</title>
<style>{_STYLE}</style>
</head>
<body>
<main>
{body}
</main>
</body>
</html>
"""


def _header(counted: Mapping[str, Any], *, generated: float, source: str, since: float | None) -> str:
    start, end = number_of(counted.get("from")), number_of(counted.get("to"))
    span = ""
    if start is not None and end is not None:
        span = f", {_h(format_ts(start))} to {_h(format_ts(end))}"
    limit = f" (decisions since {_h(format_ts(since))})" if since is not None else ""
    count = counted.get("decisions") or 0
    noun = "decision" if count == 1 else "decisions"
    return f"""<header>
<h1>Decision log report</h1>
<p class="meta"><span data-stat="decisions">{count}</span> {noun}{span}{limit}
· from <code>{_h(source)}</code> · made {_h(format_ts(generated))} · times are UTC</p>
<p class="note">Commands and paths are shown as the log holds them: secrets (tokens, passwords,
<code>Authorization:</code> values, …) were masked as <code>***</code> when each decision was logged,
and nothing else was removed. Keep this page as private as the log.</p>
</header>"""


def _summary(counted: Mapping[str, Any]) -> str:
    actions = _counter(counted.get("actions"))
    total = sum(actions.values())
    cards = [
        f'<div class="card"><span class="label">{_h(action)}</span>'
        f'<span class="value {_css(action)}" data-stat="actions" data-name="{_h(action)}">{n}</span>'
        f'<span class="share">{_percent(n, total)}</span></div>'
        for action, n in _in_order(actions)
    ]
    return f'<section class="cards">{"".join(cards)}</section>'


def _timeline(figures: Figures) -> str:
    step, buckets = time_buckets(figures.minutes)
    actions = _counter(figures.counts.result().get("actions"))
    legend = "".join(
        f'<li><span class="swatch {_css(action)}"></span>{_h(action)}</li>'
        for action, _ in _in_order(actions)
    )
    untimed = (
        f'<p class="note">{plural(figures.untimed, "decision")} without a usable time '
        "(<code>ts</code>) are counted above but not drawn here.</p>"
        if figures.untimed
        else ""
    )
    chart = (
        _bar_chart(
            [(_bucket_label(start, step), counts) for start, counts in buckets],
            label="decisions over time, stacked by action",
        )
        if buckets
        else ""
    )
    return f"""<section>
<h2>Decisions over time</h2>
<p class="meta">One bar per {_h(_duration(step))}, stacked by the action that applied.</p>
<ul class="legend">{legend}</ul>
{chart}
{untimed}
</section>"""


def _asks_per_hour(figures: Figures) -> str:
    hours = hourly_asks(figures.minutes)
    asks = sum(n for _, n in hours)
    intro = (
        "Every ask stops the work until a person answers; many an hour teach the person to approve "
        "without reading. Counted over the hours that had any decision (an hour without one is an "
        "hour nobody worked with an agent)."
    )
    if not asks:
        return f"""<section>
<h2>Asks per hour</h2>
<p class="meta">{intro}</p>
<p class="empty">No call was asked about.</p>
</section>"""
    busiest_start, busiest = max(hours, key=lambda hour: (hour[1], hour[0]))
    shown = hours[-_HOURS_SHOWN:]
    note = f"The last {len(shown)} of them are drawn." if len(shown) < len(hours) else ""
    chart = _bar_chart(
        [(_stamp(start, "%m-%d %H:00"), Counter({"ask": n})) for start, n in shown],
        label="asks in each hour that had decisions",
    )
    return f"""<section>
<h2>Asks per hour</h2>
<p class="meta">{intro}</p>
<div class="figures">
{_figure(f"{asks / len(hours):.1f}", "asks per hour on average")}
{_figure(str(busiest), "in the busiest hour, " + _stamp(busiest_start, "%Y-%m-%d %H:00"))}
{_figure(str(asks), f"asks in {plural(len(hours), 'hour')} with decisions")}
</div>
{chart}
<p class="note">{note}</p>
</section>"""


def _most_asked(figures: Figures, min_asks: int) -> str:
    tallies = figures.asks.tallies()
    candidates = {
        (entry["policy"], entry["tool"], entry["pattern"], entry["path"])
        for entry in figures.asks.allowable(min_asks)
    }
    suggest = "policy log suggest" + (f" --min-asks {min_asks}" if min_asks != MIN_ASKS else "")
    if not tallies:
        return """<section>
<h2>Most-asked commands</h2>
<p class="empty">No call was asked about.</p>
</section>"""
    ranked = sorted(
        tallies.items(),
        key=lambda item: (-item[1].asked, -item[1].ran, item[0][0].command or item[0][0].path or ""),
    )
    rows = []
    for (atom, why), tally in ranked[:_TOP]:
        candidate = why is None and (atom.policy, atom.tool, atom.command, atom.path) in candidates
        flag = '<span class="badge">never refused: candidate for allow</span>' if candidate else ""
        reason = "policy" if why is None else why  # "doubt": the analysis could not prove it safe
        subject = atom.command if atom.command is not None else atom.path or "?"
        numbers = (tally.asked, tally.ran, tally.blocked, tally.asked - tally.ran - tally.blocked)
        rows.append(
            ('<tr class="candidate">' if candidate else "<tr>")
            + f"<td>{_subject(subject)}</td><td>{_h(atom.tool)}</td><td>{_h(atom.policy)}</td>"
            + f'<td class="why">{_h(reason)}</td>'
            + "".join(f'<td class="n">{n}</td>' for n in numbers)
            + f"<td>{flag}</td></tr>"
        )
    more = _more_row(len(ranked) - _TOP, "command", 9)
    return f"""<section>
<h2>Most-asked commands</h2>
<p class="meta">Each command of a line (or a file tool's path) a person was asked about, once per call,
and what became of the call: approved and ran, blocked, or no outcome reported (some agents report
only the calls that ran).</p>
<table class="asked">
<thead><tr><th>command or path</th><th>tool</th><th>policy</th><th>asked by</th>
<th class="n">asked</th><th class="n">approved and ran</th><th class="n">blocked</th>
<th class="n">no outcome</th><th></th></tr></thead>
<tbody>
{"".join(rows)}{more}
</tbody>
</table>
<p class="note">Candidates were asked about at least {plural(min_asks, "time")}, approved and run every
time, and never denied: an allow rule would have spared those prompts. Asked by "doubt": the analysis
could not prove the command safe, and no rule should allow it. <code>{_h(suggest)}</code> prints
them as rules to paste into your policy.</p>
</section>"""


def _refused(figures: Figures, counted: Mapping[str, Any]) -> str:
    denied = sum(figures.denied_tools.values())
    if not denied:
        return """<section>
<h2>Most-refused tools and rules</h2>
<p class="empty">No call was denied.</p>
</section>"""
    breakers = _counter(counted.get("breakers"))
    breaker_note = (
        '<p class="note">Circuit breakers fired: '
        + ", ".join(f"{_h(name)} {n}" for name, n in breakers.items())
        + " (an agent denied again and again, or warned again and again).</p>"
        if breakers
        else ""
    )
    return f"""<section>
<h2>Most-refused tools and rules</h2>
<p class="meta">{plural(denied, "call")} denied. A tool or rule the model keeps running into means its
instructions lack something: say what it may not do, and what to do instead.</p>
<div class="pair">
{_ranking(figures.denied_tools, ("tool", "denied"))}
{_ranking(figures.denied_by, ("refused by", "denied"))}
</div>
{_ranking(figures.denied_calls, ("command or path", "denied"))}
{breaker_note}
</section>"""


def _protections(figures: Figures) -> str:
    if not figures.protections:
        return """<section>
<h2>Protections that fired</h2>
<p class="empty">No protected path was touched.</p>
</section>"""
    ranked = sorted(figures.protections.items(), key=lambda item: (-item[1].actions.total(), item[0]))
    rows = []
    for name, protection in ranked[:_TOP]:
        actions = ", ".join(f"{_h(action)} {n}" for action, n in _in_order(protection.actions))
        targets = protection.targets.most_common()
        paths = "<br>".join(f'{_subject(target)} <span class="dim">×{n}</span>' for target, n in targets[:3])
        if len(targets) > 3:
            paths += f'<br><span class="dim">and {plural(len(targets) - 3, "more path")}</span>'
        rows.append(
            f'<tr><td>{_subject(name)}</td><td class="n">{protection.actions.total()}</td>'
            f"<td>{actions}</td><td>{paths}</td></tr>"
        )
    return f"""<section>
<h2>Protections that fired</h2>
<p class="meta">pathProtection and self-protection: the paths no rule may open, and what tried.</p>
<table class="protections">
<thead><tr><th>protection</th><th class="n">fired</th><th>actions</th><th>paths</th></tr></thead>
<tbody>
{"".join(rows)}{_more_row(len(ranked) - _TOP, "protection", 4)}
</tbody>
</table>
</section>"""


def _all_counts(counted: Mapping[str, Any]) -> str:
    """What ``policy log stats`` prints, in tables: tools, what decided, circuit breakers."""
    tables = [
        _ranking(_counter(counted.get("tools")), ("tool", "decisions"), stat="tools"),
        _ranking(_counter(counted.get("rules")), ("decided by", "decisions"), stat="rules"),
    ]
    breakers = _counter(counted.get("breakers"))
    if breakers:
        tables.append(_ranking(breakers, ("circuit breaker", "fired"), stat="breakers"))
    return f"""<section>
<h2>All decisions, counted</h2>
<p class="meta">The counts <code>policy log stats</code> prints, over the same decisions.</p>
<div class="pair">
{"".join(tables)}
</div>
</section>"""


# ------------------------------------------------------------------------------------------- pieces


def _bar_chart(bars: Sequence[tuple[str, Mapping[str, int]]], *, label: str) -> str:
    """An SVG bar chart, each bar stacked by action (least restrictive at the bottom); each part
    has its count as a tooltip and in ``data-count``."""
    width, height = 960, 240
    left, right, top, bottom = 44, 36, 10, 36  # room for the last label, centred under its bar
    plot_width, plot_height = width - left - right, height - top - bottom
    peak = max((sum(counts.values()) for _, counts in bars), default=0)
    scale = _nice_ceiling(peak)
    slot = plot_width / max(len(bars), 1)
    bar = max(slot * 0.78, 1.0)
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{_h(label)}" '
        'xmlns="http://www.w3.org/2000/svg">'
    ]
    for tick in _ticks(scale):
        y = top + plot_height - tick / scale * plot_height
        parts.append(
            f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}"></line>'
            f'<text class="axis" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>'
        )
    for index, (name, counts) in enumerate(bars):
        x = left + index * slot + (slot - bar) / 2
        y = float(top + plot_height)
        for action, n in _in_order(counts):
            if n <= 0:
                continue
            tall = n / scale * plot_height
            y -= tall
            parts.append(
                f'<rect class="{_css(action)}" x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" '
                f'height="{tall:.1f}" data-action="{_h(action)}" data-count="{n}">'
                f"<title>{_h(name)}: {_h(action)} {n}</title></rect>"
            )
    every = max(1, math.ceil(len(bars) / 8))
    for index in range(0, len(bars), every):
        x = left + index * slot + slot / 2
        parts.append(
            f'<text class="axis" x="{x:.1f}" y="{height - bottom + 18}" text-anchor="middle">'
            f"{_h(bars[index][0])}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _ranking(counts: Mapping[str, int], headers: tuple[str, str], *, stat: str | None = None) -> str:
    """A table of names and counts, largest first, with a bar for each count's share."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    peak = ranked[0][1] if ranked else 1
    marked = f' data-stat="{stat}"' if stat else ""
    rows = [
        f"<tr><td>{_subject(name)}</td>"
        f'<td class="n"{marked} data-name="{_h(name)}">{n}</td>'
        f'<td class="meter"><span style="width:{100 * n / peak:.1f}%"></span></td></tr>'
        for name, n in ranked[:_TOP]
    ]
    rest = ranked[_TOP:]
    more = (
        f'<tr class="more"><td>and {plural(len(rest), "more")}</td>'
        f'<td class="n">{sum(n for _, n in rest)}</td><td></td></tr>'
        if rest
        else ""
    )
    return f"""<table class="ranking">
<thead><tr><th>{_h(headers[0])}</th><th class="n">{_h(headers[1])}</th><th></th></tr></thead>
<tbody>{"".join(rows)}{more}</tbody>
</table>"""


def _figure(value: str, label: str) -> str:
    return f'<div><span class="value">{_h(value)}</span><span class="label">{_h(label)}</span></div>'


def _more_row(rest: int, noun: str, columns: int) -> str:
    if rest <= 0:
        return ""
    return f'<tr class="more"><td colspan="{columns}">and {plural(rest, "more " + noun)}</td></tr>'


def _subject(text: str) -> str:
    """A command, path or rule from the log, in a code cell: printable, escaped, and cut short with
    the whole of it as the tooltip."""
    shown = text if len(text) <= _SUBJECT_SHOWN else text[: _SUBJECT_SHOWN - 1] + "…"
    title = f' title="{_h(text)}"' if shown != text else ""
    return f"<code{title}>{_h(shown)}</code>"


def _h(text: str) -> str:
    """Text from the log made safe for the page: control characters shown escaped (they would be
    invisible, or garble the page), then HTML-escaped, quotes included (it may go into an attribute)."""
    return html.escape(printable(text), quote=True)


def _css(action: str) -> str:
    """The class that colours an action; an action the log should not hold gets the neutral one."""
    return f"a-{action}" if action in ACTIONS else "a-other"


def _in_order(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    """Actions from least to most restrictive, then any other name the log holds."""
    known = [(action, counts[action]) for action in ACTIONS if action in counts]
    return known + sorted((name, n) for name, n in counts.items() if name not in ACTIONS)


def _counter(value: Any) -> dict[str, int]:
    return dict(value) if isinstance(value, Mapping) else {}


def _percent(n: int, total: int) -> str:
    return f"{100 * n / total:.0f}%" if total else ""


def _nice_ceiling(peak: int) -> int:
    """The smallest round whole number at least ``peak`` (at least 1): 1, 1.2, 1.6, 2, 2.5, 3, 4, 5,
    6 or 8 times a power of ten, so that the tallest bar fills most of the chart (with 1, 2 and 5
    alone, a peak of 10,100 is drawn on a scale of 20,000)."""
    magnitude = 1
    while True:
        for tenths in (10, 12, 16, 20, 25, 30, 40, 50, 60, 80):
            value, rest = divmod(tenths * magnitude, 10)
            if not rest and value >= peak:
                return value
        magnitude *= 10


def _ticks(scale: int) -> list[int]:
    """The gridlines: the scale in quarters, fifths, thirds or halves, the first of those that
    falls on whole numbers (a scale of 25 in fifths); else its ends."""
    for parts in (4, 5, 3, 2):
        if scale % parts == 0:
            return [scale * part // parts for part in range(parts + 1)]
    return [0, scale]


def _bucket_label(start: int, step: int) -> str:
    if step < 86400:
        return _stamp(start, "%m-%d %H:%M")
    if step == 86400:
        return _stamp(start, "%Y-%m-%d")
    return "from " + _stamp(start, "%Y-%m-%d")


def _duration(seconds: int) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds % size == 0:
            count = seconds // size
            return unit if count == 1 else f"{count} {unit}s"
    return plural(seconds, "second")


def _stamp(ts: float, pattern: str) -> str:
    try:
        return datetime.fromtimestamp(ts, UTC).strftime(pattern)
    except (OverflowError, OSError, ValueError):
        return str(ts)


_STYLE = """
:root { color-scheme: light dark; --bg: #f7f7f5; --panel: #ffffff; --fg: #1d1d1f; --dim: #6b6b70;
  --line: #e3e3e0; --allow: #2e7d32; --nudge: #0277bd; --log: #7b7b85; --ask: #e08600;
  --deny: #c62828; --other: #8e44ad; --accent: #2e7d32; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #161618; --panel: #1f1f22; --fg: #ececee; --dim: #9a9aa2; --line: #323236;
    --allow: #5cb860; --nudge: #3ea3e0; --log: #9a9aa2; --ask: #f0a030; --deny: #ef5350;
    --other: #b37fd0; --accent: #5cb860; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1080px; margin: 0 auto; padding: 28px 20px 60px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 0 0 6px; }
section, header { background: var(--panel); border: 1px solid var(--line); border-radius: 10px;
  padding: 18px 22px; margin: 0 0 18px; }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.meta { color: var(--dim); margin: 0 0 12px; }
.note { color: var(--dim); font-size: 13px; margin: 10px 0 0; }
.empty { color: var(--dim); font-style: italic; margin: 4px 0; }
.dim { color: var(--dim); }
.cards { display: flex; flex-wrap: wrap; gap: 12px; background: none; border: none; padding: 0; }
.card { flex: 1 1 140px; background: var(--panel); border: 1px solid var(--line); border-radius: 10px;
  padding: 12px 16px; display: flex; flex-direction: column; }
.card .label { color: var(--dim); font-size: 13px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 30px; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .share { color: var(--dim); font-size: 13px; }
.value.a-allow { color: var(--allow); } .value.a-nudge { color: var(--nudge); }
.value.a-log { color: var(--log); } .value.a-ask { color: var(--ask); }
.value.a-deny { color: var(--deny); } .value.a-other { color: var(--other); }
.figures { display: flex; flex-wrap: wrap; gap: 28px; margin: 6px 0 12px; }
.figures div { display: flex; flex-direction: column; }
.figures .value { font-size: 24px; font-weight: 650; font-variant-numeric: tabular-nums; }
.figures .label { color: var(--dim); font-size: 13px; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 16px; padding: 0; margin: 0 0 8px; }
.legend li { display: flex; align-items: center; gap: 6px; font-size: 13px; }
.swatch { width: 12px; height: 12px; border-radius: 3px; display: inline-block; }
.swatch.a-allow { background: var(--allow); } .swatch.a-nudge { background: var(--nudge); }
.swatch.a-log { background: var(--log); } .swatch.a-ask { background: var(--ask); }
.swatch.a-deny { background: var(--deny); } .swatch.a-other { background: var(--other); }
svg.chart { width: 100%; height: auto; display: block; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .axis { fill: var(--dim); font-size: 11px; }
svg .a-allow { fill: var(--allow); } svg .a-nudge { fill: var(--nudge); } svg .a-log { fill: var(--log); }
svg .a-ask { fill: var(--ask); } svg .a-deny { fill: var(--deny); } svg .a-other { fill: var(--other); }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th { text-align: left; font-weight: 600; color: var(--dim); font-size: 12px; text-transform: uppercase;
  letter-spacing: .03em; border-bottom: 1px solid var(--line); padding: 6px 8px; }
td { border-bottom: 1px solid var(--line); padding: 6px 8px; vertical-align: top; }
.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.more td { color: var(--dim); font-style: italic; }
tr.candidate td { background: color-mix(in srgb, var(--accent) 8%, transparent); }
.badge { display: inline-block; font-size: 12px; white-space: nowrap; color: var(--accent);
  border: 1px solid var(--accent); border-radius: 999px; padding: 0 8px; }
.pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 20px;
  align-items: start; }
.meter { width: 30%; }
table.asked td:first-child { width: 42%; }
td.why { white-space: nowrap; }
.meter span { display: block; height: 8px; border-radius: 4px; background: var(--nudge); min-width: 2px; }
"""
