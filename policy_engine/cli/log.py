"""policy log: read the decision log (tail, stats, suggest, report) and record a call's outcome."""

from __future__ import annotations

import argparse
import json
import os

from ..agents.toolnames import canonical_tool
from ..decisionlog.views import MIN_ASKS
from ..model import ToolCall
from .common import HelpFormatter, UsageError, add_config_options, engine_for

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from .common import Commands


LOG_EPILOG = """\
The log is $XDG_STATE_HOME/policy-engine/decisions.jsonl (POLICY_ENGINE_STATE_DIR overrides; rotated
files decisions.jsonl.1 ... are read too). Decisions are logged for calls made in an agent session
(the hook, or `policy check --session`); `"log": false` or POLICY_ENGINE_LOG=0 turns it off.

examples:
  policy log tail --action deny -n 50
  policy log stats --since 7d
  policy log suggest > suggestions.jsonc
  policy log report --since 7d            # an HTML page; prints where it wrote it
"""

REPORT_DESCRIPTION = """\
Write the decision log as one HTML page to open in a browser: decisions over time by action, asks per
hour, the most-asked commands (those approved and run every time are candidates for an allow rule:
see `policy log suggest`), the most-refused tools and rules, and the protections that fired. Its
counts are those of `policy log stats` over the same decisions.

The page is self-contained (no script, no network, nothing fetched) and shows commands as the log
holds them, secrets already masked. It is written, readable by you alone, to report.html in the
state directory next to the log (--output FILE elsewhere, - for stdout), and its path is printed:
a page of the commands your agents ran does not belong in a project's tree.
"""


def _add_log(commands: Any) -> None:
    log = commands.add_parser(
        "log",
        formatter_class=HelpFormatter,
        help="read the decision log: recent decisions, statistics, suggested rules, an HTML report",
        description="Read the decision log.",
        epilog=LOG_EPILOG,
    )
    views = log.add_subparsers(dest="view", metavar="VIEW", required=True)
    tail = views.add_parser("tail", formatter_class=HelpFormatter, help="recent decisions, newest last")
    tail.add_argument("--action", choices=("allow", "nudge", "log", "ask", "deny"), help="only this action")
    tail.add_argument("--session", metavar="ID", help="only this agent session")
    tail.add_argument("--tool", metavar="NAME", help="only this tool (canonical name)")
    tail.add_argument("-n", "--lines", type=int, default=20, metavar="N", help="how many (default 20)")
    stats = views.add_parser("stats", formatter_class=HelpFormatter, help="counts per action, rule and tool")
    stats.add_argument("--since", metavar="AGE", help="only decisions younger than AGE: 30m, 24h, 7d")
    suggest = views.add_parser(
        "suggest",
        formatter_class=HelpFormatter,
        help="allow rules for asks that always ran, and rules that never decided",
        description="Print JSONC to paste: an allow rule for each command that was asked about at least "
        "--min-asks times, ran every time and was never denied; and the rules of the current "
        "configuration that never decided anything (candidates for removal).",
    )
    add_config_options(suggest)
    suggest.add_argument(
        "--min-asks",
        type=int,
        default=MIN_ASKS,
        metavar="N",
        help=f"asked at least N times (default {MIN_ASKS})",
    )
    report = views.add_parser(
        "report",
        formatter_class=HelpFormatter,
        help="the log as one HTML page: charts, most-asked and most-refused, protections",
        description=REPORT_DESCRIPTION,
    )
    report.add_argument("--since", metavar="AGE", help="only decisions younger than AGE: 30m, 24h, 7d")
    report.add_argument(
        "--min-asks",
        type=int,
        default=MIN_ASKS,
        metavar="N",
        help=f"candidates for allow: asked at least N times (default {MIN_ASKS}, as suggest)",
    )
    report.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the page to FILE (- for stdout; default: report.html in the state directory)",
    )
    report.add_argument("--file", metavar="FILE", help="the log file (default: the state directory's)")
    outcome = views.add_parser(
        "outcome", formatter_class=HelpFormatter, help="record whether a judged tool call ran"
    )
    outcome.add_argument("--session", metavar="ID", required=True, help="the agent session")
    outcome.add_argument("--tool-call-id", metavar="ID", required=True, help="the tool call's id")
    outcome.add_argument("--tool", default="bash", help="the tool (default: bash)")
    ran = outcome.add_mutually_exclusive_group(required=True)
    ran.add_argument("--ran", dest="ran", action="store_true", help="the tool ran")
    ran.add_argument("--blocked", dest="ran", action="store_false", help="it did not run")
    for view in (tail, stats, suggest):
        view.add_argument("--json", action="store_true", help="print JSON")
        view.add_argument("--file", metavar="FILE", help="the log file (default: the state directory's)")


