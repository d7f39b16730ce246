"""The ``policy`` command: check a tool call, show the configuration, trust a project file."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from .errors import ApprovalError, ConfigError
from .model import Action, ToolCall
from .sessions import DEFAULT_TTL
from .tools import canonical_tool
from .version import __version__

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .engine import Engine

EXIT_USAGE = 2
EXIT_CONFIG = 3
EXIT_FOR_ACTION = {Action.ALLOW: 0, Action.NUDGE: 0, Action.LOG: 0, Action.ASK: 10, Action.DENY: 20}

CHECK_EPILOG = """\
exit status: 0 allow, nudge or log; 10 ask; 20 deny; 2 usage error; 3 configuration error.
With --batch, each input line is a JSON request {"tool", "command" or "input", "cwd"} (with
--session, also "session", "tool_call_id", "agent") and each output line the JSON result; the exit
status is 0, or 2 if a line could not be read.

examples:
  policy check "rm -rf build"
  policy check --tool write --input '{"file_path": "/etc/hosts"}'
  policy check --config examples/sample.jsonc --cwd /home/user/work --json "git push --force"
  policy check --session s1 --tool-call-id t7 "rm -rf build"   # counted, logged
"""


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, minus its ``import shutil`` (a few ms on every run, help or not)."""

    def __init__(self, prog: str) -> None:
        try:
            columns = int(os.environ["COLUMNS"])
        except (KeyError, ValueError):
            try:
                columns = os.get_terminal_size().columns
            except OSError:
                columns = 80
        super().__init__(prog, width=columns - 2)


class UsageError(Exception):
    """A command line that cannot be acted on (exit status 2)."""


def _add_config_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        action="append",
        metavar="FILE",
        help="policy file to use instead of user and project discovery (repeatable; later files "
        "merge over earlier ones). Default: $POLICY_ENGINE_CONFIG, else discovery",
    )
    parser.add_argument(
        "--cwd", metavar="DIR", help="the agent's working directory (default: the current one)"
    )


def _add_check(commands: Any) -> None:
    check = commands.add_parser(
        "check",
        formatter_class=_HelpFormatter,
        help="judge a tool call (a dry run: nothing is executed)",
        description="Judge one tool call (default: a bash command) and say why.",
        epilog=CHECK_EPILOG,
    )
    _add_config_options(check)
    check.add_argument("--tool", default="bash", help="tool name, canonical or an agent's (default: bash)")
    check.add_argument(
        "--input", metavar="JSON", help='the tool input as a JSON object, e.g. \'{"file_path": "x"}\''
    )
    check.add_argument("--json", action="store_true", help="print the decision as one JSON object")
    check.add_argument(
        "--explain", action="store_true", help="also show the atoms, their accesses, doubts and verdicts"
    )
    check.add_argument("--batch", metavar="FILE", help="read JSONL requests from FILE (- for stdin)")
    check.add_argument(
        "--mode",
        choices=("enforce", "inform", "ignore"),
        help="enforce (default) applies decisions; inform and ignore report them, and only "
        "pathProtection and managed denies block (default: POLICY_ENGINE_MODE, then the config's mode)",
    )
    check.add_argument(
        "--session",
        metavar="ID",
        help="judge the call as one of this agent session's: its session allows and circuit breakers "
        "apply (kept in the state store), and the decision is logged. Without it, a dry run records nothing",
    )
    check.add_argument("--tool-call-id", metavar="ID", help="the agent's id of the tool call (logged)")
    check.add_argument("--agent", metavar="NAME", help="the agent that made the call (logged)")
    check.add_argument("command_text", nargs="?", metavar="COMMAND", help="the bash command to judge")


def _add_config(commands: Any) -> None:
    config = commands.add_parser(
        "config",
        formatter_class=_HelpFormatter,
        aliases=["status"],
        help="show which policy files apply, their layers and trust",
        description="Show where policy files were looked for, which were found, how they are layered "
        "and trusted, and whether they are valid.",
    )
    _add_config_options(config)
    config.add_argument("--json", action="store_true", help="print the report as JSON")


