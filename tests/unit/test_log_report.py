"""policy log report: one self-contained HTML page whose figures are those of `policy log stats`
and `policy log suggest` over the same log, that shows commands as the log holds them (secrets
masked) and can never run anything a logged command carries."""

from __future__ import annotations

import json
import stat
from html.parser import HTMLParser
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from helpers import Sandbox

from policy_engine.decisionlog import report as pages
from policy_engine.decisionlog import views as logbook
from policy_engine.decisionlog import writer as audit

POLICY = """
    {
      "policies": { "p": { "defaultAction": "allow", "rules": [
        { "action": "deny", "tool": "bash", "pattern": "rm *" },
        { "action": "deny", "tool": "bash", "pattern": "curl *" },
        { "action": "nudge", "tool": "bash", "pattern": "grep *", "message": "use rg" },
        { "action": "ask", "tool": "bash", "pattern": "npm *" },
      ] } },
      "defaultPolicy": "p",
      "pathProtection": { "~/.ssh/": "deny" },
      "agentTimeout": { "maxDenies": 3, "windowSeconds": 600 },
    }
"""

SECRET = "sk-live-4f9d2c7a1b8e6f3d0a5c9b2e7f1d4a8c"
HOSTILE = "npm run '</code><script>alert(\"pwned\")</script><img src=x onerror=alert(1)>'"

# (tool call, command, what the person did when asked: True ran, False blocked, None not asked)
CALLS = [
    ("c1", "ls -la", None),
    ("c2", "grep -rn TODO .", None),
    ("c3", "npm test", True),
    ("c4", "npm test", True),
    ("c5", "npm run build", True),
    ("c6", "npm run build", False),
    ("c7", "rm a", None),
    ("c8", "rm b", None),
    ("c9", "rm c", None),  # the third deny of the rule: agentTimeout makes it an ask
    ("c10", "cat ~/.ssh/id_rsa", None),
    ("c11", f"curl -H 'Authorization: Bearer {SECRET}' https://example.com", None),
    ("c12", HOSTILE, True),
]


def write_session_log(sandbox: Sandbox) -> dict[str, str]:
    """A real decision log: the calls of ``CALLS`` judged in one session by the real CLI, and the
    outcomes of the asks recorded as the agents' hooks record them. The environment to read it."""
    config = sandbox.write("config/policy-engine/policy.jsonc", POLICY)
    env = {"POLICY_ENGINE_STATE_DIR": str(sandbox.root / "state"), "POLICY_ENGINE_CONFIG": str(config)}
    project = sandbox.project("work")
    batch = "".join(
        json.dumps({"command": command, "tool_call_id": call, "cwd": str(project)}) + "\n"
        for call, command, _ in CALLS
    )
    judged = sandbox.run("check", "--session", "s1", "--batch", "-", stdin=batch, env=env)
    assert judged.returncode == 0, judged.stderr
    for call, _, ran in CALLS:
        if ran is not None:
            done = sandbox.run(
                "log",
                "outcome",
                "--session",
                "s1",
                "--tool-call-id",
                call,
                "--ran" if ran else "--blocked",
                env=env,
            )
            assert done.returncode == 0, done.stderr
    return env


class Page(HTMLParser):
    """What a browser would build from the page: every element with its attributes, the figures
    marked ``data-stat`` (with ``data-name``), the chart's bars, and the text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.figures: dict[str, dict[str, int]] = {}
        self.bars: list[tuple[str, int]] = []
        self.text: list[str] = []
        self._open: str | None = None
        self._stat: tuple[str, str] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        self.elements.append((tag, attributes))
        if "data-stat" in attributes:
            self._stat = (attributes["data-stat"], attributes.get("data-name", ""))
        if tag == "rect" and "data-count" in attributes:
            self.bars.append((attributes["data-action"], int(attributes["data-count"])))
        self._open = tag

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._stat is not None:
            stat, name = self._stat
            self.figures.setdefault(stat, {})[name] = int(data)
            self._stat = None

    @property
    def all_text(self) -> str:
        return "".join(self.text)


def figures_of(page: Page) -> dict[str, Any]:
    """The page's figures in the shape of `policy log stats --json` (without from/to)."""
    figures = page.figures
    return {
        "decisions": figures["decisions"][""],
        "actions": figures.get("actions", {}),
        "tools": figures.get("tools", {}),
        "rules": figures.get("rules", {}),
        "breakers": figures.get("breakers", {}),
    }


