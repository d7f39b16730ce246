"""policy check (judge a tool call) and policy config (alias status: which policy files apply)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..errors import ConfigError
from ..model import Action
from .common import (
    EXIT_CONFIG,
    EXIT_FOR_ACTION,
    EXIT_USAGE,
    HelpFormatter,
    UsageError,
    add_config_options,
    engine_for,
    input_json,
    tool_call,
)

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from ..model import ToolCall
    from .common import Commands
    from .style import Style


CHECK_EPILOG = """\
exit status: 0 allow, nudge or log; 10 ask; 20 deny; 2 usage error; 3 configuration error.
With --batch, each input line is a JSON request {"tool", "command" or "input", "cwd"} (with
--session, also "session", "tool_call_id", "agent") and each output line the JSON result; the exit
status is 0, or 2 if a line could not be read.
A call (each line of a batch) that takes longer than $POLICY_ENGINE_HOOK_TIMEOUT seconds (default
20, as for a hook) to judge is denied, as the hook refuses it, with a reason naming the limit.

examples:
  policy check "rm -rf build"
  policy check --tool write --input '{"file_path": "/etc/hosts"}'
  policy check --config examples/sample.jsonc --cwd /home/user/work --json "git push --force"
  policy check --session s1 --tool-call-id t7 "rm -rf build"   # counted, logged
"""


def _add_check(commands: Any) -> None:
    check = commands.add_parser(
        "check",
        formatter_class=HelpFormatter,
        help="judge a tool call (a dry run: nothing is executed)",
        description="Judge one tool call (default: a bash command) and say why.",
        epilog=CHECK_EPILOG,
    )
    add_config_options(check)
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
    check.add_argument(
        "--agent",
        metavar="NAME",
        help="the agent that made the call (logged; what it can do changes some verdicts: a sandboxed "
        "allow asks under an agent whose hook cannot change a command)",
    )
    check.add_argument("command_text", nargs="?", metavar="COMMAND", help="the bash command to judge")


def _add_config(commands: Any) -> None:
    config = commands.add_parser(
        "config",
        formatter_class=HelpFormatter,
        aliases=["status"],
        help="show which policy files apply, their layers and trust",
        description="Show where policy files were looked for, which were found, how they are layered "
        "and trusted, what each layer keeps of the embedded default and changes of it, and whether "
        "they are valid.",
    )
    add_config_options(config)
    config.add_argument("--json", action="store_true", help="print the report as JSON")


def run_check(args: argparse.Namespace) -> int:
    from ..explain.report import decision_json, explain
    from ..hook.call import HookTimeout, _deadline

    if args.batch is not None:
        if args.command_text is not None or args.input is not None:
            raise UsageError("--batch takes its requests from the file, not from COMMAND or --input")
        return _run_batch(args)
    tool_input = input_json(args.input)
    # Within the hook's time limit, loading included, as a hook call is: what hangs `policy check`
    # would hang every hook call the same way until the agent's own timeout.
    limit = _limit()
    try:
        with _deadline(limit):
            engine = engine_for(args, recording=args.session is not None)
            call = tool_call(args.tool, args.command_text, tool_input, engine.cwd)
            decision = engine.evaluate(_in_session(call, args, {}))
    except HookTimeout as error:
        timed_out = _timed_out(error, args.tool, args.cwd, args.mode, limit)
        if args.json:
            print(json.dumps(timed_out, indent=2, ensure_ascii=False))
        else:
            print(_style(args).verdict(timed_out["action"], timed_out["reason"]))
        return EXIT_FOR_ACTION[Action.DENY]
    if args.json:  # for programs: never coloured nor wrapped, whatever the terminal
        print(json.dumps(decision_json(decision), indent=2, ensure_ascii=False))
    else:
        style = _style(args)
        print(style.verdict(decision.action, decision.reason))
        if decision.message:
            print(style.labelled("message", decision.message))
        if decision.sandbox is not None and not decision.sandbox.applied:
            print(style.labelled("runs", decision.sandbox.command))
        if args.explain:
            print(explain(decision))
    return EXIT_FOR_ACTION[decision.action]


def _style(args: argparse.Namespace) -> Style:
    """How this command line's verdicts are shown to a person (colour, wrapping)."""
    from .style import for_stdout

    return for_stdout(refused=getattr(args, "no_color", False))


def _in_session(call: ToolCall, args: argparse.Namespace, request: dict[str, Any]) -> ToolCall:
    """The call with the session, tool-call id and agent of ``--session`` and its siblings (a batch
    request's own "session", "tool_call_id" and "agent" win); without ``--session``, only the agent
    (what it can do changes verdicts: a pager under Codex, a sandboxed allow under Cursor)."""
    agent = request.get("agent", args.agent)
    if args.session is None:
        if agent is not None and not isinstance(agent, str):
            raise UsageError("agent must be a string")
        return call._replace(agent=agent)
    fields = {
        "session_id": request.get("session", args.session),
        "tool_call_id": request.get("tool_call_id", args.tool_call_id),
        "agent": request.get("agent", args.agent),
    }
    if not all(value is None or isinstance(value, str) for value in fields.values()):
        raise UsageError("session, tool_call_id and agent must be strings")
    return call._replace(**fields)