def _add_trust(commands: Any, name: str, text: str) -> None:
    sub = commands.add_parser(
        name, help=text, description=text[0].upper() + text[1:] + ".", formatter_class=_HelpFormatter
    )
    sub.add_argument(
        "directory", nargs="?", metavar="DIR", help="project directory (default: the current one)"
    )


APPROVE_EPILOG = """\
An approval allows one command (exactly as `policy check --explain` shows it) or one file-tool path,
in one policy, and nothing joined to it by ;, && or |. It never overrides pathProtection,
self-protection, a managed deny or a more specific deny rule. The file keeps its comments.

examples:
  policy approve "npm run build"
  policy approve --pattern "npm run *" --policy work
  policy approve --tool write --path "~/notes/*.md"
  policy approvals
  policy revoke 2
"""


def _add_scope(parser: argparse.ArgumentParser) -> None:
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument(
        "--user",
        dest="scope",
        action="store_const",
        const="user",
        help="your user policy file (the default; with --config, the last file given)",
    )
    scope.add_argument(
        "--project",
        dest="scope",
        action="store_const",
        const="project",
        help="the trusted project policy file",
    )
    scope.add_argument("--file", metavar="FILE", help="this policy file")


def _approvals_parser(
    commands: Any, name: str, text: str, description: str, epilog: str | None = None
) -> Any:
    """A parser of the approvals commands: config options and the file scope."""
    parser = commands.add_parser(
        name, formatter_class=_HelpFormatter, help=text, description=description, epilog=epilog
    )
    _add_config_options(parser)
    _add_scope(parser)
    return parser


def _add_approve(commands: Any) -> None:
    approve = _approvals_parser(
        commands,
        "approve",
        "allow one command or file path from now on (written to a policy file)",
        "Add an approval: an allow for one command (or a pattern you choose) or one path.",
        APPROVE_EPILOG,
    )
    approve.add_argument("--tool", default="bash", help="tool name, canonical or an agent's (default: bash)")
    approve.add_argument("--input", metavar="JSON", help="the tool input as a JSON object")
    approve.add_argument(
        "--pattern", metavar="GLOB", help="approve every command matching GLOB (* any characters)"
    )
    approve.add_argument("--path", metavar="PATH", help="for a file tool: the path or path glob approved")
    approve.add_argument(
        "--policy", metavar="NAME", help="the policy it applies to (default: the one judging it)"
    )
    approve.add_argument(
        "--session",
        metavar="ID",
        help="allow the exact command (or call) for this agent session only, in the state store, "
        "instead of writing an approval",
    )
    approve.add_argument(
        "--ttl",
        type=float,
        default=DEFAULT_TTL,
        metavar="SECONDS",
        help="with --session: how long (default 12 h)",
    )
    approve.add_argument(
        "--allow-unanalyzed",
        action="store_true",
        help="also waive what the analysis cannot prove (honoured in your user file only)",
    )
    approve.add_argument("command_text", nargs="?", metavar="COMMAND", help="the bash command to approve")


def _add_approvals(commands: Any) -> None:
    approvals = _approvals_parser(
        commands,
        "approvals",
        "list the approvals of your user and project policy files",
        "List approvals, numbered for `policy revoke`.",
    )
    approvals.add_argument("--json", action="store_true", help="print the list as JSON")


def _add_revoke(commands: Any) -> None:
    revoke = _approvals_parser(
        commands,
        "revoke",
        "remove an approval (by its number in `policy approvals`)",
        "Remove approval N, as numbered by `policy approvals` with the same options.",
    )
    revoke.add_argument("number", type=int, metavar="N", help="the approval's number")


LOG_EPILOG = """\
The log is $XDG_STATE_HOME/policy-engine/decisions.jsonl (POLICY_ENGINE_STATE_DIR overrides; rotated
files decisions.jsonl.1 ... are read too). Decisions are logged for calls made in an agent session
(the hook, or `policy check --session`); `"log": false` or POLICY_ENGINE_LOG=0 turns it off.

examples:
  policy log tail --action deny -n 50
  policy log stats --since 7d
  policy log suggest > suggestions.jsonc
"""


