"""policy approve / approvals / revoke: approvals, kept in the approvals store (``config/approvals.py``)
or written into a policy file's approvalRules (``policyfiles/approvals.py``)."""

from __future__ import annotations

import argparse
import json
import os

from ..agents.toolnames import canonical_tool
from ..session.allows import DEFAULT_TTL
from .common import HelpFormatter, UsageError, add_config_options, engine_for, input_json, tool_call

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from .common import Commands


APPROVE_EPILOG = """\
An approval allows one command (exactly as `policy check --explain` shows it) or one file-tool path,
in one policy, and nothing joined to it by ;, && or |. It is kept in the approvals store
($XDG_DATA_HOME/policy-engine/approvals.json), so no policy file changes meaning; --file writes it
into that policy file instead (keeping its comments). It never overrides pathProtection,
self-protection, a managed deny or a more specific deny rule: an approval that could not take
effect is refused with the reason, and one that overrides a deny rule needs --force.

examples:
  policy approve "npm run build"
  policy approve --project "make test"                 # in this project's directory only
  policy approve --pattern "npm run *" --policy work
  policy approve --tool write --path "~/notes/*.md"
  policy approvals
  policy revoke 2
"""


def _add_scope(parser: argparse.ArgumentParser, verb: str) -> None:
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument(
        "--user",
        dest="scope",
        action="store_const",
        const="user",
        help=f"{verb} your approvals, in the approvals store (the default; with --config, the last "
        "file given)",
    )
    scope.add_argument(
        "--project",
        dest="scope",
        action="store_const",
        const="project",
        help=f"{verb} approvals limited to this project's directory (in the approvals store)",
    )
    scope.add_argument("--file", metavar="FILE", help=f"{verb} the approvalRules of this policy file")


def _approvals_parser(
    commands: Any, name: str, text: str, description: str, verb: str, epilog: str | None = None
) -> Any:
    """A parser of the approvals commands: config options and the scope."""
    parser = commands.add_parser(
        name, formatter_class=HelpFormatter, help=text, description=description, epilog=epilog
    )
    add_config_options(parser)
    _add_scope(parser, verb)
    return parser


def _add_approve(commands: Any) -> None:
    approve = _approvals_parser(
        commands,
        "approve",
        "allow one command or file path from now on (kept in the approvals store)",
        "Add an approval: an allow for one command (or a pattern you choose) or one path.",
        "keep it among",
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
        help="also waive what the analysis cannot prove (honoured in your approvals and user file only)",
    )
    approve.add_argument(
        "--force",
        action="store_true",
        help="approve it even though it overrides a deny rule of the policy",
    )
    approve.add_argument("command_text", nargs="?", metavar="COMMAND", help="the bash command to approve")


def _add_approvals(commands: Any) -> None:
    approvals = _approvals_parser(
        commands,
        "approvals",
        "list the approvals: the approvals store's, then those in policy files",
        "List approvals, numbered for `policy revoke`.",
        "list",
    )
    approvals.add_argument("--json", action="store_true", help="print the list as JSON")


def _add_revoke(commands: Any) -> None:
    revoke = _approvals_parser(
        commands,
        "revoke",
        "remove an approval (by its number in `policy approvals`)",
        "Remove approval N, as numbered by `policy approvals` with the same options.",
        "remove from",
    )
    revoke.add_argument("number", type=int, metavar="N", help="the approval's number")


def _listed(args: argparse.Namespace) -> list[Any]:
    """The approvals an approvals command works on: those of ``--file``, else of the ``--config``
    files, else (discovery) the store's and those in the user and project files; ``--user`` and
    ``--project`` keep the store's (the project's: those limited to this project)."""
    from ..config.discover import explicit_paths
    from ..policyfiles.approvals import every_approval, listed_in, project_directory, stored

    cwd = os.path.abspath(args.cwd or os.getcwd())
    if args.file:
        return listed_in(os.path.abspath(args.file))
    explicit = args.config or explicit_paths(os.environ)
    if explicit:
        return [item for path in explicit for item in listed_in(os.path.abspath(path))]
    if args.scope == "user":
        return [item for item in stored(os.environ) if "project" not in item.rule]
    if args.scope == "project":
        directory = project_directory(cwd, os.environ)
        return [item for item in stored(os.environ) if item.rule.get("project") == directory]
    return every_approval(cwd, os.environ)


def run_approve(args: argparse.Namespace) -> int:
    from ..config.discover import EXPLICIT
    from ..policyfiles.approvals import STORE, approval_for, approve, project_directory

    tool_input = input_json(args.input)
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
    explicit = [s.path for s in engine.discovery.sources if s.role == EXPLICIT]
    if args.file:
        target = os.path.abspath(args.file)
    elif explicit:  # --config or POLICY_ENGINE_CONFIG: the store applies only where files are discovered
        target = explicit[-1]
    else:
        target = STORE
    if args.scope == "project":
        if target != STORE:
            raise UsageError(
                "--project keeps the approval in the approvals store; leave out --file and --config"
            )
        rule["project"] = project_directory(engine.cwd, os.environ)
    added, after, moved = approve(
        rule,
        lambda: engine_for(args).evaluate(call),
        target=target,
        env=os.environ,
        force=args.force,
        concrete=args.command_text is not None or call.tool != "bash",
    )
    if moved is not None:
        print(f"moved {moved[1]} approval(s) from {moved[0]} to the approvals store")
    where = "the approvals store" if target == STORE else target
    print(
        f"{'approved in' if added else 'already approved in'} {where}: {json.dumps(rule, ensure_ascii=False)}"
    )
    from .style import for_stdout

    style = for_stdout(refused=getattr(args, "no_color", False))
    print(style.verdict(after.action, after.reason, before="now "))
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
    listed = _listed(args)
    if args.json:
        entries = [
            {"number": n, "file": i.file, "line": i.line, "stored": i.stored, "rule": i.rule}
            for n, i in enumerate(listed, 1)
        ]
        print(json.dumps(entries, indent=2, ensure_ascii=False))
        return 0
    if not listed:
        print("no approvals")
    for number, item in enumerate(listed, 1):
        print(f"{number}. {item.file}:{item.line}: {json.dumps(item.rule, ensure_ascii=False)}")
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    from ..policyfiles.approvals import remove, remove_from_store

    listed = _listed(args)
    if not 1 <= args.number <= len(listed):
        raise UsageError(f"there are {len(listed)} approvals; `policy approvals` numbers them")
    item = listed[args.number - 1]
    if item.stored:
        rule = remove_from_store(os.environ, item.position)
    else:
        rule = remove(item.file, item.position, os.environ)
    print(f"revoked in {item.file}: {json.dumps(rule, ensure_ascii=False)}")
    return 0


COMMANDS: Commands = {
    "approve": (_add_approve, run_approve),
    "approvals": (_add_approvals, run_approvals),
    "revoke": (_add_revoke, run_revoke),
}