def stats_of(sandbox: Sandbox, env: dict[str, str], *args: str) -> dict[str, Any]:
    shown = sandbox.run("log", "stats", "--json", *args, env=env)
    assert shown.returncode == 0, shown.stderr
    counted = json.loads(shown.stdout)
    return {key: counted[key] for key in ("decisions", "actions", "tools", "rules", "breakers")}


def chart_totals(page: Page) -> dict[str, int]:
    """Per action, what the decisions-over-time chart draws (its bars come first in the page)."""
    totals: dict[str, int] = {}
    for action, count in page.bars[: _timeline_bars(page)]:
        totals[action] = totals.get(action, 0) + count
    return totals


def _timeline_bars(page: Page) -> int:
    """How many of the page's bars belong to the first chart: those before the second <svg>."""
    seen_svg, bars = 0, 0
    for tag, attributes in page.elements:
        if tag == "svg":
            seen_svg += 1
            if seen_svg == 2:
                break
        elif tag == "rect" and "data-count" in attributes:
            bars += 1
    return bars


# ------------------------------------------------------------------------------------- the real CLI


def test_the_page_shows_the_figures_of_stats_and_the_candidates_of_suggest(sandbox: Sandbox) -> None:
    env = write_session_log(sandbox)
    output = sandbox.root / "out" / "report.html"
    made = sandbox.run("log", "report", "--output", str(output), env=env)
    assert made.returncode == 0, made.stderr
    assert made.stdout == f"{output}\n", "the path written is printed"
    page = Page(output.read_text())

    stats = stats_of(sandbox, env)
    assert stats["decisions"] == len(CALLS)
    assert stats["breakers"] == {"agentTimeout": 1}, "the log this test made has a breaker"
    assert figures_of(page) == stats
    assert chart_totals(page) == stats["actions"], "every decision is drawn, by action"

    # The candidates flagged are exactly what `policy log suggest` would turn into rules.
    suggested = json.loads(sandbox.run("log", "suggest", "--json", env=env).stdout)["allow"]
    assert [entry["pattern"] for entry in suggested] == ["npm test"]
    rows = _table_rows(output.read_text(), "asked")
    flagged = [row[0] for row in rows if "candidate for allow" in row[-1]]
    assert flagged == ["npm test"]
    by_command = {row[0]: row[4:8] for row in rows}
    assert by_command["npm test"] == ["2", "2", "0", "0"]  # asked, approved and ran, blocked, no outcome
    assert by_command["npm run build"] == ["2", "1", "1", "0"]
    assert "policy log suggest" in page.all_text


def test_commands_are_shown_as_the_log_holds_them_secrets_masked(sandbox: Sandbox) -> None:
    env = write_session_log(sandbox)
    logged = [r for r in audit.read(env["POLICY_ENGINE_STATE_DIR"] + "/decisions.jsonl") if "curl" in str(r)]
    (curl,) = [r["command"] for r in logged if r.get("event") == "decision"]
    assert SECRET not in curl and "***" in curl
    page = sandbox.run("log", "report", "-o", "-", env=env)
    assert page.returncode == 0, page.stderr
    assert SECRET not in page.stdout
    text = Page(page.stdout).all_text
    assert curl in text, "the command as the log holds it"
    assert "secrets" in text and "masked" in text, "the page says so"