def _limit() -> float:
    """The hook's time limit (``POLICY_ENGINE_HOOK_TIMEOUT``, read as the hook reads it); what is
    wrong with the variable is said on stderr, as a hook says it."""
    from ..hook.wire import hook_timeout

    seconds, problem = hook_timeout(os.environ)
    if problem is not None:
        print(f"policy check: {problem}", file=sys.stderr)
    return seconds


def _timed_out(
    error: BaseException, tool: str, cwd: str | None, mode: str | None, limit: float
) -> dict[str, Any]:
    """The answer to a call not judged within ``limit`` seconds: the hook's, which refuses it (a
    deny, whatever the mode or ``onError``: a call nobody judged is never allowed), in the shape of
    ``--json``'s decision, with ``timeout`` set to the limit."""
    from ..hook.call import _describe

    return {
        "action": str(Action.DENY),
        "reason": f"[policy-engine] Blocked: the policy engine could not judge this call: {_describe(error)}",
        "message": None,
        "tool": tool,
        "cwd": os.path.abspath(cwd or os.getcwd()),
        "mode": mode,
        "timeout": limit,
        "trace": {"decided_by": None, "others": [], "atoms": [], "layers": []},
    }


def _run_batch(args: argparse.Namespace) -> int:
    from ..explain.report import decision_json
    from ..hook.call import HookTimeout, _deadline

    limit = _limit()
    try:
        with _deadline(limit):  # loading the engine has a limit of its own: no line's time goes to it
            engine = engine_for(args, recording=args.session is not None)
    except HookTimeout as error:  # no line can be judged: every one gets the refusal
        engine, refusal = None, error
    status = 0
    try:
        stream = sys.stdin if args.batch == "-" else open(args.batch, encoding="utf-8")  # noqa: SIM115
    except OSError as error:
        raise UsageError(f"cannot read {args.batch}: {error.strerror}") from None
    with stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise UsageError("a request must be a JSON object")
                cwd = request.get("cwd") or (engine.cwd if engine is not None else args.cwd)
                if cwd is not None and not isinstance(cwd, str):
                    raise UsageError("cwd must be a string")
                tool = str(request.get("tool", "bash"))
                if engine is None:
                    result = _timed_out(refusal, tool, cwd, args.mode, limit)
                else:
                    call = tool_call(tool, request.get("command"), request.get("input"), cwd or engine.cwd)
                    call = _in_session(call, args, request)
                    try:
                        with _deadline(limit):
                            result = decision_json(engine.evaluate(call))
                    except HookTimeout as error:  # this line is refused; the next ones are judged
                        result = _timed_out(error, tool, call.cwd, engine.mode, limit)
            except (ValueError, UsageError) as error:
                result, status = {"error": f"line {number}: {error}"}, EXIT_USAGE
            print(json.dumps(result, ensure_ascii=False), flush=False)
    return status


def run_config(args: argparse.Namespace) -> int:
    from ..config.discover import PROJECT, discover
    from ..config.trust import read_store, recorded_digest

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
        from ..config.layers import inheritance
        from ..engine import Engine

        engine = Engine(args.config, cwd=cwd)
        report["layers"] = [
            {
                "name": layer.name,
                "restrict_only": layer.restrict_only,
                "files": list(layer.files),
                "policies": sorted(layer.policies),
                **({} if layer.name == "managed" else inheritance(layer)),
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
        print(f"layer {layer['name']} ({kind}): {', '.join(layer['files']) or 'no file'}")
        print(f"  policies: {', '.join(layer['policies']) or 'none'}")
        _print_inheritance(layer)
    if "problems" in report:
        print("invalid configuration:")
        print("\n".join(f"  {p}" for p in report["problems"]))
    return status


def _print_inheritance(layer: dict[str, Any]) -> None:
    """What a layer keeps of the embedded default and what its files change of it."""
    if "extends" not in layer:  # the managed layer judges by its own rules alone
        return
    if layer["extends"]:
        from ..config.presets import DEFAULT_POLICY

        print(f"  extends the embedded default ({DEFAULT_POLICY}):")
        kept = layer["protections"]
        print(f"    its pathProtection: {', '.join(kept) if kept else 'none kept'}")
        print(f"    its policies, unchanged: {', '.join(layer['inherited_policies']) or 'none'}")
    print(f"  paths no location covers: {layer['uncovered']}")
    if layer["changes"]:
        print("  changes to the embedded default:")
    for change in layer["changes"]:
        at = f" ({change['at']})" if change["at"] else ""
        print(f"    {change['kind']}: {change['text']}{at}")


def _trust_state(path: str, recorded: str | None) -> str:
    from ..config.trust import digest

    if recorded is None:
        return (
            "untrusted: never trusted (it can only tighten your policy; run `policy trust` to let it loosen)"
        )
    with open(path, encoding="utf-8") as handle:
        current = digest(handle.read())
    if current != recorded:
        return "untrusted: changed since it was trusted (review it, then run `policy trust` again)"
    return "trusted: its content matches what `policy trust` recorded"


COMMANDS: Commands = {"check": (_add_check, run_check), "config": (_add_config, run_config)}
