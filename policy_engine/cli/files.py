"""Policy files in CI: policy test (their in-file tests), lint, schema and diff (two versions' decisions)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .common import HelpFormatter, UsageError

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from .common import Commands


def _add_test(commands: Any) -> None:
    test = commands.add_parser(
        "test",
        formatter_class=HelpFormatter,
        help='run the tests written in policy files (their "tests" key)',
        description='Judge every call listed under a policy file\'s "tests" with the whole engine, '
        "against that file alone (over the embedded default it extends), and report each one that does "
        "not get its expected decision. An untrusted project file is judged as it applies now: it can "
        "only make decisions stricter.",
        epilog="exit status: 0 every test passed; 1 a test failed; 3 a file is invalid.",
    )
    test.add_argument("files", nargs="*", metavar="FILE", help="policy files (default: the discovered ones)")
    test.add_argument("--cwd", metavar="DIR", help="where to discover policy files (default: here)")
    test.add_argument("--json", action="store_true", help="print the results as JSON")
    test.add_argument(
        "--assume-trusted",
        action="store_true",
        help="judge an untrusted project file as if it were trusted (as in CI, before `policy trust`)",
    )


def _add_lint(commands: Any) -> None:
    lint = commands.add_parser(
        "lint",
        formatter_class=HelpFormatter,
        help="find mistakes in policy files, and run their tests (for CI)",
        description="Report what the loader rejects (errors), rules and settings that do not do what they "
        'seem to (warnings, silenced with "lintIgnore": ["PE101"] on a rule or a file), and in-file tests '
        "that fail (errors).",
        epilog="On a terminal, a progress bar on stderr while files are linted.\n"
        "exit status: 0 clean; 1 errors (with --strict: or warnings).\n\nwarnings:\n"
        + "\n".join(f"  {id_}  {text}" for id_, text in _lint_rules().items()),
    )
    lint.add_argument("files", nargs="*", metavar="FILE", help="policy files (default: the discovered ones)")
    lint.add_argument(
        "--format", choices=("text", "json", "sarif", "github"), default="text", help="output format"
    )
    lint.add_argument("--strict", action="store_true", help="warnings fail too")
    lint.add_argument("--cwd", metavar="DIR", help="where to discover policy files (default: here)")


def _lint_rules() -> dict[str, str]:
    from ..policyfiles.lint import RULES

    return RULES


def _add_schema(commands: Any) -> None:
    commands.add_parser(
        "schema",
        formatter_class=HelpFormatter,
        help='print the JSON Schema of policy files (for editors: "$schema")',
        description="Print the JSON Schema (draft 2020-12) of policy files; the same file ships in the "
        "package and in the repository's schema/ directory.",
    )


def _add_diff(commands: Any) -> None:
    diff = commands.add_parser(
        "diff",
        formatter_class=HelpFormatter,
        help="the calls whose decision changes between two policy files",
        description="Judge a corpus of tool calls under OLD and under NEW (each file alone) and print every "
        "call whose decision changed, loosening first: what a reviewer of a policy change wants to see.",
        epilog="The corpus: both files' in-file tests, plus --corpus FILE (JSON Lines like `policy check "
        "--batch`, or one bash command per line), else ../shared/corpus/tldr.txt beside the package when it "
        "exists. On a terminal, a progress bar on stderr while the calls are judged.\n"
        "exit status: 0 no change; 1 some decision changed; 3 a file is invalid.",
    )
    diff.add_argument("old", metavar="OLD", help="the policy file before")
    diff.add_argument("new", metavar="NEW", help="the policy file after")
    diff.add_argument("--corpus", metavar="FILE", help="tool calls to judge besides the files' tests")
    diff.add_argument("--json", action="store_true", help="print the changes as JSON")


def run_test(args: argparse.Namespace) -> int:
    from ..policyfiles.filetests import describe, run_file

    files = _policy_files(args)
    results = [
        result for path in files for result in run_file(path, os.environ, assume_trusted=args.assume_trusted)
    ]
    failed = [result for result in results if not result.passed]
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "file": r.file,
                        "line": r.line,
                        "test": r.number + 1,
                        "passed": r.passed,
                        "expected": str(r.expect),
                        "action": str(r.decision.action),
                        "reason": r.decision.reason,
                        "untrusted": r.untrusted,
                    }
                    for r in results
                ],
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        for file in dict.fromkeys(r.file for r in results if r.untrusted):
            print(
                f"{file}: not trusted, so judged as it applies now: it can only make decisions stricter "
                "(once reviewed, `policy trust` lets it decide; --assume-trusted judges it as trusted)"
            )
        for result in failed:
            print(describe(result))
        print(f"{len(results)} tests in {len(files)} files: {len(failed)} failed")
    return 1 if failed else 0


def _policy_files(args: argparse.Namespace) -> list[str]:
    """The files named, else the discovered ones; UsageError when there are none."""
    from ..config.discover import APPROVALS, discover

    cwd = os.path.abspath(args.cwd or os.getcwd())
    files = [os.path.abspath(path) for path in args.files] or [
        s.path for s in discover(cwd, os.environ).sources if s.role != APPROVALS
    ]
    if not files:
        raise UsageError("no policy file given or found")
    return files


def run_lint(args: argparse.Namespace) -> int:
    from ..policyfiles import lint
    from .progress import progress

    files = _policy_files(args)
    with progress("linting", len(files), unit="files") as bar:
        findings = lint.lint(files, os.environ, bar.advance)
    if args.format == "json":
        print(json.dumps(lint.render_json(findings), indent=2, ensure_ascii=False))
    elif args.format == "sarif":
        print(json.dumps(lint.render_sarif(findings, os.getcwd()), indent=2, ensure_ascii=False))
    elif args.format == "github":
        text = lint.render_github(findings)
        if text:
            print(text)
    else:
        print(lint.render_text(findings, len(files)))
    return 1 if lint.failed(findings, args.strict) else 0


def run_schema(args: argparse.Namespace) -> int:
    from ..config.editorschema import schema_text

    sys.stdout.write(schema_text())
    return 0


def run_diff(args: argparse.Namespace) -> int:
    from ..policyfiles import diff as policydiff
    from .progress import progress

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # this file is in cli/
    shared = os.path.join(os.path.dirname(package), "..", "shared", "corpus")
    old, new = os.path.abspath(args.old), os.path.abspath(args.new)
    try:
        calls = policydiff.corpus_calls(old, new, args.corpus, os.path.join(shared, "tldr.txt"), os.environ)
    except (policydiff.CorpusError, OSError) as error:
        raise UsageError(str(error)) from None
    with progress("judging", len(calls), unit="calls") as bar:
        changed = policydiff.changes(old, new, calls, os.environ, bar.advance)
    if args.json:
        print(json.dumps(policydiff.to_json(changed, len(calls)), indent=2, ensure_ascii=False))
    else:
        print(policydiff.render(changed, len(calls)))
    return 1 if changed else 0


COMMANDS: Commands = {
    "test": (_add_test, run_test),
    "lint": (_add_lint, run_lint),
    "schema": (_add_schema, run_schema),
    "diff": (_add_diff, run_diff),
}
