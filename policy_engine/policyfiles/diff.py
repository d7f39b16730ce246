"""`policy diff OLD NEW`: the tool calls whose decision a change of policy file changes.

A reviewer of a policy pull request wants to see what the change does, not the text that changed:
which calls it lets through that were stopped (looser), and which it stops that went through
(stricter). The calls judged are the in-file tests of both files (each file's author wrote down the
calls that matter to it) plus a corpus: a file given on the command line, else the shared tldr
command lines when they are present.

Each file is judged alone, as `policy test` judges it (enforce mode, no managed file), so that the
diff shows the two files' own intent wherever it is run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..agents.toolnames import BASH, canonical_tool
from ..model import Decision, ToolCall
from ..paths import normalize
from ..record import Record
from .filetests import _call as test_call
from .filetests import default_cwd

if TYPE_CHECKING:
    from ..engine import Engine


class Change(Record):
    """A call whose action differs between the old and the new file."""

    call: ToolCall
    old: Decision
    new: Decision

    @property
    def looser(self) -> bool:
        """True when the new file is less restrictive for this call (Action is ordered by restriction)."""
        return self.new.action < self.old.action


class CorpusError(ValueError):
    """A line of a corpus file that is not a call; the message names the file and line."""


def _engine(path: str, env: Mapping[str, str]) -> Engine:
    """The engine of one policy file alone, as `policy test` builds it (ConfigError when invalid)."""
    from ..engine import Engine  # loaded when needed, as the CLI's other commands do

    # The managed file would be the same on both sides and could hide a difference; an explicit
    # mode keeps POLICY_ENGINE_MODE or a file's own "mode" from turning decisions into reports.
    alone = {**env, "POLICY_ENGINE_MANAGED_CONFIG": ""}
    return Engine(path, cwd=default_cwd(path), env=alone, mode="enforce")


def corpus_calls(
    old: str,
    new: str,
    corpus: str | None,
    shared: str | None,
    env: Mapping[str, str] | None = None,
) -> list[ToolCall]:
    """The calls to judge: the in-file tests of both files, then ``corpus`` (JSON Lines or one bash
    command per line) or, without one, the lines of ``shared`` (tldr.txt) when that file exists.

    A corpus call without a cwd runs in the OLD file's default directory (`default_cwd`), and a
    relative cwd is taken from there, so that both files judge the same absolute call; a file's tests
    run where `policy test` runs them (that file's default directory). Duplicates are dropped, the
    first kept (``Bash`` and ``bash`` are one tool).
    ConfigError when a file is invalid (its tests included), CorpusError for a malformed corpus line.
    ``env`` (default: the process's) gives the home directory that ``~`` in a cwd stands for.
    """
    env = os.environ if env is None else env
    calls: list[ToolCall] = []
    home = ""
    for path in (old, new):
        # Loading the engine validates the file, its tests included: a malformed test is a
        # ConfigError with its line rather than a KeyError here.
        home = _engine(path, env).home
        calls += _file_tests(path, home)
    where = default_cwd(old)
    if corpus is not None:
        calls += _read_corpus(corpus, where, home)
    elif shared is not None and os.path.isfile(shared):
        # tldr.txt holds command lines only: a line starting with # is a command ("#!/path/to/tcc -run").
        with open(shared, encoding="utf-8") as handle:
            calls += [_bash(line.strip(), where) for line in handle if line.strip()]
    return _unique(calls)


def _file_tests(path: str, home: str) -> list[ToolCall]:
    """The calls of a file's ``"tests"``, built as `policy test` builds them (its own default cwd)."""
    from ..config.jsonc import parse
    from ..config.load import read_text

    document = parse(read_text(path), path)
    tests = document.data.get("tests") or []
    return [test_call(test, default_cwd(path), home) for test in tests]


def _bash(command: str, cwd: str) -> ToolCall:
    return ToolCall(BASH, {"command": command}, cwd)


def _read_corpus(path: str, cwd: str, home: str) -> list[ToolCall]:
    """The calls of a corpus file: JSON Lines when its first line is a JSON object, else text.

    The format is sniffed rather than taken from the file's name: a bash line never parses as a JSON
    object (a brace group is ``{ cmd; }``), and a JSONL file named .txt still works.
    """
    with open(path, encoding="utf-8") as handle:
        lines = [
            (number, line.strip())
            for number, line in enumerate(handle, 1)
            if line.strip() and not line.lstrip().startswith("#")
        ]
    if not lines or not _is_object(lines[0][1]):
        return [_bash(text, cwd) for _, text in lines]
    return [_request(text, cwd, home, f"{path}:{number}") for number, text in lines]


def _is_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _request(text: str, cwd: str, home: str, where: str) -> ToolCall:
    """A JSONL request as `policy check --batch` reads it: {"tool", "command" | "input", "cwd"}."""
    try:
        request = json.loads(text)
    except ValueError as error:
        raise CorpusError(f"{where}: not valid JSON: {error}") from None
    if not isinstance(request, dict):
        raise CorpusError(f"{where}: a request must be a JSON object")
    tool, command, tool_input = request.get("tool", BASH), request.get("command"), request.get("input")
    given = request.get("cwd")
    if not isinstance(tool, str) or not tool:
        raise CorpusError(f"{where}: tool must be a non-empty string")
    if given is not None and not isinstance(given, str):
        raise CorpusError(f"{where}: cwd must be a string")
    if tool_input is None:
        tool_input = {}
    if not isinstance(tool_input, dict):
        raise CorpusError(f"{where}: the tool input must be a JSON object")
    if command is not None:
        tool_input = {**tool_input, "command": command}
    if canonical_tool(tool) == BASH and not isinstance(tool_input.get("command"), str):
        raise CorpusError(f"{where}: a bash call needs a command (a string)")
    # Absolute here: each engine would otherwise take a relative cwd from its own file's directory.
    return ToolCall(tool, tool_input, normalize(given, cwd, home) if given else cwd)


def _unique(calls: Iterable[ToolCall]) -> list[ToolCall]:
    """The calls without repeats, in order; ``Bash`` and ``bash`` are one tool, as the engine sees it."""
    seen: dict[tuple[str, str, str], ToolCall] = {}
    for call in calls:
        key = (canonical_tool(call.tool), json.dumps(call.input, sort_keys=True, default=str), call.cwd)
        seen.setdefault(key, call)
    return list(seen.values())


def changes(
    old: str,
    new: str,
    calls: Sequence[ToolCall],
    env: Mapping[str, str],
    advance: Callable[[int], None] | None = None,
) -> list[Change]:
    """The calls whose action differs between ``old`` and ``new``, each file judged alone in enforce
    mode without the managed file; in the order of ``calls``. A changed reason alone is not a change:
    a reworded message or a renamed rule does not change what the agent may do.
    ``advance(1)`` is called as each call is judged (the command's progress bar: the shared corpus
    holds some 28,000 lines). ConfigError when a file is invalid."""
    before, after = _engine(old, env), _engine(new, env)
    found = []
    for call in calls:
        old_decision, new_decision = before.evaluate(call), after.evaluate(call)
        if old_decision.action is not new_decision.action:
            found.append(Change(call, old_decision, new_decision))
        if advance is not None:
            advance(1)
    return found


def _text(call: ToolCall) -> str:
    """A call as one line: ``bash: <command>``, else ``<tool>: <input as JSON>``."""
    tool = canonical_tool(call.tool)
    command = call.input.get("command")
    if tool == BASH and isinstance(command, str) and len(call.input) == 1:
        return f"{tool}: {command}"
    return f"{tool}: {json.dumps(call.input, ensure_ascii=False, default=str)}"


def _order(change: Change) -> tuple[int, str, str]:
    """Loosest first (deny -> allow is -4): a reviewer looks at what the change lets through first."""
    return (change.new.action - change.old.action, _text(change.call), change.call.cwd)


def _counts(found: Sequence[Change]) -> tuple[int, int]:
    looser = sum(change.looser for change in found)
    return looser, len(found) - looser


def render(changes: Sequence[Change], total: int) -> str:
    """The changes for a reader, loosest first, then a summary line:

    ``deny -> allow  bash: rm -rf build  (cwd /x)`` with the new reason indented below it, and
    ``N of M calls changed: K looser, L stricter``.
    """
    lines = []
    for change in sorted(changes, key=_order):
        lines.append(
            f"{change.old.action} -> {change.new.action}  {_text(change.call)}  (cwd {change.call.cwd})"
        )
        lines += [f"    {line}" for line in change.new.reason.splitlines() or [""]]
    looser, stricter = _counts(changes)
    lines.append(f"{len(changes)} of {total} calls changed: {looser} looser, {stricter} stricter")
    return "\n".join(lines)


def _decision_json(decision: Decision) -> dict[str, Any]:
    return {"action": str(decision.action), "reason": decision.reason, "message": decision.message}


def to_json(changes: Sequence[Change], total: int) -> dict[str, Any]:
    """The changes as data, in render's order; each call in the shape `policy check --batch` reads."""
    looser, stricter = _counts(changes)
    return {
        "total": total,
        "changed": len(changes),
        "looser": looser,
        "stricter": stricter,
        "changes": [
            {
                "tool": change.call.tool,
                "input": dict(change.call.input),
                "cwd": change.call.cwd,
                "direction": "looser" if change.looser else "stricter",
                "old": _decision_json(change.old),
                "new": _decision_json(change.new),
            }
            for change in sorted(changes, key=_order)
        ],
    }