def _add_log(commands: Any) -> None:
    log = commands.add_parser(
        "log",
        formatter_class=_HelpFormatter,
        help="read the decision log: recent decisions, statistics, suggested rules",
        description="Read the decision log.",
        epilog=LOG_EPILOG,
    )
    views = log.add_subparsers(dest="view", metavar="VIEW", required=True)
    tail = views.add_parser("tail", formatter_class=_HelpFormatter, help="recent decisions, newest last")
    tail.add_argument("--action", choices=("allow", "nudge", "log", "ask", "deny"), help="only this action")
    tail.add_argument("--session", metavar="ID", help="only this agent session")
    tail.add_argument("--tool", metavar="NAME", help="only this tool (canonical name)")
    tail.add_argument("-n", "--lines", type=int, default=20, metavar="N", help="how many (default 20)")
    stats = views.add_parser("stats", formatter_class=_HelpFormatter, help="counts per action, rule and tool")
    stats.add_argument("--since", metavar="AGE", help="only decisions younger than AGE: 30m, 24h, 7d")
    suggest = views.add_parser(
        "suggest",
        formatter_class=_HelpFormatter,
        help="allow rules for asks that always ran, and rules that never decided",
        description="Print JSONC to paste: an allow rule for each command that was asked about at least "
        "--min-asks times, ran every time and was never denied; and the rules of the current "
        "configuration that never decided anything (candidates for removal).",
    )
    _add_config_options(suggest)
    suggest.add_argument(
        "--min-asks", type=int, default=2, metavar="N", help="asked at least N times (default 2)"
    )
    outcome = views.add_parser(
        "outcome", formatter_class=_HelpFormatter, help="record whether a judged tool call ran"
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


HOOK_EPILOG = """\
Reads the agent's hook payload on stdin and answers in its protocol: Claude Code (PreToolUse,
PostToolUse), Codex (PreToolUse; an ask blocks, since Codex cannot ask), Gemini CLI (BeforeTool,
AfterTool; an ask blocks), Cursor (beforeShellExecution, beforeReadFile, beforeMCPExecution),
GitHub Copilot CLI (preToolUse, postToolUse), pi (integrations/pi). Anything that goes wrong blocks
the call (exit 2, the reason on stderr) unless the policy says "onError": "allow".
POLICY_ENGINE_HOOK_TIMEOUT (seconds, default 20) bounds the time it takes.
"""


def _add_serve(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        formatter_class=_HelpFormatter,
        help="answer hook calls from a daemon (started on demand by the first hook call)",
        description="Serve hook calls on a unix socket in the state directory, with the engine loaded: "
        "a hook call then costs little more than starting Python. The first hook call starts it; "
        "POLICY_ENGINE_DAEMON=0 turns that off.",
    )
    serve.add_argument(
        "--idle", type=float, default=1800, metavar="SECONDS", help="leave after this long unused"
    )
    serve.add_argument("--stop", action="store_true", help="stop the running daemon")


def _add_install(commands: Any, name: str, text: str) -> None:
    from .install import AGENTS

    parser = commands.add_parser(
        name, formatter_class=_HelpFormatter, help=text, description=text[0].upper() + text[1:] + "."
    )
    if name == "doctor":
        parser.add_argument(
            "--agent", action="append", choices=AGENTS, help="check this agent (repeatable; default: all)"
        )
    else:
        parser.add_argument("--agent", required=True, choices=AGENTS, help="the agent")
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument(
        "--user", dest="scope", action="store_const", const="user", help="the user's settings (default)"
    )
    scope.add_argument(
        "--project",
        dest="scope",
        action="store_const",
        const="project",
        help="the project's settings (in --cwd)",
    )
    parser.add_argument("--cwd", metavar="DIR", help="the project directory (default: the current one)")


def _add_lint(commands: Any) -> None:
    lint = commands.add_parser(
        "lint",
        formatter_class=_HelpFormatter,
        help="find mistakes in policy files, and run their tests (for CI)",
        description="Report what the loader rejects (errors), rules and settings that do not do what they "
        'seem to (warnings, silenced with "lintIgnore": ["PE101"] on a rule or a file), and in-file tests '
        "that fail (errors).",
        epilog="exit status: 0 clean; 1 errors (with --strict: or warnings).\n\nwarnings:\n"
        + "\n".join(f"  {id_}  {text}" for id_, text in _lint_rules().items()),
    )
    lint.add_argument("files", nargs="*", metavar="FILE", help="policy files (default: the discovered ones)")
    lint.add_argument(
        "--format", choices=("text", "json", "sarif", "github"), default="text", help="output format"
    )
    lint.add_argument("--strict", action="store_true", help="warnings fail too")
    lint.add_argument("--cwd", metavar="DIR", help="where to discover policy files (default: here)")


def _lint_rules() -> dict[str, str]:
    from .lint import RULES

    return RULES


def _add_diff(commands: Any) -> None:
    diff = commands.add_parser(
        "diff",
        formatter_class=_HelpFormatter,
        help="the calls whose decision changes between two policy files",
        description="Judge a corpus of tool calls under OLD and under NEW (each file alone) and print every "
        "call whose decision changed, loosening first: what a reviewer of a policy change wants to see.",
        epilog="The corpus: both files' in-file tests, plus --corpus FILE (JSON Lines like `policy check "
        "--batch`, or one bash command per line), else ../shared/corpus/tldr.txt beside the package when it "
        "exists.\nexit status: 0 no change; 1 some decision changed; 3 a file is invalid.",
    )
    diff.add_argument("old", metavar="OLD", help="the policy file before")
    diff.add_argument("new", metavar="NEW", help="the policy file after")
    diff.add_argument("--corpus", metavar="FILE", help="tool calls to judge besides the files' tests")
    diff.add_argument("--json", action="store_true", help="print the changes as JSON")


def _add_schema(commands: Any) -> None:
    commands.add_parser(
        "schema",
        formatter_class=_HelpFormatter,
        help='print the JSON Schema of policy files (for editors: "$schema")',
        description="Print the JSON Schema (draft 2020-12) of policy files; the same file ships in the "
        "package and in the repository's schema/ directory.",
    )


def _add_test(commands: Any) -> None:
    test = commands.add_parser(
        "test",
        formatter_class=_HelpFormatter,
        help='run the tests written in policy files (their "tests" key)',
        description='Judge every call listed under a policy file\'s "tests" with the whole engine, '
        "against that file alone, and report each one that does not get its expected decision.",
        epilog="exit status: 0 every test passed; 1 a test failed; 3 a file is invalid.",
    )
    test.add_argument("files", nargs="*", metavar="FILE", help="policy files (default: the discovered ones)")
    test.add_argument("--cwd", metavar="DIR", help="where to discover policy files (default: here)")
    test.add_argument("--json", action="store_true", help="print the results as JSON")


def _add_hook(commands: Any) -> None:
    from .adapters import AGENTS

    hook = commands.add_parser(
        "hook",
        formatter_class=_HelpFormatter,
        help="answer an agent's pre-tool-call hook (reads its payload on stdin)",
        description="Judge the tool call an agent's hook payload describes, and answer in its protocol.",
        epilog=HOOK_EPILOG,
    )
    hook.add_argument("--agent", required=True, choices=AGENTS, help="the agent whose protocol to speak")


_COMMANDS: dict[str, Any] = {
    "check": _add_check,
    "config": _add_config,
    "trust": lambda c: _add_trust(
        c, "trust", "trust the project policy file of DIR: it may then loosen your policy"
    ),
    "untrust": lambda c: _add_trust(
        c, "untrust", "stop trusting the project policy file of DIR: it can then only tighten"
    ),
    "approve": _add_approve,
    "approvals": _add_approvals,
    "revoke": _add_revoke,
    "log": _add_log,
    "hook": _add_hook,
    "test": _add_test,
    "lint": _add_lint,
    "schema": _add_schema,
    "diff": _add_diff,
    "serve": _add_serve,
    "install": lambda c: _add_install(c, "install", "add the policy hook to an agent's settings"),
    "uninstall": lambda c: _add_install(c, "uninstall", "remove the policy hook from an agent's settings"),
    "doctor": lambda c: _add_install(
        c, "doctor", "check that the hook is installed and answers, and say what to fix"
    ),
}
_ALIASES = {"status": "config"}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, just that command's (every run pays for what it builds)."""
    parser = argparse.ArgumentParser(
        prog="policy",
        formatter_class=_HelpFormatter,
        description="Declarative, location-scoped allow / nudge / log / ask / deny for AI agent tool calls.",
    )
    parser.add_argument("--version", action="version", version=f"policy-engine {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, add in _COMMANDS.items():
        if only is None or name == only:
            add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in arguments if not a.startswith("-")), None)
    command = _ALIASES.get(first or "", first)
    args = build_parser(command if command in _COMMANDS else None).parse_args(arguments)
    handlers = {
        "check": run_check,
        "config": run_config,
        "status": run_config,
        "trust": run_trust,
        "untrust": run_untrust,
        "approve": run_approve,
        "approvals": run_approvals,
        "revoke": run_revoke,
        "log": run_log,
        "hook": run_hook,
        "test": run_test,
        "lint": run_lint,
        "schema": run_schema,
        "diff": run_diff,
        "serve": run_serve,
        "install": run_install,
        "uninstall": run_install,
        "doctor": run_doctor,
    }
    try:
        return handlers[args.command](args)
    except UsageError as error:
        print(f"policy {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ApprovalError as error:
        print(f"policy {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ConfigError as error:
        if getattr(args, "json", False):
            print(json.dumps({"error": "config", "problems": [str(p) for p in error.problems]}, indent=2))
        print(error.render(), file=sys.stderr)
        return EXIT_CONFIG


def _engine(args: argparse.Namespace, *, recording: bool = False, logged: bool = True) -> Engine:
    """The engine for a command; ``recording``: with the state store (and, if ``logged``, the
    decision log) on disk."""
    mode = getattr(args, "mode", None)
    if not recording:
        from .engine import Engine

        return Engine(args.config, cwd=args.cwd, mode=mode)
    from .hook import recording_engine

    return recording_engine(args.config, args.cwd, os.environ, mode=mode, logged=logged)


def _tool_call(tool: str, command: str | None, tool_input: Any, cwd: str) -> ToolCall:
    """A ToolCall from the parts of a request; UsageError says what is missing."""
    if tool_input is None:
        tool_input = {}
    if not isinstance(tool_input, dict):
        raise UsageError("the tool input must be a JSON object")
    if command is not None:
        tool_input = {**tool_input, "command": command}
    if tool in ("bash", "Bash", "run_shell_command") and not isinstance(tool_input.get("command"), str):
        raise UsageError("a bash check needs a COMMAND (or an input with a command)")
    return ToolCall(tool, tool_input, cwd)


def _in_session(call: ToolCall, args: argparse.Namespace, request: dict[str, Any]) -> ToolCall:
    """The call with the session, tool-call id and agent of ``--session`` and its siblings (a batch
    request's own "session", "tool_call_id" and "agent" win); none without ``--session``."""
    if args.session is None:
        return call
    fields = {
        "session_id": request.get("session", args.session),
        "tool_call_id": request.get("tool_call_id", args.tool_call_id),
        "agent": request.get("agent", args.agent),
    }
    if not all(value is None or isinstance(value, str) for value in fields.values()):
        raise UsageError("session, tool_call_id and agent must be strings")
    return call._replace(**fields)


def _input_json(text: str | None) -> Any:
    """The ``--input`` option's JSON value (None when absent)."""
    try:
        return json.loads(text) if text is not None else None
    except ValueError as error:
        raise UsageError(f"--input is not valid JSON: {error}") from None


def run_check(args: argparse.Namespace) -> int:
    from .report import decision_json, explain

    if args.batch is not None:
        if args.command_text is not None or args.input is not None:
            raise UsageError("--batch takes its requests from the file, not from COMMAND or --input")
        return _run_batch(args)
    tool_input = _input_json(args.input)
    engine = _engine(args, recording=args.session is not None)
    call = _tool_call(args.tool, args.command_text, tool_input, engine.cwd)
    decision = engine.evaluate(_in_session(call, args, {}))
    if args.json:
        print(json.dumps(decision_json(decision), indent=2, ensure_ascii=False))
    else:
        print(f"{decision.action}: {decision.reason}")
        if decision.message:
            print(f"message: {decision.message}")
        if args.explain:
            print(explain(decision))
    return EXIT_FOR_ACTION[decision.action]


def _run_batch(args: argparse.Namespace) -> int:
    from .report import decision_json

    engine = _engine(args, recording=args.session is not None)
    status = 0
    stream = sys.stdin if args.batch == "-" else open(args.batch, encoding="utf-8")  # noqa: SIM115
    with stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise UsageError("a request must be a JSON object")
                cwd = request.get("cwd") or engine.cwd
                if not isinstance(cwd, str):
                    raise UsageError("cwd must be a string")
                call = _tool_call(
                    str(request.get("tool", "bash")), request.get("command"), request.get("input"), cwd
                )
                result = decision_json(engine.evaluate(_in_session(call, args, request)))
            except (ValueError, UsageError) as error:
                result, status = {"error": f"line {number}: {error}"}, EXIT_USAGE
            print(json.dumps(result, ensure_ascii=False), flush=False)
    return status


def run_config(args: argparse.Namespace) -> int:
    from .config.discover import PROJECT, discover
    from .config.trust import read_store, recorded_digest

    cwd = os.path.abspath(args.cwd or os.getcwd())
    discovery = discover(cwd, os.environ, [os.fspath(p) for p in args.config or []])
    store = read_store(os.environ)
    files = []
    for source in discovery.sources:
        entry: dict[str, Any] = {"role": source.role, "path": source.path, "format": source.flavor}
        if source.role == PROJECT:
            entry["trust"] = _trust_state(source.path, recorded_digest(store, source.path))
        files.append(entry)
    report: dict[str, Any] = {"cwd": cwd, "searched": list(discovery.searched), "files": files}
    status = 0
    try:
        from .engine import Engine

        engine = Engine(args.config, cwd=cwd)
        report["layers"] = [
            {
                "name": layer.name,
                "restrict_only": layer.restrict_only,
                "files": list(layer.files),
                "policies": sorted(layer.policies),
            }
            for layer in engine.policy_set.layers
        ]
        report["project_root"] = engine.policy_set.project_root or cwd
    except ConfigError as error:
        report["problems"] = [str(p) for p in error.problems]
        status = EXIT_CONFIG
    if args.json:
        print(json.dumps(report, indent=2))
        return status
    print(f"working directory: {cwd}")
    print("searched:")
    print("\n".join(f"  {line}" for line in discovery.searched))
    for entry in files:
        trust = f" — {entry['trust']}" if "trust" in entry else ""
        print(f"{entry['role']}: {entry['path']} ({entry['format']} format){trust}")
    for layer in report.get("layers", []):
        kind = "can only tighten" if layer["restrict_only"] else "decides"
        print(f"layer {layer['name']} ({kind}): {', '.join(layer['files'])}")
        print(f"  policies: {', '.join(layer['policies']) or 'none'}")
    if "problems" in report:
        print("invalid configuration:")
        print("\n".join(f"  {p}" for p in report["problems"]))
    return status


def _trust_state(path: str, recorded: str | None) -> str:
    from .config.trust import digest

    if recorded is None:
        return (
            "untrusted: never trusted (it can only tighten your policy; run `policy trust` to let it loosen)"
        )
    with open(path, encoding="utf-8") as handle:
        current = digest(handle.read())
    if current != recorded:
        return "untrusted: changed since it was trusted (review it, then run `policy trust` again)"
    return "trusted: its content matches what `policy trust` recorded"


def _project_file(directory: str | None) -> tuple[str, str]:
    from .config.discover import find_project

    start = os.path.abspath(directory or os.getcwd())
    source, _ = find_project(start, os.environ)
    if source is None:
        raise UsageError(f"no project policy file (.policy-engine/policy.jsonc) found from {start} upwards")
    return source.path, start


def run_trust(args: argparse.Namespace) -> int:
    from .config.compile import load_presets
    from .config.jsonc import parse
    from .config.merge import provenance_of
    from .config.trust import trust
    from .config.validate import check_local, validate_model

    path, _ = _project_file(args.directory)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    document = parse(text, path)
    where = provenance_of(document)
    problems = validate_model(document.data, where, partial=True)[1] + check_local(
        document.data, where, load_presets()
    )
    if problems:
        raise ConfigError(problems)
    real = trust(os.environ, path, text)
    print(f"trusted {real}: it now merges over your user policy (any edit makes it untrusted again)")
    return 0


def run_untrust(args: argparse.Namespace) -> int:
    from .config.trust import untrust

    path, _ = _project_file(args.directory)
    if untrust(os.environ, path):
        print(f"untrusted {os.path.realpath(path)}: it can now only tighten your policy")
    else:
        print(f"{os.path.realpath(path)} was not trusted")
    return 0


def _approval_files(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(scope, file) of the files an approvals command works on."""
    from .approvals import approval_file, scope_files

    cwd = os.path.abspath(args.cwd or os.getcwd())
    if args.file:
        return [("file", os.path.abspath(args.file))]
    if args.scope:
        return [(args.scope, approval_file(args.scope, cwd, os.environ))]
    if args.config:
        return [("file", os.path.abspath(path)) for path in args.config]
    return scope_files(cwd, os.environ)


def run_approve(args: argparse.Namespace) -> int:
    from .approvals import add, approval_for

    tool_input = _input_json(args.input)
    if args.allow_unanalyzed and args.scope == "project":
        raise UsageError("--allow-unanalyzed is honoured only in your user policy file")
    if args.session is not None:
        return _allow_for_session(args, tool_input)
    engine = _engine(args)
    # A pattern alone is judged as if it were a command, to find the policy it falls under.
    command = args.command_text if args.command_text is not None else args.pattern
    call = _tool_call(args.tool, command, tool_input, engine.cwd)
    call = call._replace(tool=canonical_tool(call.tool))
    rule = approval_for(
        engine,
        call,
        policy=args.policy,
        pattern=args.pattern,
        path=args.path,
        allow_unanalyzed=args.allow_unanalyzed,
    )
    if not (args.scope or args.file or args.config):
        args.scope = "user"
    *_, (_, file) = _approval_files(args)  # with --config: the last file given
    added = add(file, rule, os.environ)
    print(f"{'approved' if added else 'already approved'} in {file}: {json.dumps(rule, ensure_ascii=False)}")
    decision = _engine(args).evaluate(call)
    print(f"now {decision.action}: {decision.reason}")
    return 0


def _allow_for_session(args: argparse.Namespace, tool_input: Any) -> int:
    """``policy approve --session ID``: the call's asking atoms allowed in that session's state."""
    if args.pattern or args.path or args.allow_unanalyzed:
        raise UsageError(
            "--session allows one exact call: --pattern, --path and --allow-unanalyzed do not apply"
        )
    engine = _engine(args, recording=True, logged=False)
    call = _tool_call(args.tool, args.command_text, tool_input, engine.cwd)._replace(session_id=args.session)
    count = engine.allow_for_session(engine.evaluate(call), ttl=args.ttl)
    if count == 0:
        raise UsageError("nothing in this call asks for approval (a deny cannot be allowed for a session)")
    print(f"allowed for session {args.session} for {args.ttl:g}s: {count} command(s)")
    print(f"now {engine.evaluate(call).action}")
    return 0


def run_approvals(args: argparse.Namespace) -> int:
    from .approvals import listed_in

    listed = [item for _, file in _approval_files(args) for item in listed_in(file)]
    if args.json:
        entries = [
            {"number": n, "file": i.file, "line": i.line, "rule": i.rule} for n, i in enumerate(listed, 1)
        ]
        print(json.dumps(entries, indent=2, ensure_ascii=False))
        return 0
    if not listed:
        print("no approvals")
    for number, item in enumerate(listed, 1):
        print(f"{number}. {item.file}:{item.line}: {json.dumps(item.rule, ensure_ascii=False)}")
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    from .approvals import listed_in, remove

    listed = [item for _, file in _approval_files(args) for item in listed_in(file)]
    if not 1 <= args.number <= len(listed):
        raise UsageError(f"there are {len(listed)} approvals; `policy approvals` numbers them")
    item = listed[args.number - 1]
    rule = remove(item.file, item.position, os.environ)
    print(f"revoked in {item.file}: {json.dumps(rule, ensure_ascii=False)}")
    return 0


def _log_file(args: argparse.Namespace) -> str:
    from .statedir import log_path

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


def run_log(args: argparse.Namespace) -> int:
    import time

    from . import audit, logbook

    if args.view == "outcome":
        call = ToolCall(canonical_tool(args.tool), {}, os.getcwd(), args.session, args.tool_call_id)
        from .report import outcome_record

        problem = audit.append(_log_file(args), outcome_record(call, args.ran))
        if problem is not None:
            raise UsageError(problem)
        return 0
    records = audit.read(_log_file(args))
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
    engine = _engine(args)
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


def run_hook(args: argparse.Namespace) -> int:
    from .client import hook

    return hook(args.agent, os.environ)


def run_serve(args: argparse.Namespace) -> int:
    from . import daemon

    if args.stop:
        print("stopped" if daemon.stop(os.environ) else "no daemon was running")
        return 0
    return daemon.main(os.environ, args.idle)


def run_install(args: argparse.Namespace) -> int:
    from . import install

    cwd = os.path.abspath(args.cwd or os.getcwd())
    change = install.install if args.command == "install" else install.uninstall
    try:
        result = change(args.agent, args.scope or "user", cwd, os.environ)
    except ValueError as error:
        raise UsageError(str(error)) from None
    done = {"install": "installed in", "uninstall": "removed from"}[args.command]
    print(f"{done if result.changed else 'nothing to change in'} {result.path}")
    if result.backup:
        print(f"backup: {result.backup}")
    return 0


def run_doctor(args: argparse.Namespace) -> int:
    from . import install

    cwd = os.path.abspath(args.cwd or os.getcwd())
    try:
        checks = install.doctor(args.agent or list(install.AGENTS), args.scope or "user", cwd, os.environ)
    except ValueError as error:
        raise UsageError(str(error)) from None
    for check in checks:
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
        if not check.ok and check.fix:
            print(f"     fix: {check.fix}")
    return 0 if all(check.ok for check in checks) else 1


def run_test(args: argparse.Namespace) -> int:
    from .filetests import describe, run_file

    files = _policy_files(args)
    results = [result for path in files for result in run_file(path, os.environ)]
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
                    }
                    for r in results
                ],
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        for result in failed:
            print(describe(result))
        print(f"{len(results)} tests in {len(files)} files: {len(failed)} failed")
    return 1 if failed else 0


def _policy_files(args: argparse.Namespace) -> list[str]:
    """The files named, else the discovered ones; UsageError when there are none."""
    from .config.discover import discover

    cwd = os.path.abspath(args.cwd or os.getcwd())
    files = [os.path.abspath(path) for path in args.files] or [
        s.path for s in discover(cwd, os.environ).sources
    ]
    if not files:
        raise UsageError("no policy file given or found")
    return files


def run_lint(args: argparse.Namespace) -> int:
    from . import lint

    files = _policy_files(args)
    findings = lint.lint(files, os.environ)
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
    from .config.jsonschema import schema_text

    sys.stdout.write(schema_text())
    return 0


def run_diff(args: argparse.Namespace) -> int:
    from . import policydiff

    shared = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "corpus"
    )
    old, new = os.path.abspath(args.old), os.path.abspath(args.new)
    try:
        calls = policydiff.corpus_calls(old, new, args.corpus, os.path.join(shared, "tldr.txt"), os.environ)
    except (policydiff.CorpusError, OSError) as error:
        raise UsageError(str(error)) from None
    changed = policydiff.changes(old, new, calls, os.environ)
    if args.json:
        print(json.dumps(policydiff.to_json(changed, len(calls)), indent=2, ensure_ascii=False))
    else:
        print(policydiff.render(changed, len(calls)))
    return 1 if changed else 0