def _log_file(args: argparse.Namespace) -> str:
    from ..session.statedir import log_path

    return getattr(args, "file", None) or log_path(os.environ)


def _age(text: str) -> float:
    """Seconds in ``30m``, ``24h``, ``7d`` or a plain number of seconds."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    try:
        if text and text[-1] in units:
            return float(text[:-1]) * units[text[-1]]
        return float(text)
    except ValueError:
        raise UsageError(f"--since {text!r}: use a number with s, m, h or d (30m, 24h, 7d)") from None


def _records(path: str) -> Iterator[dict[str, Any]]:
    """The log's records, with a progress bar by bytes read while a terminal watches (a long log
    takes seconds); the bar is gone before the view prints, once every record is read."""
    from ..decisionlog import writer as audit
    from .progress import progress

    with progress("reading the decision log", audit.size(path), unit="bytes") as bar:
        yield from audit.read(path, advance=bar.advance)


def run_log(args: argparse.Namespace) -> int:
    import time

    from ..decisionlog import views as logbook
    from ..decisionlog import writer as audit

    if args.view == "outcome":
        call = ToolCall(canonical_tool(args.tool), {}, os.getcwd(), args.session, args.tool_call_id)
        from ..explain.report import outcome_record

        problem = audit.append(_log_file(args), outcome_record(call, args.ran))
        if problem is not None:
            raise UsageError(problem)
        return 0
    records = _records(_log_file(args))
    if args.view == "report":
        return _report(args, records, since=time.time() - _age(args.since) if args.since else None)
    if args.view == "tail":
        found = logbook.tail(
            records, action=args.action, session=args.session, tool=args.tool, limit=args.lines
        )
        print(json.dumps(found, indent=2, ensure_ascii=False) if args.json else logbook.render_tail(found))
        return 0
    if args.view == "stats":
        since = time.time() - _age(args.since) if args.since else None
        counted = logbook.stats(records, since=since)
        print(
            json.dumps(counted, indent=2, ensure_ascii=False) if args.json else logbook.render_stats(counted)
        )
        return 0
    engine = engine_for(args)
    rules = [
        (name, rule.label(), str(rule.origin))
        for layer in engine.policy_set.layers
        if not layer.restrict_only
        for name, policy in layer.policies.items()
        for rule in policy.rules
        if rule.preset is None  # a preset's hundreds of patterns are one choice, not rules to prune
    ]
    result = logbook.suggest(records, rules, min_asks=args.min_asks)
    print(
        json.dumps(result, indent=2, ensure_ascii=False) if args.json else logbook.render_suggestions(result)
    )
    return 0


def _report(args: argparse.Namespace, records: Iterator[dict[str, Any]], *, since: float | None) -> int:
    import sys
    import time

    from ..decisionlog.report import report
    from ..fileio import atomic_write
    from ..session.statedir import state_directory

    if args.min_asks < 1:
        raise UsageError("--min-asks: use a number of asks of 1 or more")
    page = report(records, generated=time.time(), source=_log_file(args), since=since, min_asks=args.min_asks)
    if args.output == "-":
        sys.stdout.write(page)
        return 0
    if args.output:
        output = os.path.abspath(args.output)
    else:
        directory = state_directory(os.environ)
        os.makedirs(directory, mode=0o700, exist_ok=True)  # as the log's: for the user's eyes only
        output = os.path.join(directory, "report.html")
    try:
        atomic_write(output, page, mode=0o600)  # the commands and paths of every logged call
    except OSError as error:
        raise UsageError(f"cannot write {output}: {error.strerror or error}") from None
    print(output)
    return 0


COMMANDS: Commands = {"log": (_add_log, run_log)}