def test_a_hostile_command_is_text_never_markup(sandbox: Sandbox) -> None:
    env = write_session_log(sandbox)
    tail = json.loads(sandbox.run("log", "tail", "--json", env=env).stdout)
    assert HOSTILE in [record["command"] for record in tail], "the log holds it as it was run"
    text = sandbox.run("log", "report", "-o", "-", env=env).stdout
    page = Page(text)
    assert_inert(page)
    assert '</code><script>alert("pwned")</script><img src=x onerror=alert(1)>' in page.all_text


def assert_inert(page: Page) -> None:
    """Nothing in the page can run or fetch: no script, no handler, no URL to load, and a policy
    that forbids them should anything slip through."""
    tags = {tag for tag, _ in page.elements}
    assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS
    for tag, attributes in page.elements:
        assert not [name for name in attributes if name.startswith("on")], (tag, attributes)
        assert not {"src", "href", "action", "srcset", "formaction", "xlink:href"} & set(attributes)
        assert "javascript:" not in " ".join(attributes.values()).lower()
    (policy,) = [a["content"] for tag, a in page.elements if a.get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy


ALLOWED_TAGS = {
    *("html", "head", "meta", "title", "style", "body", "main", "header", "section", "h1", "h2", "p"),
    *("div", "span", "code", "br", "ul", "li", "table", "thead", "tbody", "tr", "th", "td"),
    *("svg", "rect", "line", "text"),
}


def test_the_default_output_is_private_and_next_to_the_log(sandbox: Sandbox) -> None:
    env = write_session_log(sandbox)
    made = sandbox.run("log", "report", env=env, cwd=sandbox.project("work"))
    assert made.returncode == 0, made.stderr
    written = Path(made.stdout.strip())
    assert written == sandbox.root / "state" / "report.html"
    assert stat.S_IMODE(written.stat().st_mode) == 0o600, "the page shows every logged command"
    assert not list((sandbox.root / "work").iterdir()), "nothing is left in the project"
    assert Page(written.read_text()).figures["decisions"][""] == len(CALLS)


def test_since_counts_what_stats_since_counts(sandbox: Sandbox) -> None:
    env = write_session_log(sandbox)
    log = Path(env["POLICY_ENGINE_STATE_DIR"]) / "decisions.jsonl"
    old = {**json.loads(log.read_text().splitlines()[0]), "ts": 1000.0, "tool": "edit"}
    log.write_text(json.dumps(old) + "\n" + log.read_text())
    page = Page(sandbox.run("log", "report", "--since", "1h", "-o", "-", env=env).stdout)
    assert figures_of(page) == stats_of(sandbox, env, "--since", "1h")
    assert "edit" not in figures_of(page)["tools"]
    everything = Page(sandbox.run("log", "report", "-o", "-", env=env).stdout)
    assert figures_of(everything)["tools"]["edit"] == 1


def test_an_empty_or_missing_log_gives_a_page_that_says_so(sandbox: Sandbox) -> None:
    env = {"POLICY_ENGINE_STATE_DIR": str(sandbox.root / "state")}
    made = sandbox.run("log", "report", env=env)
    assert made.returncode == 0, made.stderr
    page = Page(Path(made.stdout.strip()).read_text())
    assert "No decisions logged." in page.all_text
    assert page.figures["decisions"] == {"": 0}
    assert_inert(page)


def test_damaged_lines_are_skipped_as_the_other_views_skip_them(sandbox: Sandbox) -> None:
    env = write_session_log(sandbox)
    log = Path(env["POLICY_ENGINE_STATE_DIR"]) / "decisions.jsonl"
    clean = sandbox.run("log", "report", "-o", "-", env=env).stdout
    lines = log.read_text().splitlines(keepends=True)
    damage = [
        "not json at all\n",
        '{"event": "decision", "action": "deny", "ts": 5\n',  # torn
        "[1, 2, 3]\n",
        '{"event": "decision", "action": 7, "tool": ["x"], "ts": "soon", "atoms": "no", "decided_by": 3}\n',
        '{"event": "decision", "ts": Infinity, "action": "allow"}\n',
        b"\xff\xfe garbage\n".decode("latin-1"),
        '{"event": "something new"}\n',
    ]
    log.write_text("".join(lines[:3] + damage + lines[3:]))
    damaged = sandbox.run("log", "report", "-o", "-", env=env)
    assert damaged.returncode == 0, damaged.stderr
    page = Page(damaged.stdout)
    assert figures_of(page) == stats_of(sandbox, env)
    assert figures_of(page)["decisions"] == figures_of(Page(clean))["decisions"] + 2
    assert "without a usable time" in page.all_text


def test_report_help_says_where_the_page_goes(sandbox: Sandbox) -> None:
    shown = sandbox.run("log", "report", "--help")
    assert shown.returncode == 0
    assert "report.html in the state directory" in " ".join(shown.stdout.split())
    assert sandbox.run("log", "report", "--min-asks", "0").returncode == 2


# ------------------------------------------------------------------------------- the page, in parts


def decision(ts: float, action: str, command: str = "npm test", **extra: Any) -> dict[str, Any]:
    by = {"layer": "user", "kind": "rule", "policy": "p", "rule": f'{action} bash "npm *"', "at": "/p:1:1"}
    atom = {"command": command, "action": action, "policy": "p", "kind": "rule"}
    return {
        "event": "decision",
        "ts": ts,
        "session": "s",
        "tool_call": f"t{ts}",
        "tool": "bash",
        "command": command,
        "action": action,
        "decided_by": by,
        "atoms": [atom],
        **extra,
    }


@pytest.mark.parametrize(
    ("span", "step"),
    [
        (50 * 60, 60),
        (3 * 3600, 300),
        (2 * 86400, 3600),
        (20 * 86400, 12 * 3600),
        (3 * 365 * 86400, 30 * 86400),
    ],
)
def test_the_time_chart_picks_the_smallest_bucket_that_fits(span: int, step: int) -> None:
    start = 1_700_000_000
    records = [decision(start, "allow"), decision(start + span / 2, "ask"), decision(start + span, "deny")]
    figures = pages.gather(records)
    chosen, buckets = pages.time_buckets(figures.minutes)
    assert chosen == step
    assert 1 < len(buckets) <= 60
    starts = [start for start, _ in buckets]
    assert {b - a for a, b in pairwise(starts)} == {step}, "an empty stretch: an empty bar"
    assert sum((counts for _, counts in buckets), start=pages.Counter()) == {"allow": 1, "ask": 1, "deny": 1}


def test_a_chart_s_scale_fits_its_tallest_bar_with_whole_gridlines() -> None:
    """The scale is a round number, at most a third above the tallest bar (a peak of 10,100 on a
    scale of 20,000 left half the chart empty), with at least one gridline between its ends."""
    for peak in [*range(1, 2_000), *range(2_000, 1_000_000, 997)]:
        scale = pages._nice_ceiling(peak)
        assert peak <= scale <= peak * 4 / 3, (peak, scale)
        ticks = pages._ticks(scale)
        assert ticks[0] == 0 and ticks[-1] == scale and ticks == sorted(set(ticks))
        assert scale == 1 or len(ticks) >= 3, (scale, ticks)


def test_a_span_beyond_every_bucket_still_fits_the_chart() -> None:
    records = [decision(0, "allow"), decision(1e12, "deny")]
    step, buckets = pages.time_buckets(pages.gather(records).minutes)
    assert len(buckets) <= 60 and step > 30 * 86400
    Page(pages.report(records, generated=0, source="log"))  # renders


def test_asks_per_hour_counts_the_hours_that_had_decisions() -> None:
    hour = 3600 * 500_000
    records = [
        decision(hour + 10, "ask"),
        decision(hour + 20, "ask"),
        decision(hour + 30, "allow"),
        decision(hour + 5 * 3600, "allow"),  # an hour with decisions and no ask
        decision(hour + 9 * 3600, "ask"),
    ]
    hours = pages.hourly_asks(pages.gather(records).minutes)
    assert hours == [(hour, 2), (hour + 5 * 3600, 0), (hour + 9 * 3600, 1)]
    text = Page(pages.report(records, generated=0, source="log")).all_text
    assert "1.0asks per hour on average" in text and "3asks in 3 hours with decisions" in text


def test_refused_tools_and_protections_are_counted() -> None:
    protection = {
        "layer": "embedded default",
        "kind": "protection",
        "policy": None,
        "rule": None,
        "at": "/d:71:5",
    }
    records = [
        decision(1, "deny", "rm -rf /"),
        decision(2, "deny", "rm -rf /"),
        {**decision(3, "deny", "cat ~/.ssh/id"), "decided_by": {**protection, "target": "/h/.ssh/id"}},
        {**decision(4, "deny"), "tool": "read", "command": None, "path": "/h/.ssh/k", "atoms": []}
        | {"decided_by": {**protection, "target": "/h/.ssh/k"}},
        decision(5, "allow", "ls"),
    ]
    text = pages.report(records, generated=0, source="log")
    page = Page(text)
    assert "4 calls denied" in page.all_text
    rows = _table_rows(text, "ranking")
    assert rows[0][:2] == ["bash", "3"] and rows[1][:2] == ["read", "1"]
    assert ['p: deny bash "npm *" at /p:1:1', "2"] in [row[:2] for row in rows]
    assert _table_rows(text, "protections") == [
        ["protection at /d:71:5", "2", "deny 2", "/h/.ssh/id ×1/h/.ssh/k ×1"]
    ]


def test_control_characters_and_quotes_are_shown_not_obeyed() -> None:
    nasty = 'echo "\x1b[2J" \u202eevil\u202c \' " > & <'
    records = [
        decision(1, "ask", nasty),
        {**decision(2, '"><script>x</script>'), "tool": "<svg onload=alert(1)>"},
    ]
    text = pages.report(records, generated=0, source='"><script>')
    page = Page(text)
    assert_inert(page)
    assert "\x1b" not in text and "\u202e" not in text
    assert 'echo "\\u001b[2J" \\u202eevil\\u202c \' " > & <' in page.all_text
    assert page.figures["actions"]['"><script>x</script>'] == 1
    assert page.figures["tools"]["<svg onload=alert(1)>"] == 1


def test_the_figures_are_those_of_stats_and_suggest_on_the_same_records() -> None:
    records = [
        decision(100, "ask"),
        {"event": "outcome", "session": "s", "tool_call": "t100", "ran": True},
        decision(200, "ask"),
        {"event": "outcome", "session": "s", "tool_call": "t200", "ran": True},
        decision(300, "deny", breaker="agentTimeout"),
        decision(400, "allow", "ls"),
        {**decision(500, "ask", "make"), "ts": None},
    ]
    page = Page(pages.report(records, generated=0, source="log"))
    stats = logbook.stats(records)
    assert figures_of(page) == {
        key: stats[key] for key in ("decisions", "actions", "tools", "rules", "breakers")
    }
    assert logbook.suggest(records, [])["allow"] == pages.gather(records).asks.allowable()
    assert "1 decision without a usable time" in page.all_text


def _table_rows(text: str, table_class: str | None) -> list[list[str]]:
    """The text of each body cell, row by row, of the tables with this class (None: every table)."""

    class Rows(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.rows: list[list[str]] = []
            self.inside = False
            self.depth = 0
            self.cell: list[str] | None = None

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "table":
                classes = (dict(attrs).get("class") or "").split()
                self.inside = table_class is None or table_class in classes
            elif self.inside and tag == "tr":
                self.rows.append([])
            elif self.inside and tag == "td":
                self.cell = []

        def handle_endtag(self, tag: str) -> None:
            if tag == "td" and self.cell is not None:
                self.rows[-1].append("".join(self.cell).strip())
                self.cell = None
            elif tag == "table":
                self.inside = False

        def handle_data(self, data: str) -> None:
            if self.cell is not None:
                self.cell.append(data)

    parser = Rows()
    parser.feed(text)
    return [row for row in parser.rows if row]
