"""What you let through: policy trust / untrust (whether a project policy file may loosen yours) and
policy approve / approvals / revoke (approvals written to a policy file: ``policy_engine/approvals.py``)."""

from __future__ import annotations

import argparse
import json
import os

from ..errors import ConfigError
from ..sessions import DEFAULT_TTL
from ..tools import canonical_tool
from .common import HelpFormatter, UsageError, add_config_options, engine_for, input_json, tool_call

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from .common import Commands


def _add_trust(commands: Any, name: str, text: str) -> None:
    sub = commands.add_parser(
        name, help=text, description=text[0].upper() + text[1:] + ".", formatter_class=HelpFormatter
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
        name, formatter_class=HelpFormatter, help=text, description=description, epilog=epilog
    )
    add_config_options(parser)
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


def _project_file(directory: str | None) -> tuple[str, str]:
    from ..config.discover import find_project

    start = os.path.abspath(directory or os.getcwd())
    source, _ = find_project(start, os.environ)
    if source is None:
        raise UsageError(f"no project policy file (.policy-engine/policy.jsonc) found from {start} upwards")
    return source.path, start


def run_trust(args: argparse.Namespace) -> int:
    from ..config.compile import load_presets
    from ..config.jsonc import parse
    from ..config.merge import provenance_of
    from ..config.trust import trust
    from ..config.validate import check_local, validate_model

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
    from ..config.trust import untrust

    path, _ = _project_file(args.directory)
    if untrust(os.environ, path):
        print(f"untrusted {os.path.realpath(path)}: it can now only tighten your policy")
    else:
        print(f"{os.path.realpath(path)} was not trusted")
    return 0


def _approval_files(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(scope, file) of the files an approvals command works on."""
    from ..approvals import approval_file, scope_files

    cwd = os.path.abspath(args.cwd or os.getcwd())
    if args.file:
        return [("file", os.path.abspath(args.file))]
    if args.scope:
        return [(args.scope, approval_file(args.scope, cwd, os.environ))]
    if args.config:
        return [("file", os.path.abspath(path)) for path in args.config]
    return scope_files(cwd, os.environ)


def run_approve(args: argparse.Namespace) -> int:
    from ..approvals import add, approval_for

    tool_input = input_json(args.input)
    if args.allow_unanalyzed and args.scope == "project":
        raise UsageError("--allow-unanalyzed is honoured only in your user policy file")
    if args.session is not None:
        return _allow_for_session(args, tool_input)
    engine = engine_for(args)
    # A pattern alone is judged as if it were a command, to find the policy it falls under.
    command = args.command_text if args.command_text is not None else args.pattern
    call = tool_call(args.tool, command, tool_input, engine.cwd)
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
    decision = engine_for(args).evaluate(call)
    print(f"now {decision.action}: {decision.reason}")
    return 0


def _allow_for_session(args: argparse.Namespace, tool_input: Any) -> int:
    """``policy approve --session ID``: the call's asking atoms allowed in that session's state."""
    if args.pattern or args.path or args.allow_unanalyzed:
        raise UsageError(
            "--session allows one exact call: --pattern, --path and --allow-unanalyzed do not apply"
        )
    engine = engine_for(args, recording=True, logged=False)
    call = tool_call(args.tool, args.command_text, tool_input, engine.cwd)._replace(session_id=args.session)
    count = engine.allow_for_session(engine.evaluate(call), ttl=args.ttl)
    if count == 0:
        raise UsageError("nothing in this call asks for approval (a deny cannot be allowed for a session)")
    print(f"allowed for session {args.session} for {args.ttl:g}s: {count} command(s)")
    print(f"now {engine.evaluate(call).action}")
    return 0


def run_approvals(args: argparse.Namespace) -> int:
    from ..approvals import listed_in

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
    from ..approvals import listed_in, remove

    listed = [item for _, file in _approval_files(args) for item in listed_in(file)]
    if not 1 <= args.number <= len(listed):
        raise UsageError(f"there are {len(listed)} approvals; `policy approvals` numbers them")
    item = listed[args.number - 1]
    rule = remove(item.file, item.position, os.environ)
    print(f"revoked in {item.file}: {json.dumps(rule, ensure_ascii=False)}")
    return 0


COMMANDS: Commands = {
    "trust": (
        lambda c: _add_trust(
            c, "trust", "trust the project policy file of DIR: it may then loosen your policy"
        ),
        run_trust,
    ),
    "untrust": (
        lambda c: _add_trust(
            c, "untrust", "stop trusting the project policy file of DIR: it can then only tighten"
        ),
        run_untrust,
    ),
    "approve": (_add_approve, run_approve),
    "approvals": (_add_approvals, run_approvals),
    "revoke": (_add_revoke, run_revoke),
}
